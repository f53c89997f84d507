// sa-client mcast flood: one host joining multicast groups as fast as it
// can (issue 29's abusive host), for tests/sm/run/sa-flood.sh and by hand:
//
//   sa-client mcast flood --seconds S [--window W] [--timeout-ms T]
//                         [--mgid-base M] [--drain-ms D] [--stop-file F]
//
// Every request is an MCMemberRecord Set (a join) for this client's own
// port, full member, to a group not asked for before: the MGID --mgid-base
// (default ff12::, link-local, no signature of IPoIB or of the SA) with its
// last 32 bits counting from 1. Each one therefore creates a group, and the
// component mask is a create's as hosts send it (o15-0.1.8 and what IPoIB
// and osmtest put in a create: MGID, PortGID, Q_Key, TClass, P_Key, SL,
// FlowLabel, JoinState, MTU and rate with their selectors; mcr::kCreate).
// W requests are kept outstanding for S seconds, none sent again; one
// unanswered after T ms counts as timed out, and an answer that comes later
// still counts by its status (late), so that what the client counts by
// status is what the SA answered. After S seconds (or once F exists, see
// StopFile in ClientCommon.h) it waits up to D ms
// (default 500) for what is still outstanding.
//
// Prints `key value` lines: requests, answers (any status), ok, refused,
// `status_0xNNNN N` per status answered other than 0, timeouts (never
// answered), late, seconds, answers_per_s, p50_us/p99_us of the answers
// within T, cpu_s. Exit 0 when every request was answered (refusals are
// what a flood expects), 1 otherwise.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ClientCommon.h"
#include "McMemberRecord.h"

namespace ibsm::test::sa {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::uint8_t kSet = 0x02;
constexpr std::uint8_t kFullMember = 0x1;

struct FloodCounts {
  std::size_t requests = 0, timeouts = 0, late = 0;
  std::map<std::uint16_t, std::size_t> byStatus;  // every answer, 0 included
  std::vector<double> latencyUs;                  // answers within the timeout
};

class JoinFlood {
 public:
  JoinFlood(SaPort& port, const Args& args)
      : port_(port),
        window_(std::max<std::size_t>(1, args.number("window", 64))),
        timeout_(std::chrono::milliseconds(args.number("timeout-ms", 1000))),
        drain_(std::chrono::milliseconds(args.number("drain-ms", 500))),
        runFor_(std::chrono::seconds(args.number("seconds", 0))),
        stopFile_(args) {
    const auto base = parseGid(args.get("mgid-base", "ff12::"));
    if (!base) throw std::invalid_argument("mcast flood: --mgid-base is not a GID");
    base_ = *base;
    if (runFor_.count() <= 0) throw std::invalid_argument("mcast flood: --seconds S is required");
  }

  int run();

 private:
  void send();
  void take(const SaMad& answer, Clock::time_point now);
  void expire(Clock::time_point now);
  void print(double seconds) const;

  SaPort& port_;
  std::size_t window_;
  Clock::duration timeout_, drain_, runFor_;
  StopFile stopFile_;
  Gid base_{};
  std::uint32_t next_ = 0;
  std::unordered_map<std::uint32_t, Clock::time_point> inFlight_;
  std::unordered_set<std::uint32_t> expired_;  // timed out, may still be answered
  FloodCounts counts_;
};

void JoinFlood::send() {
  SaMad mad = SaMad::request(kSet, kMcMemberRecord, mcr::kCreate, nextTid());
  McMemberRecord r;
  r.mgid = base_;
  const std::uint32_t n = ++next_;
  for (int i = 0; i < 4; ++i) r.mgid[12 + i] = static_cast<std::uint8_t>(n >> (24 - 8 * i));
  r.portGid = makeGid(port_.gidPrefix(), port_.portGuid());
  // An IPoIB broadcast group's parameters (Q_Key 0x0b1b, 2048 MTU, 10 Gb/s,
  // the default partition), which every ibsim port carries.
  r.qkey = 0x0b1b;
  r.pkey = 0xffff;
  r.mtuSelector = kSelectorExactly;
  r.mtu = 4;
  r.rateSelector = kSelectorExactly;
  r.rate = 3;
  r.joinState = kFullMember;
  r.encode(mad.data());
  inFlight_[static_cast<std::uint32_t>(mad.tid())] = Clock::now();
  // The port tracks the send past our timeout, through the drain: a kernel
  // drops an answer to a send it no longer tracks, and a late one counts.
  port_.send(mad,
             static_cast<int>(
                 std::chrono::duration_cast<std::chrono::milliseconds>(timeout_ + drain_).count()));
  ++counts_.requests;
}

void JoinFlood::take(const SaMad& answer, Clock::time_point now) {
  const auto tid = static_cast<std::uint32_t>(answer.tid());
  if (auto it = inFlight_.find(tid); it != inFlight_.end()) {
    if (answer.status() == 0)
      counts_.latencyUs.push_back(
          std::chrono::duration<double, std::micro>(now - it->second).count());
    inFlight_.erase(it);
  } else if (auto late = expired_.find(tid); late != expired_.end()) {
    expired_.erase(late);
    ++counts_.late;
  } else {
    return;  // not ours
  }
  ++counts_.byStatus[answer.status()];
}

void JoinFlood::expire(Clock::time_point now) {
  std::erase_if(inFlight_, [&](const auto& kv) {
    if (now - kv.second <= timeout_) return false;
    expired_.insert(kv.first);
    return true;
  });
}

int JoinFlood::run() {
  const auto start = Clock::now();
  const auto stopAt = start + runFor_;
  while (Clock::now() < stopAt && !stopFile_.reached()) {
    while (inFlight_.size() < window_) send();
    if (auto got = port_.receive(10);
        got && (got->method() & 0x80) && got->attribute() == kMcMemberRecord)
      take(*got, Clock::now());
    expire(Clock::now());
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  // What is still out may yet be answered: wait a little for it.
  const auto drainUntil = Clock::now() + drain_;
  while ((!inFlight_.empty() || !expired_.empty()) && Clock::now() < drainUntil) {
    if (auto got = port_.receive(10);
        got && (got->method() & 0x80) && got->attribute() == kMcMemberRecord)
      take(*got, Clock::now());
    expire(Clock::now());
  }
  counts_.timeouts = inFlight_.size() + expired_.size();
  print(seconds);
  return counts_.timeouts == 0 ? 0 : 1;
}

void JoinFlood::print(double seconds) const {
  std::vector<double> sorted = counts_.latencyUs;
  std::sort(sorted.begin(), sorted.end());
  auto percentile = [&](double p) {
    return sorted.empty()
               ? 0.0
               : sorted[std::min(sorted.size() - 1, static_cast<std::size_t>(p * sorted.size()))];
  };
  std::size_t answers = 0, ok = 0;
  for (const auto& [status, n] : counts_.byStatus) {
    answers += n;
    if (status == 0) ok = n;
  }
  std::printf("requests %zu\nanswers %zu\nok %zu\nrefused %zu\n", counts_.requests, answers, ok,
              answers - ok);
  for (const auto& [status, n] : counts_.byStatus)
    if (status != 0) std::printf("status_0x%04x %zu\n", status, n);
  std::printf("timeouts %zu\nlate %zu\nseconds %.3f\nanswers_per_s %.0f\n", counts_.timeouts,
              counts_.late, seconds, seconds > 0 ? answers / seconds : 0.0);
  std::printf("p50_us %.0f\np99_us %.0f\ncpu_s %.3f\n", percentile(0.50), percentile(0.99),
              cpuSeconds());
}

}  // namespace

int mcastFlood(SaPort& port, const Args& args) {
  JoinFlood flood(port, args);
  return flood.run();
}

}  // namespace ibsm::test::sa
