// Pacing per switch on the fake fabric's latency model (issue 32): a k24
// tree's programming pass -- every switch's LFT blocks, queued round robin
// over the switches as the programmer does, or switch after switch -- with
// 50 us per SMP per switch, for mad.per_node_window 1, 2, 4 and none, at
// windows 32 and 256. Prints the time reached on the fake clock beside the
// bound the busiest switch sets, the bound the window's spread allows, and
// the bound of the SMAs the window keeps busy (tests/sm/support/LftPacing.h),
// and the deepest queue at one switch. No wall time is involved: the
// figures are exact and repeatable. The README's command line is a ctest
// (PacingBench.readme).
//
//   build/bench/pacing_bench [radix] [service_us]
#include <ibsm/Topology.h>
#include <ibsm/TopologyGenerator.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tests/sm/support/LftPacing.h"

int main(int argc, char** argv) {
  using ibsm::testing::LftPass;
  const int radix = argc > 1 ? std::atoi(argv[1]) : 24;
  const auto service = std::chrono::microseconds(argc > 2 ? std::atoi(argv[2]) : 50);
  auto net = ibsm::generateNetFile(ibsm::FatTreeSpec{.levels = 3, .radix = radix});
  if (!net) return std::fprintf(stderr, "%s\n", net.error().message.c_str()), 1;
  auto fabric = ibsm::parseNetFile(*net, "generated");
  if (!fabric) return std::fprintf(stderr, "%s\n", fabric.error().message.c_str()), 1;

  std::printf(
      "3-level radix-%d tree, %lld us per SMP per switch, LFT blocks round robin over the\n"
      "switches as the programmer queues them (rr) or switch by switch (sw)\n",
      radix, static_cast<long long>(service.count()));
  std::printf("%6s %8s %5s %8s %8s %10s %10s %8s %9s %6s %6s %7s %7s\n", "window", "per_node",
              "order", "switches", "SMPs", "busiest_ms", "spread_ms", "smas_ms", "took_ms", "x_bnd",
              "x_smas", "deepest", "retries");
  for (std::size_t window : {32U, 256U}) {
    for (std::size_t row = 0; row < 5; ++row) {
      // Round robin at 1 per node (the default), then switch by switch at each.
      const bool rr = row == 0;
      const std::size_t perNode = std::array<std::size_t, 5>{1, 1, 2, 4, 0}[row];
      const LftPass p = ibsm::testing::runLftPass(
          *fabric,
          {.window = window, .perNodeWindow = perNode, .service = service, .roundRobin = rr});
      const auto ms = [](std::chrono::microseconds t) { return t.count() / 1000.0; };
      std::printf("%6zu %8s %5s %8zu %8llu %10.1f %10.1f %8.1f %9.1f %6.2f %6.2f %7zu %7llu\n",
                  window, perNode == 0 ? "none" : std::to_string(perNode).c_str(), rr ? "rr" : "sw",
                  p.switches, static_cast<unsigned long long>(p.blocks), ms(p.busiestBound),
                  ms(p.spreadBound), ms(p.smaBound), ms(p.took),
                  static_cast<double>(p.took.count()) / static_cast<double>(p.bound().count()),
                  static_cast<double>(p.took.count()) /
                      static_cast<double>(std::max(p.busiestBound, p.smaBound).count()),
                  p.deepestQueue, static_cast<unsigned long long>(p.retries));
    }
  }
  return 0;
}
