// sa-client mcast: multicast joins and leaves as hosts send them, by proxy
// for many ports from this one client (ibsim takes at most 10 clients), so
// that a test or a benchmark can act for every CA port of a fabric:
//
//   sa-client mcast join  --mgid M[,M...] (--ports FILE | --port-guid G[,G...])
//                         [--join-state S] [--create] [--qkey Q] [--pkey P]
//                         [--mtu C] [--rate C] [--sl S] [--tclass T] [--flow-label F]
//                         [--hop-limit H] [--scope SC] [--window W] [--retries N]
//                         [--timeout-ms T] [--record FILE]
//   sa-client mcast leave --mgid M[,M...] (--ports FILE | --port-guid G[,G...])
//                         [--join-state S] [--window W] [--retries N] [--record FILE]
//   sa-client mcast get   --mgid M [--port-guid G] [--sa-key K]
//   sa-client mcast flood --seconds S [--window W] ... (McFlood.cpp: one port's joins, flat out)
//
// A join is a Set of MCMemberRecord (mask MGID, PortGID, JoinState; with
// --create the full mask of a create, o15-0.1.8, MTU and rate "exactly",
// defaults those of an IPoIB broadcast group: Q_Key 0x0b1b, MTU 4 = 2048,
// rate 3 = 10 Gb/s, SL 0); a leave is a Delete of the JoinState bits given
// (default 0x1). MGID 0 asks the SA to assign one: the first port's answer
// names it and the other ports join that MGID. Requests go out port-major
// (every MGID of the first port, then of the second...), as hosts' IPoIB
// would send them, with W outstanding; a timed-out request is sent again up
// to N times. --record appends "join|leave MGID 0xPORTGUID 0xSTATE 0xMLID"
// for every request answered OK (STATE: the bits the request named), the
// membership tests/sm/run/mft-check.py replays.
//
// Prints `key value` lines: requests, answers (OK), errors, timeouts,
// retried, seconds, answers_per_s, p50_us/p99_us, start_unix_ns and
// end_unix_ns (first send, last answer), `group MGID mlid 0xMLID` per MGID
// answered and `error ...` lines for the first few refusals. Exit 1 when
// any request failed.
#include <sys/time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "ClientCommon.h"
#include "McMemberRecord.h"

namespace ibsm::test::sa {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::uint8_t kGet = 0x01, kSet = 0x02, kDelete = 0x15;

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> words;
  std::stringstream in(text);
  for (std::string word; std::getline(in, word, ',');)
    if (!word.empty()) words.push_back(word);
  return words;
}

std::vector<std::uint64_t> portGuids(const Args& args) {
  std::vector<std::uint64_t> guids;
  if (args.has("ports")) {
    std::ifstream in(args.get("ports"));
    if (!in) throw std::invalid_argument("mcast: cannot read --ports " + args.get("ports"));
    for (std::string word; in >> word;) guids.push_back(std::stoull(word, nullptr, 0));
  }
  for (const auto& word : split(args.get("port-guid")))
    guids.push_back(std::stoull(word, nullptr, 0));
  if (guids.empty())
    throw std::invalid_argument("mcast: --ports FILE or --port-guid G is required");
  return guids;
}

std::vector<Gid> mgids(const Args& args) {
  std::vector<Gid> out;
  for (const auto& word : split(args.get("mgid"))) {
    auto gid = parseGid(word);
    if (!gid) throw std::invalid_argument("mcast: --mgid " + word + " is not a GID");
    out.push_back(*gid);
  }
  if (out.empty()) throw std::invalid_argument("mcast: --mgid MGID is required");
  return out;
}

std::uint64_t unixNs() {
  timeval now{};
  gettimeofday(&now, nullptr);
  return static_cast<std::uint64_t>(now.tv_sec) * 1000000000ULL +
         static_cast<std::uint64_t>(now.tv_usec) * 1000ULL;
}

// The record a request carries: the group's parameters (for a create) and
// the port it is for.
McMemberRecord templateRecord(const Args& args, std::uint8_t joinState) {
  McMemberRecord r;
  r.qkey = static_cast<std::uint32_t>(args.number("qkey", 0x0b1b));
  r.pkey = static_cast<std::uint16_t>(args.number("pkey", 0xffff));
  r.mtuSelector = kSelectorExactly;
  r.mtu = static_cast<std::uint8_t>(args.number("mtu", 4));
  r.rateSelector = kSelectorExactly;
  r.rate = static_cast<std::uint8_t>(args.number("rate", 3));
  r.sl = static_cast<std::uint8_t>(args.number("sl", 0));
  r.tclass = static_cast<std::uint8_t>(args.number("tclass", 0));
  r.flowLabel = static_cast<std::uint32_t>(args.number("flow-label", 0));
  r.hopLimit = static_cast<std::uint8_t>(args.number("hop-limit", 0));
  r.scope = static_cast<std::uint8_t>(args.number("scope", 0));
  r.joinState = joinState;
  return r;
}

std::uint64_t requestMask(const Args& args, bool leave) {
  std::uint64_t mask = args.has("create") && !leave ? mcr::kCreate : mcr::kJoin;
  if (args.has("pkey")) mask |= mcr::kPkey;
  if (args.has("qkey")) mask |= mcr::kQkey;
  if (args.has("hop-limit")) mask |= mcr::kHopLimit;
  if (args.has("scope")) mask |= mcr::kScope;
  return mask;
}

struct Job {
  std::size_t group;  // index into the MGIDs
  std::uint64_t guid;
  unsigned tries = 0;
};

struct InFlight {
  Job job;
  Clock::time_point sent;
};

// The windowed sender of joins or leaves: one object per command run.
class Batch {
 public:
  Batch(SaPort& port, const Args& args, bool leave)
      : port_(port),
        leave_(leave),
        joinState_(static_cast<std::uint8_t>(args.number("join-state", 1))),
        mask_(requestMask(args, leave)),
        template_(templateRecord(args, joinState_)),
        mgids_(mgids(args)),
        window_(std::max<std::size_t>(1, args.number("window", 1))),
        retries_(static_cast<unsigned>(args.number("retries", 0))),
        timeoutMs_(static_cast<int>(args.number("timeout-ms", 1000))) {
    if (args.has("record")) {
      record_.open(args.get("record"), std::ios::app);
      if (!record_) throw std::invalid_argument("mcast: cannot append to " + args.get("record"));
    }
    for (std::uint64_t guid : portGuids(args))
      for (std::size_t g = 0; g < mgids_.size(); ++g) pending_.push_back(Job{g, guid});
    resolved_.assign(mgids_.size(), false);
    for (std::size_t g = 0; g < mgids_.size(); ++g) resolved_[g] = mgids_[g] != Gid{};
    creating_.assign(mgids_.size(), false);
    mlids_.assign(mgids_.size(), 0);
  }

  int run();

 private:
  bool sendNext();
  void send(Job job);
  void answered(const SaMad& answer);
  void expire(Clock::time_point now);
  void print(double seconds) const;

  SaPort& port_;
  bool leave_;
  std::uint8_t joinState_;
  std::uint64_t mask_;
  McMemberRecord template_;
  std::vector<Gid> mgids_;
  std::size_t window_;
  unsigned retries_;
  int timeoutMs_;
  std::ofstream record_;
  std::deque<Job> pending_;
  std::deque<Job> waiting_;  // for an SA-assigned MGID not known yet
  std::vector<bool> resolved_, creating_;
  std::vector<std::uint16_t> mlids_;
  std::unordered_map<std::uint32_t, InFlight> inFlight_;
  std::vector<double> latencyUs_;
  std::size_t requests_ = 0, errors_ = 0, timeouts_ = 0, retried_ = 0;
  std::vector<std::string> errorLines_;
  std::uint64_t startNs_ = 0, endNs_ = 0;
};

// Sends the next job that can go; false when none can now.
bool Batch::sendNext() {
  while (!pending_.empty()) {
    Job job = pending_.front();
    pending_.pop_front();
    if (!resolved_[job.group]) {
      if (creating_[job.group]) {
        waiting_.push_back(job);
        continue;
      }
      creating_[job.group] = true;  // this one creates; the others wait for its MGID
    }
    send(job);
    return true;
  }
  return false;
}

void Batch::send(Job job) {
  SaMad mad = SaMad::request(leave_ ? kDelete : kSet, kMcMemberRecord, mask_, nextTid());
  McMemberRecord r = template_;
  r.mgid = mgids_[job.group];
  r.portGid = makeGid(port_.gidPrefix(), job.guid);
  r.proxyJoin = job.guid != port_.portGuid();
  r.encode(mad.data());
  if (startNs_ == 0) startNs_ = unixNs();
  inFlight_[static_cast<std::uint32_t>(mad.tid())] = InFlight{job, Clock::now()};
  port_.send(mad, timeoutMs_);
  ++requests_;
}

void Batch::answered(const SaMad& answer) {
  auto it = inFlight_.find(static_cast<std::uint32_t>(answer.tid()));
  if (it == inFlight_.end()) return;  // a late answer to a request sent again
  const InFlight flight = it->second;
  inFlight_.erase(it);
  endNs_ = unixNs();
  const Job& job = flight.job;
  auto a =
      McMemberRecord::decode(Bytes{const_cast<std::uint8_t*>(answer.bytes.data()) + kSaHeader});
  if (!resolved_[job.group]) {  // the create of an SA-assigned MGID came back
    if (answer.status() == 0) mgids_[job.group] = a.mgid;
    resolved_[job.group] = answer.status() == 0;
    creating_[job.group] = false;
    for (const Job& w : waiting_) pending_.push_front(w);
    waiting_.clear();
  }
  if (answer.status() != 0) {
    ++errors_;
    if (errorLines_.size() < 10) {
      char line[160];
      std::snprintf(line, sizeof line, "error %s %s 0x%016llx status 0x%04x %s",
                    leave_ ? "leave" : "join", formatGid(mgids_[job.group]).c_str(),
                    static_cast<unsigned long long>(job.guid), answer.status(),
                    statusName(answer.status()).c_str());
      errorLines_.push_back(line);
    }
    return;
  }
  latencyUs_.push_back(
      std::chrono::duration<double, std::micro>(Clock::now() - flight.sent).count());
  if (mlids_[job.group] == 0) mlids_[job.group] = a.mlid;
  if (record_)
    record_ << (leave_ ? "leave " : "join ") << formatGid(mgids_[job.group]) << " 0x" << std::hex
            << job.guid << " 0x" << unsigned{joinState_} << " 0x" << a.mlid << std::dec << '\n';
}

// Requests unanswered after the timeout: sent again while tries are left.
void Batch::expire(Clock::time_point now) {
  std::vector<Job> again;
  std::erase_if(inFlight_, [&](const auto& kv) {
    if (now - kv.second.sent <= std::chrono::milliseconds(timeoutMs_)) return false;
    Job job = kv.second.job;
    if (++job.tries <= retries_) {
      again.push_back(job);
      ++retried_;
    } else {
      ++timeouts_;
      if (!resolved_[job.group]) {  // its create is lost: let another port try
        creating_[job.group] = false;
        for (const Job& w : waiting_) pending_.push_front(w);
        waiting_.clear();
      }
    }
    return true;
  });
  for (const Job& job : again) {
    if (!resolved_[job.group]) creating_[job.group] = false;
    pending_.push_front(job);
  }
}

int Batch::run() {
  const auto start = Clock::now();
  while (!pending_.empty() || !waiting_.empty() || !inFlight_.empty()) {
    while (inFlight_.size() < window_ && sendNext()) {
    }
    if (inFlight_.empty() && pending_.empty()) break;  // waiting on a create that failed
    if (auto got = port_.receive(10);
        got && (got->method() & 0x80) && got->attribute() == kMcMemberRecord)
      answered(*got);
    expire(Clock::now());
  }
  timeouts_ += waiting_.size();
  print(std::chrono::duration<double>(Clock::now() - start).count());
  return errors_ == 0 && timeouts_ == 0 ? 0 : 1;
}

void Batch::print(double seconds) const {
  std::vector<double> sorted = latencyUs_;
  std::sort(sorted.begin(), sorted.end());
  auto percentile = [&](double p) {
    return sorted.empty()
               ? 0.0
               : sorted[std::min(sorted.size() - 1, static_cast<std::size_t>(p * sorted.size()))];
  };
  const double busy = endNs_ > startNs_ ? (endNs_ - startNs_) / 1e9 : seconds;
  std::printf("requests %zu\nanswers %zu\nerrors %zu\ntimeouts %zu\nretried %zu\n", requests_,
              latencyUs_.size(), errors_, timeouts_, retried_);
  std::printf("seconds %.3f\nanswers_per_s %.0f\np50_us %.0f\np99_us %.0f\n", busy,
              busy > 0 ? latencyUs_.size() / busy : 0.0, percentile(0.50), percentile(0.99));
  std::printf("start_unix_ns %llu\nend_unix_ns %llu\ncpu_s %.3f\n",
              static_cast<unsigned long long>(startNs_), static_cast<unsigned long long>(endNs_),
              cpuSeconds());
  for (std::size_t g = 0; g < mgids_.size(); ++g)
    if (mlids_[g] != 0)
      std::printf("group %s mlid 0x%04x\n", formatGid(mgids_[g]).c_str(), mlids_[g]);
  for (const auto& line : errorLines_) std::printf("%s\n", line.c_str());
}

// One Get: the record the SA holds for MGID (and the port, when given).
int get(SaPort& port, const Args& args) {
  const std::vector<Gid> groups = mgids(args);
  std::uint64_t mask = mcr::kMgid;
  McMemberRecord r;
  r.mgid = groups.front();
  if (args.has("port-guid")) {
    mask |= mcr::kPortGid;
    r.portGid = makeGid(port.gidPrefix(), args.number("port-guid", 0));
  }
  SaMad mad = SaMad::request(kGet, kMcMemberRecord, mask, nextTid());
  // --sa-key: the SA header's SM_Key (offset 36), which makes the requester
  // trusted: an SA then shows every member's PortGID and JoinState.
  if (args.has("sa-key")) mad.header().put64(36, args.number("sa-key", 0));
  r.encode(mad.data());
  auto answer = ask(port, mad, static_cast<int>(args.number("timeout-ms", 1000)));
  if (!answer) {
    std::printf("mcast get timeout\nstatus none\n");
    return 1;
  }
  std::printf("mcast get answered\nstatus 0x%04x %s\n", answer->status(),
              statusName(answer->status()).c_str());
  if (answer->status() != 0) return 1;
  const auto a = McMemberRecord::decode(answer->data());
  std::printf("mgid %s\nport_gid %s\nmlid 0x%04x\nqkey 0x%08x\npkey 0x%04x\n",
              formatGid(a.mgid).c_str(), formatGid(a.portGid).c_str(), a.mlid, a.qkey, a.pkey);
  std::printf("mtu %u %u\nrate %u %u\nsl %u\ntclass %u\nflow_label %u\nhop_limit %u\n",
              a.mtuSelector, a.mtu, a.rateSelector, a.rate, a.sl, a.tclass, a.flowLabel,
              a.hopLimit);
  std::printf("packet_life_time %u %u\nscope %u\njoin_state 0x%x\nproxy_join %d\n",
              a.packetLifeTimeSelector, a.packetLifeTime, a.scope, a.joinState, a.proxyJoin);
  return 0;
}

}  // namespace

int mcast(SaPort& port, const std::string& verb, const Args& args) {
  if (verb == "join" || verb == "leave") {
    Batch batch(port, args, verb == "leave");
    return batch.run();
  }
  if (verb == "get") return get(port, args);
  if (verb == "flood") return mcastFlood(port, args);
  throw std::invalid_argument("mcast join|leave|get|flood");
}

}  // namespace ibsm::test::sa
