// The daemon's side of Subnet Administration: GMPs from the port, answered
// by the GmpResponder (sm/sa) only while this SM is MASTER. A standby or a
// not-active SM must not answer (hosts would take two SAs' word), yet a
// GMP must never stop the daemon: whatever cannot be answered is dropped
// and counted. The handler runs on the daemon's one thread from inside the
// transport's receive(), so queries are served between the MADs of a sweep
// as well as between sweeps, and the responder answers from the model of
// the last finished sweep (Gmp.h).
//
// Notices go the other way: Reports the SA's Notifier (sm/sa/Notifier.h)
// asks for are sent through the same port, from the daemon's thread only
// -- a trap's handler, the end of a sweep, or a timer of the loop, which
// also fires between the MADs of a sweep -- and ReportResps come back as
// GMPs like any other.
#include <fmt/format.h>
#include <ibsm/PerfCounters.h>
#include <spdlog/spdlog.h>

#include "sm/manager/DaemonImpl.h"
#include "sm/manager/SaFeed.h"
#include "sm/sa/Notices.h"
#include "sm/sa/SaNames.h"

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
  // PerfMgt answers are the counter sweep's: the SA never sees them.
  if (in.mad.size() > 1 && in.mad[1] == kPerfClass) {
    counters.deliver(in.mad);
    return;
  }
  ++sa.received;
  if (!isSaMad(in.mad)) {
    ++sa.droppedUndecodable;
    return;
  }
  // A ReportResp completes a Report of ours, whatever our state now.
  if (in.mad[3] == saMethod::kReportResp && notifier) {
    notifier->acknowledge(in.mad);
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
  const auto began = now();
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
  if (saTrace.enabled()) traceSa(in, *answer, began);
  // A join or a leave: the MFTs follow in a pass (DaemonMulticast.cpp).
  watchGroups();
}

void SmDaemon::Impl::traceSa(const ReceivedGmp& in, std::span<const std::uint8_t> answer,
                             MadClock::time_point began) {
  // MAD header fields, big-endian: method at 3, status at 4, attribute id
  // at 16, modifier at 20 (IBA 13.4.2); isSaMad() checked the length.
  const auto be16 = [](std::span<const std::uint8_t> m, std::size_t at) {
    return static_cast<std::uint16_t>(m[at] << 8 | m[at + 1]);
  };
  const std::uint16_t id = be16(in.mad, 16);
  const std::uint32_t modifier =
      static_cast<std::uint32_t>(be16(in.mad, 20)) << 16 | be16(in.mad, 22);
  const std::uint16_t status = answer.size() > 5 ? be16(answer, 4) : 0;
  const std::string method = "SubnAdm" + sa::methodName(in.mad[3]);
  std::string attribute = sa::attributeName(id);
  if (attribute.starts_with("0x")) attribute.clear();  // no name: the id alone
  const auto t = now();
  saTrace.record(
      MadTraceEntry{.method = method,
                    .attribute = attribute,
                    .attributeId = id,
                    .modifier = modifier,
                    .to = fmt::format("from LID {}", in.from.lid.value),
                    .status = status == 0 ? std::string("answered ok")
                                          : fmt::format("answered status 0x{:04x}", status),
                    .latency = std::chrono::duration_cast<std::chrono::microseconds>(t - began),
                    .attempts = 1},
      t);
}

void SmDaemon::Impl::noticeTrap(const Notice& notice, Lid from) {
  if (!notifier || agent.self().smState != SmState::Master) return;
  notifier->trapReceived(notice, from, now());
  pumpNotices();
}

void SmDaemon::Impl::noticeSweep(const SweepResult& result) {
  if (!notifier || !result.plan || agent.self().smState != SmState::Master) return;
  const PortsInService now = portsInService(result, sweep.held());
  for (const SaNotice& n : notifier->inService(now.ports, now.smLid, portGuid, this->now())) {
    log->info(
        "SM-0904 trap {}: port {} {}", n.notice.trapNumber, gidGuid(sa::noticeGid(n)),
        n.notice.trapNumber == sa::noticeTrap::kGidInService ? "in service" : "out of service");
  }
  pumpNotices();
}

void SmDaemon::Impl::resetNotices() {
  if (!notifier) return;
  notifier->reset();
  if (noticeTimer) loop.cancel(*noticeTimer);
  noticeTimer.reset();
}

void SmDaemon::Impl::pumpNotices() {
  if (!notifier || gmpPort == nullptr) return;
  for (const OutgoingGmp& out : notifier->due(now())) {
    if (auto sent = gmpPort->sendGmp(out.mad, out.to); !sent) {
      ++sa.reportSendFailed;
      log->warn("SM-0903 Report to LID {} QP {} not sent: {}", out.to.lid.value, out.to.qpn,
                sent.error().message);
    }
  }
  // One timer, at the earliest deadline: re-armed when that moved.
  const auto next = notifier->nextDeadline();
  if (noticeTimer && next && *next == noticeTimerAt) return;
  if (noticeTimer) loop.cancel(*noticeTimer);
  noticeTimer.reset();
  if (!next) return;
  noticeTimerAt = *next;
  noticeTimer = loop.at(*next, [this] {
    noticeTimer.reset();
    pumpNotices();
  });
}

}  // namespace ibsm::sm::manager
