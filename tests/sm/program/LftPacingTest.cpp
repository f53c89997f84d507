// The LFT phase round robin over the switches (sm/program/LftDiff.cpp) on
// the fake fabric's latency model: each switch's SMA answers one SMP at a
// time after 50 us (FakeSmaService.h), mad.per_node_window 1, window 32. A
// 3-level radix-8 tree (80 switches) gets 32 blocks a switch. Round robin
// keeps the window full to the end: the pass takes all SMPs x (service +
// way back) / window, each place in the window idle only while its answer
// travels back. Queued switch after switch, the window works through the
// switches in waves of 32 and the last wave holds 16: half the window
// idles through it. Expectations come from the bounds, never from a run.
#include <gtest/gtest.h>
#include <ibsm/Topology.h>
#include <ibsm/TopologyGenerator.h>

#include "tests/sm/support/FakeFabricTransport.h"
#include "tests/sm/support/LftPacing.h"

namespace ibsm::testing {
namespace {

using namespace std::chrono_literals;
constexpr auto kService = 50us;
constexpr std::uint32_t kBlocks = 32;
constexpr std::size_t kWindow = 32;
const std::chrono::microseconds kWayBack = FakeFabricTransport::Fate{}.latency;

LftPass pass(bool roundRobin) {
  auto net = generateNetFile(FatTreeSpec{.levels = 3, .radix = 8});
  EXPECT_TRUE(net);
  auto fabric = parseNetFile(*net, "k8");
  EXPECT_TRUE(fabric);
  return runLftPass(*fabric, {.window = kWindow,
                              .perNodeWindow = 1,
                              .service = kService,
                              .blocksPerSwitch = kBlocks,
                              .roundRobin = roundRobin});
}

// The window full from the first SMP to the last.
std::chrono::microseconds windowFull(const LftPass& p) {
  return (kService + kWayBack) * static_cast<std::int64_t>(p.blocks) /
         static_cast<std::int64_t>(kWindow);
}

TEST(LftPacing, RoundRobinKeepsTheWindowFullToTheEnd) {
  const LftPass rr = pass(true);
  ASSERT_EQ(rr.switches, 80U);
  EXPECT_EQ(rr.answered, rr.blocks);
  EXPECT_EQ(rr.retries, 0U);
  EXPECT_EQ(rr.deepestQueue, 1U);
  EXPECT_GE(rr.took, windowFull(rr));
  // Within 2% and one SMP's service and way back of the full window.
  EXPECT_LE(rr.took, windowFull(rr) * 51 / 50 + kService + kWayBack);
}

TEST(LftPacing, SwitchAfterSwitchLeavesTheLastWaveHalfEmpty) {
  const LftPass sw = pass(false);
  const LftPass rr = pass(true);
  EXPECT_EQ(sw.answered, sw.blocks);
  // 80 switches in waves of 32: 3 waves of 32 blocks each, the last half full.
  const std::int64_t waves = (80 + kWindow - 1) / kWindow;
  EXPECT_GE(sw.took, (kService + kWayBack) * kBlocks * (waves - 1) + windowFull(sw) / 10);
  EXPECT_GT(sw.took, rr.took * 11 / 10);
}

}  // namespace
}  // namespace ibsm::testing
