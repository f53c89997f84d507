#include "sm/manager/SaService.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

#include "sm/mad/PerfCounters.h"
#include "sm/sa/SaMad.h"
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

SaService::SaService(std::shared_ptr<spdlog::logger> log, const SmInfoAgent& agent,
                     const MasterSweep& sweep, Hooks hooks, sa::FairQueueLimits limits,
                     std::size_t readsPerTurn)
    : log_(std::move(log)),
      agent_(agent),
      sweep_(sweep),
      hooks_(std::move(hooks)),
      trace_(log_),
      queue_(limits),
      readsPerTurn_(std::max<std::size_t>(readsPerTurn, 1)) {}

void SaService::setQueue(sa::FairQueueLimits limits, std::size_t readsPerTurn) {
  queue_.setLimits(limits);
  readsPerTurn_ = std::max<std::size_t>(readsPerTurn, 1);
}

SaService::~SaService() {
  unbind();
}

void SaService::unbind() {
  if (port_ != nullptr) {
    port_->onGmp({});
    port_->onGmpsDrained({});
  }
  port_ = nullptr;
}

void SaService::serve(GmpPort& port, std::shared_ptr<GmpResponder> responder) {
  if (port_ != nullptr && port_ != &port) {
    port_->onGmp({});
    port_->onGmpsDrained({});
  }
  port_ = &port;
  responder_ = std::move(responder);
  port_->onGmp([this](const ReceivedGmp& in) { onGmp(in); });
  port_->onGmpsDrained([this] { return serveTurn(); });
  log_->info("SM-0901 SA queries {}",
             responder_ ? "answered while master"
                        : "dropped: no SA responder (counted as sa.dropped_no_responder)");
}

void SaService::onGmp(const ReceivedGmp& in) {
  // PerfMgt answers are the counter sweep's: the SA never sees them.
  if (in.mad.size() > 1 && in.mad[1] == kPerfClass) {
    if (hooks_.perfGmp) hooks_.perfGmp(in);
    return;
  }
  ++counts_.received;
  if (!isSaMad(in.mad)) {
    ++counts_.droppedUndecodable;
    return;
  }
  // A ReportResp completes a Report of ours, whatever our state now.
  if (in.mad[3] == saMethod::kReportResp && hooks_.reportResp && hooks_.reportResp(in.mad)) return;
  // SetSmState, the machine's action, is what makes this port MASTER.
  if (agent_.self().smState != SmState::Master) {
    ++counts_.droppedNotMaster;
    return;
  }
  if (!responder_) {
    ++counts_.droppedNoResponder;
    return;
  }
  queue_.push(in, hooks_.clock());
  if (++readsSinceTurn_ >= readsPerTurn_) serveTurn();
}

bool SaService::serveTurn() {
  readsSinceTurn_ = 0;
  for (std::size_t n = queue_.requesters(); n > 0; --n) {
    auto next = queue_.pop();
    if (!next) break;
    serveOne(*next);
    queue_.recycle(std::move(*next));  // its buffer serves a later request
  }
  return !queue_.empty();
}

void SaService::serveOne(const sa::QueuedGmp& queued) {
  const ReceivedGmp& in = queued.gmp;
  // Queued while master: the state may have changed since.
  if (agent_.self().smState != SmState::Master) {
    ++counts_.droppedNotMaster;
    return;
  }
  if (!responder_) {
    ++counts_.droppedNoResponder;
    return;
  }
  const auto began = queued.at;  // the trace's latency includes the wait
  auto answer = responder_->answer(in.mad, in.from);
  if (!answer) {
    ++counts_.notAnswered;
    return;
  }
  if (auto sent = port_->sendGmp(*answer, in.from); !sent) {
    ++counts_.sendFailed;
    log_->warn("SM-0902 SA answer to LID {} QP {} not sent: {}", in.from.lid.value, in.from.qpn,
               sent.error().message);
    return;
  }
  ++counts_.answered;
  if (trace_.enabled()) traceAnswer(in, *answer, began);
  // A join or a leave: the MFTs follow in a pass (the multicast's).
  if (hooks_.answered) hooks_.answered();
}

void SaService::traceAnswer(const ReceivedGmp& in, std::span<const std::uint8_t> answer,
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
  const auto t = hooks_.clock();
  trace_.record(
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

void SaService::feedBeforeRead(const SweepResult& result) {
  if (listener_ && result.plan) listener_(result, sweep_.held(), agent_.self());
  fedBeforeRead_ = &result;
}

void SaService::onSweep(const SweepOutcome& outcome) {
  const SweepResult* result = outcome.result;
  const bool fed = result != nullptr && std::exchange(fedBeforeRead_, nullptr) == result;
  if (fed && result->program.phase(program::ProgramPhase::ReadVlArb).requests == 0) return;
  if (listener_ && result && result->plan) listener_(*result, sweep_.held(), agent_.self());
}

void SaService::describe(control::DaemonStatus& status) const {
  control::SaStatus& out = status.sa;
  out.traffic = counts_;
  out.queue = queue_.counters();
  out.requestersWaiting = queue_.requesters();
  out.largestQueue = queue_.largest();
  if (describe_) describe_(out);
}

}  // namespace ibsm::sm::manager
