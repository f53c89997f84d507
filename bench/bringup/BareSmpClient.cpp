// The floor any SM could reach on this transport: a bare libibumad client
// that sends N directed-route SubnGet(NodeInfo) SMPs with a window of W
// outstanding, reads the answers, and prints how much of its own CPU each
// SMP cost. No discovery, no state, no allocation per SMP, no logging: what
// is left is libibumad's (and, under ibsim, umad2sim's) cost of a send and
// a receive. scripts/bench-bringup.sh runs it on the same fabric as the SMs
// (LD_PRELOAD umad2sim) and prints its CPU us per SMP beside theirs.
//
//   bare_smp_client [--count N] [--window W] [--path P1,P2,...] [--timeout-ms T]
//
//   --count N       SMPs to have answered or timed out (default 200000)
//   --window W      SMPs outstanding at most (default 64)
//   --path P,...    the directed route, as out-ports from the client's node
//                   (default 1: the node behind the client's port 1, one hop)
//   --timeout-ms T  an SMP unanswered this long counts as lost, never resent
//                   (default 1000)
//
// Prints "key value" lines: smps, answered, timeouts, wall_s, user_s, sys_s,
// cpu_s and cpu_us_per_smp (user + system over the SMPs answered). CPU is
// the process's (getrusage), so umad2sim's receiver thread is counted as it
// is for an SM. Exits 1 when nothing was answered, 2 on bad arguments.
//
// Plain C++ on libibumad alone, so the script can build it with one g++
// line as it does MadCount.cpp; CMake builds it too under IBSM_BENCH.
#include <infiniband/umad.h>
#include <poll.h>
#include <sys/resource.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kMadSize = 256;
constexpr int kDirectedClass = 0x81;
constexpr int kMaxHops = 63;

struct Options {
  long count{200000};
  int window{64};
  std::vector<std::uint8_t> path{1};
  int timeoutMs{1000};
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "bare_smp_client: %s\nusage: bare_smp_client [--count N] [--window W] "
               "[--path P1,P2,...] [--timeout-ms T]\n",
               why);
  std::exit(2);
}

long positive(const char* text, const char* what) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < 1) {
    std::fprintf(stderr, "bare_smp_client: %s %s: expected a number >= 1\n", what, text);
    std::exit(2);
  }
  return v;
}

std::vector<std::uint8_t> parsePath(std::string_view text) {
  std::vector<std::uint8_t> path;
  while (!text.empty()) {
    const auto comma = text.find(',');
    const std::string part(text.substr(0, comma));
    const long port = positive(part.c_str(), "--path port");
    if (port > 254) usage("--path: a port is 1..254");
    path.push_back(static_cast<std::uint8_t>(port));
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
  }
  if (path.empty() || path.size() > kMaxHops) usage("--path: 1..63 ports");
  return path;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (i + 1 >= argc) usage("every option takes a value");
    const char* v = argv[++i];
    if (a == "--count")
      o.count = positive(v, "--count");
    else if (a == "--window")
      o.window = static_cast<int>(positive(v, "--window"));
    else if (a == "--path")
      o.path = parsePath(v);
    else if (a == "--timeout-ms")
      o.timeoutMs = static_cast<int>(positive(v, "--timeout-ms"));
    else
      usage("unknown option");
  }
  return o;
}

// A directed-route SubnGet(NodeInfo) along `path` (IBA 14.2.1.2): the TID
// is filled in per send.
std::vector<std::uint8_t> nodeInfoGet(const std::vector<std::uint8_t>& path) {
  std::vector<std::uint8_t> buf(umad_size() + kMadSize, 0);
  auto* mad = static_cast<std::uint8_t*>(umad_get_mad(buf.data()));
  mad[0] = 1;  // base version
  mad[1] = kDirectedClass;
  mad[2] = 1;                                            // class version
  mad[3] = 0x01;                                         // Get
  mad[7] = static_cast<std::uint8_t>(path.size());       // hop count; hop pointer 0
  mad[17] = 0x11;                                        // NodeInfo
  mad[32] = mad[33] = mad[34] = mad[35] = 0xff;          // DrSLID, DrDLID: permissive
  std::memcpy(mad + 128 + 1, path.data(), path.size());  // initial path[1..]
  umad_set_addr(buf.data(), 0xffff, 0, 0, 0);
  return buf;
}

void setTid(std::uint8_t* mad, std::uint64_t tid) {
  for (int i = 0; i < 8; ++i) mad[8 + i] = static_cast<std::uint8_t>(tid >> (8 * (7 - i)));
}

std::uint32_t tidOf(const std::uint8_t* mad) {  // the lower 32 bits: ours
  return (std::uint32_t{mad[12]} << 24) | (std::uint32_t{mad[13]} << 16) |
         (std::uint32_t{mad[14]} << 8) | mad[15];
}

double seconds(const timeval& t) {
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
}

struct Tally {
  long sent{0};
  long answered{0};
  long timeouts{0};
};

// Sends, reads and expires until every SMP is answered or lost.
int run(const Options& o, int portId, int agent, Tally& t) {
  std::vector<std::uint8_t> out = nodeInfoGet(o.path);
  std::vector<std::uint8_t> in(umad_size() + kMadSize);
  auto* outMad = static_cast<std::uint8_t*>(umad_get_mad(out.data()));
  // Per TID (its index): when sent, or none once answered or lost.
  std::vector<Clock::time_point> sentAt(static_cast<std::size_t>(o.count));
  std::vector<bool> open(static_cast<std::size_t>(o.count), false);
  std::deque<std::uint32_t> inFlight;  // in send order, for the timeouts
  long outstanding = 0;
  const auto timeout = std::chrono::milliseconds(o.timeoutMs);
  while (t.answered + t.timeouts < o.count) {
    while (outstanding < o.window && t.sent < o.count) {
      const auto tid = static_cast<std::uint32_t>(t.sent);
      setTid(outMad, tid);
      if (umad_send(portId, agent, out.data(), kMadSize, o.timeoutMs, 0) < 0) {
        std::perror("umad_send");
        return 1;
      }
      sentAt[tid] = Clock::now();
      open[tid] = true;
      inFlight.push_back(tid);
      ++outstanding;
      ++t.sent;
    }
    int length = kMadSize;
    const int rc = umad_recv(portId, in.data(), &length, 0);
    if (rc >= 0) {
      const auto* mad = static_cast<const std::uint8_t*>(umad_get_mad(in.data()));
      const std::uint32_t tid = tidOf(mad);
      if (umad_status(in.data()) == 0 && (mad[3] & 0x80) != 0 && tid < open.size() && open[tid]) {
        open[tid] = false;
        --outstanding;
        ++t.answered;
      }
      continue;  // drained until empty before any poll
    }
    if (rc != -EWOULDBLOCK && rc != -EAGAIN && rc != -EINTR && rc != -ETIMEDOUT) {
      std::fprintf(stderr, "bare_smp_client: umad_recv: %s\n", std::strerror(-rc));
      return 1;
    }
    while (!inFlight.empty() && !open[inFlight.front()]) inFlight.pop_front();
    const auto now = Clock::now();
    while (!inFlight.empty() && now - sentAt[inFlight.front()] >= timeout) {
      open[inFlight.front()] = false;
      inFlight.pop_front();
      --outstanding;
      ++t.timeouts;
    }
    if (outstanding == 0) continue;
    pollfd pfd{.fd = umad_get_fd(portId), .events = POLLIN, .revents = 0};
    if (poll(&pfd, 1, o.timeoutMs) < 0 && errno != EINTR) {
      std::perror("poll");
      return 1;
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  if (umad_init() < 0) {
    std::fprintf(stderr, "bare_smp_client: cannot initialise libibumad\n");
    return 1;
  }
  const int portId = umad_open_port(nullptr, 0);
  if (portId < 0) {
    std::fprintf(stderr, "bare_smp_client: cannot open an IB port: %s\n", std::strerror(-portId));
    return 1;
  }
  const int agent = umad_register(portId, kDirectedClass, 1, 0, nullptr);
  if (agent < 0) {
    std::fprintf(stderr, "bare_smp_client: cannot register an SMP agent: %s\n",
                 std::strerror(-agent));
    return 1;
  }
  rusage r0{};
  getrusage(RUSAGE_SELF, &r0);
  const auto t0 = Clock::now();
  Tally t;
  const int rc = run(o, portId, agent, t);
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  rusage r1{};
  getrusage(RUSAGE_SELF, &r1);
  const double user = seconds(r1.ru_utime) - seconds(r0.ru_utime);
  const double sys = seconds(r1.ru_stime) - seconds(r0.ru_stime);
  std::printf("smps %ld\nanswered %ld\ntimeouts %ld\nwall_s %.3f\nuser_s %.3f\nsys_s %.3f\n",
              t.sent, t.answered, t.timeouts, wall, user, sys);
  std::printf("cpu_s %.3f\ncpu_us_per_smp %.2f\n", user + sys,
              t.answered > 0 ? (user + sys) * 1e6 / static_cast<double>(t.answered) : 0.0);
  umad_unregister(portId, agent);
  umad_close_port(portId);
  if (rc != 0) return rc;
  return t.answered > 0 ? 0 : 1;
}
