// The daemon's side of Subnet Administration: GMPs from the port, answered
// by the GmpResponder (sm/sa) only while this SM is MASTER. A standby or a
// not-active SM must not answer (hosts would take two SAs' word), yet a
// GMP must never stop the daemon: whatever cannot be answered is dropped
// and counted. The handler runs on the daemon's one thread from inside the
// transport's receive(), so queries are served between the MADs of a sweep
// as well as between sweeps, and the responder answers from the model of
// the last finished sweep (Gmp.h).
#include <spdlog/spdlog.h>

#include "sm/manager/DaemonImpl.h"

namespace ibsm::sm::manager {
namespace {

// Base version, class and class version, method: the common MAD header's
// first bytes, all a GMP needs to be handed on.
constexpr std::size_t kMadHeaderSize = 24;
constexpr std::uint8_t kBaseVersion = 1;

bool isSaMad(std::span<const std::uint8_t> mad) {
  return mad.size() >= kMadHeaderSize && mad[0] == kBaseVersion && mad[1] == kSaClass &&
         mad[2] == kSaClassVersion;
}

}  // namespace

void SmDaemon::Impl::serveSa(GmpPort& port, std::shared_ptr<GmpResponder> responder) {
  if (gmpPort != nullptr && gmpPort != &port) gmpPort->onGmp({});
  gmpPort = &port;
  saResponder = std::move(responder);
  gmpPort->onGmp([this](const ReceivedGmp& in) { onGmp(in); });
  log->info("SM-0901 SA queries {}",
            saResponder ? "answered while master"
                        : "dropped: no SA responder (counted as sa.dropped_no_responder)");
}

void SmDaemon::Impl::onGmp(const ReceivedGmp& in) {
  ++sa.received;
  if (!isSaMad(in.mad)) {
    ++sa.droppedUndecodable;
    return;
  }
  // SetSmState, the machine's action, is what makes this port MASTER.
  if (agent.self().smState != SmState::Master) {
    ++sa.droppedNotMaster;
    return;
  }
  if (!saResponder) {
    ++sa.droppedNoResponder;
    return;
  }
  auto answer = saResponder->answer(in.mad, in.from);
  if (!answer) {
    ++sa.notAnswered;
    return;
  }
  if (auto sent = gmpPort->sendGmp(*answer, in.from); !sent) {
    ++sa.sendFailed;
    log->warn("SM-0902 SA answer to LID {} QP {} not sent: {}", in.from.lid.value, in.from.qpn,
              sent.error().message);
    return;
  }
  ++sa.answered;
}

}  // namespace ibsm::sm::manager
