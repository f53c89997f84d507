#include "sm/sa/Reports.h"

#include <algorithm>
#include <utility>

#include "sm/sa/Notices.h"

namespace ibsm::sm::sa {
namespace {

constexpr std::size_t kTidByte = 8;
constexpr std::size_t kMethodByte = 3;
constexpr std::size_t kMadHeaderSize = 24;
// 4.096 us * 2^v, in microseconds, for v up to 31 (RespTimeValue is 5 bits).
std::chrono::microseconds ibaTime(std::uint8_t v) {
  return std::chrono::microseconds((std::uint64_t{4096} << std::min<std::uint8_t>(v, 31)) / 1000);
}

std::uint64_t tidOf(std::span<const std::uint8_t> mad) {
  std::uint64_t tid = 0;
  for (std::size_t i = 0; i < 8; ++i) tid = (tid << 8) | mad[kTidByte + i];
  return tid;
}

}  // namespace

std::chrono::milliseconds reportTimeout(std::uint8_t respTimeValue,
                                        const ReportSettings& settings) {
  const auto wait = ibaTime(respTimeValue) + 2 * ibaTime(settings.packetLifeTime);
  return std::clamp(std::chrono::ceil<std::chrono::milliseconds>(wait), settings.minTimeout,
                    settings.maxTimeout);
}

Reports::Reports(ReportSettings settings)
    : settings_(settings),
      // OpenSM starts its Report TIDs at 0x02DAB000; any start will do, ours
      // tells ibsm's Reports apart in a capture. No window of its own: the
      // cap is maxOutstanding, enforced (failing, not queueing) by add().
      requests_(hooks(), {.window = std::max<std::size_t>(settings.maxOutstanding, 1),
                          .firstTid = 0x1B5A0001}) {}

Reports::Requests::Hooks Reports::hooks() {
  return Requests::Hooks{.send =
                             [this](Report& r, std::uint32_t tid, unsigned attempt) {
                               if (attempt == 1) r.mad = encodeReport(r.notice, tid);
                               ++(attempt == 1 ? counters_.sent : counters_.retried);
                               out_.push_back(OutgoingGmp{.mad = r.mad, .to = r.to});
                               return true;
                             },
                         .timeout = [](const Report& r, unsigned) { return r.timeout; },
                         .attempts = [this](const Report&) { return settings_.retries + 1; },
                         .complete =
                             [this](Report&, ibsm::sm::mad::Completion<std::monostate>&& done) {
                               // Cancelled: clear(), not counted.
                               if (done.outcome == ibsm::sm::mad::RequestOutcome::Ok)
                                 ++counters_.acknowledged;
                               if (done.outcome == ibsm::sm::mad::RequestOutcome::Timeout)
                                 ++counters_.failed;
                             },
                         .clock = [this] { return now_; },
                         .retrying = {},
                         .wakeAt = {}};
}

void Reports::add(const SaNotice& notice, const Subscription& to, Clock::time_point now) {
  if (outstanding() >= settings_.maxOutstanding) {
    ++counters_.failed;
    return;
  }
  now_ = now;
  if (requests_.queued() == 0) firstQueuedAt_ = now;
  requests_.submit(Report{.notice = notice,
                          .to = to.reportTo,
                          .timeout = reportTimeout(to.info.respTimeValue, settings_),
                          .mad = {}});
}

std::vector<OutgoingGmp> Reports::due(Clock::time_point now) {
  now_ = now;
  requests_.expire();  // retries and failures first, then the first sends
  return std::exchange(out_, {});
}

bool Reports::acknowledge(std::span<const std::uint8_t> mad) {
  if (mad.size() < kMadHeaderSize || mad[kMethodByte] != saMethod::kReportResp) return false;
  const auto tid = static_cast<std::uint32_t>(tidOf(mad));
  const bool matched = requests_.deliver(tid, std::monostate{}, false);
  if (!matched) ++counters_.unmatched;
  return matched;
}

std::optional<Reports::Clock::time_point> Reports::nextDeadline() const {
  // A Report added but not yet sent is due from when it was added; due()
  // sends every one (the window is the cap add() keeps).
  const auto sent = requests_.nextDeadline();
  if (requests_.queued() == 0) return sent;
  return sent ? std::min(*sent, firstQueuedAt_) : firstQueuedAt_;
}

}  // namespace ibsm::sm::sa
