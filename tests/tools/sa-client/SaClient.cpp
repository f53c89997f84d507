// sa-client: what a host asks the subnet administrator, to judge an SA
// (OpenSM's today, ibsm's when issue 12 lands) from outside, on ibsim or a
// real port. Results are printed as `key value` lines for scripts.
//
//   sa-client service register --id ID --name NAME [--lease S] [--pkey P]
//   sa-client service get --id ID
//   sa-client service delete --id ID --name NAME [--service-guid G]
//   sa-client inform subscribe --trap 64|65 --wait SECONDS [--issm]
//   sa-client pathload --targets FILE --window W --count N [--seed S] [--timeout-ms T]
//             [--seconds S] [--interval-ms I] [--stop-file F] [--latencies FILE]
//   sa-client pathsls --lids FILE [--window W] [--timeout-ms T] [--retries R] (PathSls.cpp)
//   sa-client echo --idle-s S
//   sa-client mcast join|leave|get ... (McCommands.cpp: multicast joins by proxy)
//   sa-client mcast flood --seconds S ... (McFlood.cpp: one port's joins as fast as it can)
//
// pathload keeps W PathRecord Gets outstanding until N are done, or for S
// seconds (--seconds: N ignored): W large is a flood (issue 29's abusive
// host); --interval-ms I sends one Get every I ms at most (a modest host
// measuring its own latencies beside the flood); --stop-file F ends the
// sending early once F exists (ClientCommon.h); --latencies FILE writes
// every answer's latency in microseconds, one a line, so that a test can
// pool several runs' answers before it takes a percentile.
//
// echo is a stand-in SA for the load benchmark's ceiling (scripts/bench-sa.sh):
// run with --issm on the SM's node after the SM stopped, it answers every SA
// Get with its own bytes as a GetResp (status 0) at once, until no request came
// for S seconds; what pathload then measures is the simulator and the client.
//
// Exit status: 0 done; 1 the SA answered with an error status, or nothing
// (timeout), or no Report came; 2 bad arguments.
#include <infiniband/mad.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "ClientCommon.h"
#include "SaPort.h"

namespace {

using namespace ibsm::test::sa;
using Clock = std::chrono::steady_clock;

constexpr std::uint8_t kGet = 0x01, kSet = 0x02, kReport = 0x06, kDelete = 0x15;
constexpr std::uint8_t kGetResp = 0x81, kReportResp = 0x86;
constexpr std::uint16_t kNotice = 0x0002, kInformInfo = 0x0003, kServiceRecord = 0x0031,
                        kPathRecord = 0x0035;

}  // namespace

namespace ibsm::test::sa {

std::uint32_t tidCounter = 0x5a000000;
std::uint64_t nextTid() {
  return ++tidCounter;
}
bool sameTid(std::uint64_t a, std::uint64_t b) {
  return (a & 0xffffffff) == (b & 0xffffffff);
}

std::optional<SaMad> ask(SaPort& port, SaMad& mad, int timeoutMs) {
  const std::uint64_t tid = mad.tid();
  port.send(mad, timeoutMs);
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeoutMs);
  while (Clock::now() < deadline) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    auto answer = port.receive(static_cast<int>(std::max<long>(1, left.count())));
    if (answer && sameTid(answer->tid(), tid) && (answer->method() & 0x80)) return answer;
  }
  return std::nullopt;
}

double cpuSeconds() {
  rusage use{};
  getrusage(RUSAGE_SELF, &use);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return seconds(use.ru_utime) + seconds(use.ru_stime);
}

}  // namespace ibsm::test::sa

namespace {

using namespace ibsm::test::sa;

int report(const std::optional<SaMad>& answer, const char* what) {
  if (!answer) {
    std::printf("%s timeout\nstatus none\n", what);
    return 1;
  }
  std::printf("%s answered\nstatus 0x%04x %s\n", what, answer->status(),
              statusName(answer->status()).c_str());
  return answer->status() == 0 ? 0 : 1;
}

void printGid(const char* key, Bytes b, std::size_t at) {
  std::printf("%s 0x%016llx:0x%016llx\n", key, static_cast<unsigned long long>(b.get64(at)),
              static_cast<unsigned long long>(b.get64(at + 8)));
}

// ServiceRecord (IBA 15.2.5.14): ID 0, GID 8, PKey 24, Lease 28, Key 32, Name 48.
constexpr std::uint64_t kSrId = 1 << 0, kSrGid = 1 << 1, kSrPkey = 1 << 2, kSrLease = 1 << 4,
                        kSrName = 1 << 6;

int service(SaPort& port, const std::string& verb, const Args& args) {
  if (!args.has("id")) throw std::invalid_argument("service: --id ID is required");
  const std::uint64_t id = args.number("id", 0);
  const std::string name = args.get("name", "ibsm-sa-client");
  const int timeoutMs = static_cast<int>(args.number("timeout-ms", 1000));
  std::uint8_t method = kGet;
  std::uint64_t mask = kSrId | kSrGid;
  if (verb == "register")
    method = kSet, mask |= kSrPkey | kSrLease | kSrName;
  else if (verb == "delete")
    method = kDelete, mask |= kSrPkey | kSrName;
  else if (verb != "get")
    throw std::invalid_argument("service register|get|delete");
  SaMad mad = SaMad::request(method, kServiceRecord, mask, nextTid());
  Bytes r = mad.data();
  r.put64(0, id);
  r.put64(8, port.gidPrefix());
  r.put64(16, args.number("service-guid", port.portGuid()));  // another's record: --service-guid
  r.put16(24, static_cast<std::uint16_t>(args.number("pkey", 0xffff)));
  r.put32(28, static_cast<std::uint32_t>(args.number("lease", 60)));
  std::memcpy(&mad.bytes[kSaHeader + 48], name.data(), std::min<std::size_t>(name.size(), 63));
  auto answer = ask(port, mad, timeoutMs);
  const int rc = report(answer, ("service " + verb).c_str());
  if (rc == 0) {
    Bytes a = answer->data();
    std::printf("service_id 0x%016llx\n", static_cast<unsigned long long>(a.get64(0)));
    printGid("service_gid", a, 8);
    std::printf("service_pkey 0x%04x\nservice_lease %u\n", a.get16(24), a.get32(28));
    std::printf("service_name %.64s\n",
                reinterpret_cast<const char*>(&answer->bytes[kSaHeader + 48]));
  }
  return rc;
}

// InformInfo (IBA 13.4.8.3): GID 0, LIDRange 16/18, IsGeneric 22, Subscribe 23,
// Type 24, TrapNumber 26, QPN 28 (24 bits) | RespTimeValue (5 bits), ProducerType 33.
int inform(SaPort& port, const std::string& verb, const Args& args) {
  if (verb != "subscribe") throw std::invalid_argument("inform subscribe");
  const auto trap = static_cast<std::uint16_t>(args.number("trap", 64));
  const int waitS = static_cast<int>(args.number("wait", 30));
  SaMad mad = SaMad::request(kSet, kInformInfo, 0, nextTid());
  Bytes i = mad.data();
  i.put16(16, 0xffff);  // every LID
  i.put8(22, 1);        // generic
  i.put8(23, 1);        // subscribe
  i.put16(24, 0xffff);  // any type
  i.put16(26, trap);
  i.put32(28, 1u << 8 | 18);  // QP1, RespTimeValue 18
  i.put32(32, 0xffffff);      // any producer
  const int rc =
      report(ask(port, mad, static_cast<int>(args.number("timeout-ms", 1000))), "inform subscribe");
  std::fflush(stdout);
  if (rc != 0) return rc;
  const auto deadline = Clock::now() + std::chrono::seconds(waitS);
  int reports = 0;
  while (Clock::now() < deadline) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    auto got = port.receive(static_cast<int>(std::max<long>(1, left.count())));
    if (!got || got->method() != kReport || got->attribute() != kNotice) continue;
    // Answer first: an SA resends a Report until its ReportResp comes.
    SaMad resp = *got;
    resp.bytes[3] = kReportResp;
    port.send(resp, 0, got->sourceLid, got->sourceQp);
    std::uint8_t* notice = got->bytes.data() + kSaHeader;
    const unsigned number = mad_get_field(notice, 0, IB_NOTICE_TRAP_NUMBER_F);
    std::printf("report trap %u issuer_lid %u\n", number,
                mad_get_field(notice, 0, IB_NOTICE_ISSUER_LID_F));
    if (number == 64 || number == 65) printGid("report_gid", Bytes{notice}, 16);  // DataDetails + 6
    std::fflush(stdout);
    ++reports;
    if (number == trap) return 0;
  }
  std::printf("report none of trap %u in %d s (%d other)\n", trap, waitS, reports);
  return 1;
}

// PathRecord (IBA 15.2.5.16): DGID 8, SGID 24, NumbPath 49 (low 7 bits).
constexpr std::uint64_t kPrDgid = 1 << 2, kPrSgid = 1 << 3, kPrNumbPath = 1 << 12;

int pathload(SaPort& port, const Args& args) {
  std::ifstream in(args.get("targets"));
  std::vector<std::uint64_t> guids;
  for (std::string word; in >> word;) guids.push_back(std::stoull(word, nullptr, 0));
  if (guids.empty())
    throw std::invalid_argument("pathload: --targets FILE of port GUIDs is required");
  const std::size_t window = args.number("window", 16);
  const double runSeconds = static_cast<double>(args.number("seconds", 0));
  // With --seconds the count is whatever that time allows.
  const std::size_t count =
      runSeconds > 0 ? std::numeric_limits<std::size_t>::max() : args.number("count", 10000);
  const auto interval = std::chrono::milliseconds(args.number("interval-ms", 0));
  const int timeoutMs = static_cast<int>(args.number("timeout-ms", 1000));
  std::mt19937_64 random(args.number("seed", 1));
  std::uniform_int_distribution<std::size_t> pick(0, guids.size() - 1);
  std::unordered_map<std::uint32_t, Clock::time_point> inFlight;
  std::vector<double> latencyUs;
  latencyUs.reserve(std::min<std::size_t>(count, 1 << 20));
  std::size_t sent = 0, errors = 0, timeouts = 0;
  auto sendOne = [&] {
    SaMad mad = SaMad::request(kGet, kPathRecord, kPrDgid | kPrSgid | kPrNumbPath, nextTid());
    Bytes r = mad.data();
    r.put64(8, port.gidPrefix());
    r.put64(16, guids[pick(random)]);
    r.put64(24, port.gidPrefix());
    r.put64(32, port.portGuid());
    r.put8(49, 1);
    inFlight[static_cast<std::uint32_t>(mad.tid())] = Clock::now();
    port.send(mad, timeoutMs);
    ++sent;
  };
  const auto start = Clock::now();
  const auto stopAt = start + std::chrono::duration_cast<Clock::duration>(
                                  std::chrono::duration<double>(runSeconds));
  auto nextSend = start;
  StopFile stopFile(args);
  while (latencyUs.size() + errors + timeouts < count) {
    const bool sending = (runSeconds <= 0 || Clock::now() < stopAt) && !stopFile.reached();
    if (!sending && inFlight.empty()) break;
    while (sending && inFlight.size() < window && sent < count && Clock::now() >= nextSend) {
      sendOne();
      if (interval.count() > 0) nextSend = Clock::now() + interval;
    }
    auto got = port.receive(interval.count() > 0 ? 1 : 10);
    const auto now = Clock::now();
    if (got && (got->method() & 0x80)) {
      auto it = inFlight.find(static_cast<std::uint32_t>(got->tid()));
      if (it != inFlight.end()) {
        if (got->status() == 0)
          latencyUs.push_back(std::chrono::duration<double, std::micro>(now - it->second).count());
        else
          ++errors;
        inFlight.erase(it);
      }
    }
    std::erase_if(inFlight, [&](const auto& kv) {
      const bool late = now - kv.second > std::chrono::milliseconds(timeoutMs);
      timeouts += late;
      return late;
    });
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::sort(latencyUs.begin(), latencyUs.end());
  auto percentile = [&](double p) {
    return latencyUs.empty() ? 0.0
                             : latencyUs[std::min(latencyUs.size() - 1,
                                                  static_cast<std::size_t>(p * latencyUs.size()))];
  };
  std::printf("targets %zu\nwindow %zu\nsent %zu\nanswers %zu\nerrors %zu\ntimeouts %zu\n",
              guids.size(), window, sent, latencyUs.size(), errors, timeouts);
  std::printf("seconds %.3f\nanswers_per_s %.0f\np50_us %.0f\np99_us %.0f\n", seconds,
              latencyUs.size() / seconds, percentile(0.50), percentile(0.99));
  std::printf("cpu_s %.3f\n", cpuSeconds());
  if (args.has("latencies")) {
    std::ofstream out(args.get("latencies"));
    for (double us : latencyUs) out << static_cast<long long>(us) << '\n';
    if (!out) throw std::runtime_error("pathload: cannot write " + args.get("latencies"));
  }
  return latencyUs.empty() ? 1 : 0;
}

// The benchmark's stand-in SA: every Get answered with its own bytes.
int echo(SaPort& port, const Args& args) {
  const int idleMs = static_cast<int>(1000 * args.number("idle-s", 5));
  std::size_t echoed = 0;
  while (auto got = port.receive(idleMs)) {
    if (got->method() != kGet) continue;
    got->bytes[3] = kGetResp;
    port.send(*got, 0, got->sourceLid, got->sourceQp);
    ++echoed;
  }
  std::printf("echoed %zu\ncpu_s %.3f\n", echoed, cpuSeconds());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> words;
  Args args;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) == 0) {
      const std::string key = a.substr(2);
      if (key == "issm" || key == "create")
        args.values.emplace(key, "1");
      else if (i + 1 < argc)
        args.values[key] = argv[++i];
      else
        return std::fprintf(stderr, "sa-client: %s needs a value\n", a.c_str()), 2;
    } else {
      words.push_back(a);
    }
  }
  if (words.empty()) {
    std::fprintf(
        stderr,
        "usage: sa-client service register|get|delete --id ID [--name N] [--lease S]\n"
        "       sa-client inform subscribe --trap 64|65 --wait SECONDS [--issm]\n"
        "       sa-client pathload --targets FILE --window W --count N [--seed S]\n"
        "                 [--seconds S] [--interval-ms I] [--timeout-ms T] [--stop-file F]\n"
        "                 [--latencies FILE]\n"
        "       sa-client pathsls --lids FILE [--window W] [--timeout-ms T] [--retries R]\n"
        "       sa-client echo --issm --idle-s S\n"
        "       sa-client mcast join|leave --mgid M[,M...] --ports FILE|--port-guid G\n"
        "                 [--join-state S] [--create] [--window W] [--record FILE]\n"
        "       sa-client mcast get --mgid M [--port-guid G]\n"
        "       sa-client mcast flood --seconds S [--window W] [--timeout-ms T]\n"
        "                 [--mgid-base M] [--drain-ms D] [--stop-file F]\n");
    return 2;
  }
  try {
    SaPort port(SaPort::Options{args.get("ca"), static_cast<int>(args.number("port", 0)),
                                args.has("issm"), words[0] == "echo"});
    std::printf("port lid %u sm_lid %u\n", port.lid(), port.smLid());
    if (words[0] == "service" && words.size() == 2) return service(port, words[1], args);
    if (words[0] == "inform" && words.size() == 2) return inform(port, words[1], args);
    if (words[0] == "mcast" && words.size() == 2) return mcast(port, words[1], args);
    if (words[0] == "pathload") return pathload(port, args);
    if (words[0] == "pathsls") return pathSls(port, args);
    if (words[0] == "echo") return echo(port, args);
    std::fprintf(stderr, "sa-client: unknown command %s\n", words[0].c_str());
    return 2;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "sa-client: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sa-client: %s\n", e.what());
    return 1;
  }
}
