// Reads switches' SL2VL tables back from the fabric for the routing judge
// (bench/judge/read-back.sh): what `smpquery sl2vl LID OUT` prints, for
// every pair of ports at once, with W LID-routed SubnGet(SLtoVLMappingTable)
// SMPs outstanding in one process instead of one process a port (smpquery
// costs ~0.1 s a call under ibsim: minutes on a radix-12 tree).
//
//   sl2vl_read [--window W] [--timeout-ms T] [--retries R] [--lft-block B] < PORTS
//
// PORTS: one switch a line, "LID 0xGUID P1 P2 ..." (its cabled ports). For
// every ordered pair (in, out) of those ports with in != out it prints
//   switch 0xGUID in_port IN out_port OUT : v0 v1 ... v15
// (the form of ibsm's sl2vl.dump, which bench/judge/judge-routes.py reads).
// With --lft-block B it reads instead LinearForwardingTable block B of every
// switch (the entries dump_fts leaves out at LinearFDBTop), printing
//   lft 0xGUID lid LID block B : p0 p1 ... p63
// An SMP unanswered after R resends is named on stderr; exit 1 then.
//
// Plain C++ on libibumad alone, like bench/bringup/BareSmpClient.cpp.
#include <infiniband/umad.h>
#include <poll.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kMadSize = 256;
constexpr int kLidRoutedClass = 0x01;
constexpr int kSl2VlAttribute = 0x0017;
constexpr int kLftAttribute = 0x0019;

struct Query {
  std::uint16_t lid;
  std::string guid;
  int in, out;  // SL2VL: the port pair; LFT block: in = -1, out = the block
};

struct Pending {
  std::size_t query;
  int attempts;
  Clock::time_point sentAt;
};

std::vector<Query> readPorts(int lftBlock) {
  std::vector<Query> out;
  for (std::string line; std::getline(std::cin, line);) {
    std::istringstream words(line);
    unsigned lid = 0;
    std::string guid;
    if (!(words >> lid >> guid)) continue;
    if (lftBlock >= 0) {
      out.push_back(Query{static_cast<std::uint16_t>(lid), guid, -1, lftBlock});
      continue;
    }
    std::vector<int> ports;
    for (int p; words >> p;) ports.push_back(p);
    for (int in : ports)
      for (int o : ports)
        if (in != o) out.push_back(Query{static_cast<std::uint16_t>(lid), guid, in, o});
  }
  return out;
}

void setTid(std::uint8_t* mad, std::uint64_t tid) {
  for (int i = 0; i < 8; ++i) mad[8 + i] = static_cast<std::uint8_t>(tid >> (8 * (7 - i)));
}

std::uint32_t tidOf(const std::uint8_t* mad) {
  return (std::uint32_t{mad[12]} << 24) | (std::uint32_t{mad[13]} << 16) |
         (std::uint32_t{mad[14]} << 8) | mad[15];
}

// SubnGet(SLtoVLMappingTable) to `q.lid` (IBA 14.2.5.8: modifier bits 15-8
// the input port, 7-0 the output port), or of one LinearForwardingTable
// block (attribute 0x19, modifier the block).
void prepare(std::vector<std::uint8_t>& buf, const Query& q, std::uint32_t tid) {
  std::fill(buf.begin(), buf.end(), 0);
  auto* mad = static_cast<std::uint8_t*>(umad_get_mad(buf.data()));
  mad[0] = 1;
  mad[1] = kLidRoutedClass;
  mad[2] = 1;
  mad[3] = 0x01;  // Get
  const int attribute = q.in < 0 ? kLftAttribute : kSl2VlAttribute;
  mad[16] = static_cast<std::uint8_t>(attribute >> 8);
  mad[17] = static_cast<std::uint8_t>(attribute & 0xff);
  mad[22] = static_cast<std::uint8_t>(q.in < 0 ? q.out >> 8 : q.in);
  mad[23] = static_cast<std::uint8_t>(q.out & 0xff);
  setTid(mad, tid);
  umad_set_addr(buf.data(), q.lid, 0, 0, 0);
}

int run(int portId, int agent, const std::vector<Query>& queries, int window, int timeoutMs,
        int retries) {
  std::vector<std::uint8_t> out(umad_size() + kMadSize), in(umad_size() + kMadSize);
  std::unordered_map<std::uint32_t, Pending> inFlight;
  std::uint32_t nextTid = 1;
  std::size_t next = 0;
  int lost = 0;
  auto send = [&](std::size_t q, int attempts) {
    const std::uint32_t tid = nextTid++;
    prepare(out, queries[q], tid);
    if (umad_send(portId, agent, out.data(), kMadSize, timeoutMs, 0) < 0) return false;
    inFlight[tid] = Pending{q, attempts, Clock::now()};
    return true;
  };
  while (next < queries.size() || !inFlight.empty()) {
    while (next < queries.size() && static_cast<int>(inFlight.size()) < window)
      if (!send(next++, 1)) return std::perror("umad_send"), 1;
    int length = kMadSize;
    if (umad_recv(portId, in.data(), &length, 0) >= 0) {
      const auto* mad = static_cast<const std::uint8_t*>(umad_get_mad(in.data()));
      auto it = inFlight.find(tidOf(mad));
      if (umad_status(in.data()) == 0 && (mad[3] & 0x80) != 0 && it != inFlight.end()) {
        const Query& q = queries[it->second.query];
        if (q.in < 0) {
          std::printf("lft %s lid %u block %d :", q.guid.c_str(), q.lid, q.out);
          for (int i = 0; i < 64; ++i) std::printf(" %d", mad[64 + i]);
        } else {
          std::printf("switch %s in_port %d out_port %d :", q.guid.c_str(), q.in, q.out);
          for (int sl = 0; sl < 16; ++sl)
            std::printf(" %d", (mad[64 + sl / 2] >> (sl % 2 == 0 ? 4 : 0)) & 0x0f);
        }
        std::printf("\n");
        inFlight.erase(it);
      }
      continue;
    }
    const auto now = Clock::now();
    std::vector<Pending> late;
    for (auto it = inFlight.begin(); it != inFlight.end();) {
      if (now - it->second.sentAt > std::chrono::milliseconds(timeoutMs)) {
        late.push_back(it->second);
        it = inFlight.erase(it);
      } else {
        ++it;
      }
    }
    for (const Pending& p : late) {
      if (p.attempts <= retries) {
        if (!send(p.query, p.attempts + 1)) return std::perror("umad_send"), 1;
      } else {
        const Query& q = queries[p.query];
        std::fprintf(stderr, "sl2vl_read: LID %u in %d out %d unanswered\n", q.lid, q.in, q.out);
        ++lost;
      }
    }
    pollfd pfd{.fd = umad_get_fd(portId), .events = POLLIN, .revents = 0};
    if (!inFlight.empty() && poll(&pfd, 1, 10) < 0 && errno != EINTR) return std::perror("poll"), 1;
  }
  return lost == 0 ? 0 : 1;
}

int number(const char* text, const char* what) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < 0) {
    std::fprintf(stderr, "sl2vl_read: %s %s: expected a number >= 0\n", what, text);
    std::exit(2);
  }
  return static_cast<int>(v);
}

}  // namespace

int main(int argc, char** argv) {
  int window = 32, timeoutMs = 1000, retries = 3, lftBlock = -1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--window")
      window = std::max(1, number(argv[i + 1], "--window"));
    else if (a == "--timeout-ms")
      timeoutMs = number(argv[i + 1], "--timeout-ms");
    else if (a == "--retries")
      retries = number(argv[i + 1], "--retries");
    else if (a == "--lft-block")
      lftBlock = number(argv[i + 1], "--lft-block");
    else
      return std::fprintf(stderr, "sl2vl_read: unknown option %s\n", argv[i]), 2;
  }
  if (argc % 2 == 0) return std::fprintf(stderr, "sl2vl_read: every option takes a value\n"), 2;
  const std::vector<Query> queries = readPorts(lftBlock);
  if (umad_init() < 0) return std::fprintf(stderr, "sl2vl_read: cannot initialise libibumad\n"), 1;
  const int portId = umad_open_port(nullptr, 0);
  if (portId < 0) return std::fprintf(stderr, "sl2vl_read: cannot open an IB port\n"), 1;
  const int agent = umad_register(portId, kLidRoutedClass, 1, 0, nullptr);
  if (agent < 0) return std::fprintf(stderr, "sl2vl_read: cannot register an SMP agent\n"), 1;
  const int rc = run(portId, agent, queries, window, timeoutMs, retries);
  std::fflush(stdout);
  umad_unregister(portId, agent);
  umad_close_port(portId);
  return rc;
}
