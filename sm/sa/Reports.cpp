#include "sm/sa/Reports.h"

#include <algorithm>

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

std::uint32_t Reports::nextTid() {
  do {
    ++lastTid_;
  } while (lastTid_ == 0 ||
           std::ranges::any_of(pending_, [&](const Pending& p) { return p.tid == lastTid_; }));
  return lastTid_;
}

void Reports::add(const SaNotice& notice, const Subscription& to, Clock::time_point now) {
  if (pending_.size() >= settings_.maxOutstanding) {
    ++counters_.failed;
    return;
  }
  Pending p;
  p.tid = nextTid();
  p.gmp = {.mad = encodeReport(notice, p.tid), .to = to.reportTo};
  p.timeout = reportTimeout(to.info.respTimeValue, settings_);
  p.deadline = now;
  pending_.push_back(std::move(p));
}

std::vector<OutgoingGmp> Reports::due(Clock::time_point now) {
  std::vector<OutgoingGmp> out;
  std::vector<std::uint32_t> failed;
  for (Pending& p : pending_) {
    if (p.deadline > now) continue;
    if (p.sends > settings_.retries) {
      failed.push_back(p.tid);
      continue;
    }
    ++(p.sends == 0 ? counters_.sent : counters_.retried);
    ++p.sends;
    p.deadline = now + p.timeout;
    out.push_back(p.gmp);
  }
  counters_.failed += std::erase_if(
      pending_, [&](const Pending& p) { return std::ranges::find(failed, p.tid) != failed.end(); });
  return out;
}

bool Reports::acknowledge(std::span<const std::uint8_t> mad) {
  if (mad.size() < kMadHeaderSize || mad[kMethodByte] != saMethod::kReportResp) return false;
  const auto tid = static_cast<std::uint32_t>(tidOf(mad));
  const auto it = std::ranges::find(pending_, tid, &Pending::tid);
  if (it == pending_.end() || it->sends == 0) {
    ++counters_.unmatched;
    return false;
  }
  pending_.erase(it);
  ++counters_.acknowledged;
  return true;
}

std::optional<Reports::Clock::time_point> Reports::nextDeadline() const {
  if (pending_.empty()) return std::nullopt;
  return std::ranges::min(pending_, {}, &Pending::deadline).deadline;
}

}  // namespace ibsm::sm::sa
