// Pacing per switch (MadEngineOptions::perNodeWindow, issue 32) on the fake
// fabric's latency model: each switch's SMA answers one SMP at a time after
// 50 us (FakeSmaService.h). A programming pass writes 32 LFT blocks to each
// switch of a 3-level radix-8 tree (80 switches), queued switch after
// switch (tests/sm/support/LftPacing.h). With a window per node the pass
// finishes near its bounds: the busiest switch's SMPs x 50 us, and all SMPs
// x 50 us over the SMAs the window keeps busy -- min(switches, window / per
// node), one per switch also idling while each answer travels back. With no
// limit the window piles onto one switch's queue at a time and the pass
// takes many times as long. Expectations come from the bounds the pass
// computes, never from a run. bench/pacing_bench runs the k24 tree.
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
// How long an answer takes back to the SM: the fake's default latency.
const std::chrono::microseconds kWayBack = FakeFabricTransport::Fate{}.latency;

const Fabric& tree() {
  static const Fabric fabric = [] {
    auto net = generateNetFile(FatTreeSpec{.levels = 3, .radix = 8});
    EXPECT_TRUE(net);
    auto parsed = parseNetFile(*net, "k8");
    EXPECT_TRUE(parsed);
    return *parsed;
  }();
  return fabric;
}

LftPass pass(std::size_t perNode, std::size_t window = 32) {
  return runLftPass(tree(), {.window = window,
                             .perNodeWindow = perNode,
                             .service = kService,
                             .blocksPerSwitch = kBlocks});
}

void expectEveryBlockAnsweredOnce(const LftPass& p) {
  EXPECT_EQ(p.switches, 80U);
  EXPECT_EQ(p.blocks, 80U * kBlocks);
  EXPECT_EQ(p.answered, p.blocks);
  EXPECT_EQ(p.retries, 0U);
  EXPECT_EQ(p.sent, p.blocks);
}

// Within 10% and one SMP's service and way back.
std::chrono::microseconds near(std::chrono::microseconds bound) {
  return bound * 11 / 10 + kService + kWayBack;
}

TEST(MadEnginePacing, OnePerSwitchKeepsTheWindowOnAsManySmasEachIdleOnlyForItsWayBack) {
  const LftPass p = pass(1);
  expectEveryBlockAnsweredOnce(p);
  EXPECT_EQ(p.deepestQueue, 1U);
  EXPECT_GE(p.took, p.bound());
  EXPECT_GE(p.took, p.smaBound);
  // Switches in waves of 32 (the window), each taking service + way back
  // per SMP: the last wave has only 16 of the 80.
  const std::int64_t waves = (80 + 31) / 32;
  EXPECT_LE(p.took, near((kService + kWayBack) * kBlocks * waves));
}

TEST(MadEnginePacing, TwoPerSwitchNeverQueuesMoreAndFinishesNearItsBound) {
  const LftPass p = pass(2);
  expectEveryBlockAnsweredOnce(p);
  EXPECT_EQ(p.deepestQueue, 2U);
  EXPECT_GE(p.took, p.bound());
  EXPECT_LE(p.took, near(std::max(p.busiestBound, p.smaBound)));
  // The window (32) covers fewer switches than there are: two per switch
  // keeps half as many SMAs at work as one per switch does.
  EXPECT_GT(p.took, pass(1).took);
}

TEST(MadEnginePacing, AWindowAboveTwiceTheSwitchesKeepsEverySmaBusyAtTwoPerSwitch) {
  const LftPass two = pass(2, 256);
  const LftPass one = pass(1, 256);
  expectEveryBlockAnsweredOnce(two);
  EXPECT_LE(two.took, near(std::max(two.busiestBound, two.smaBound)));
  EXPECT_LT(two.took, one.took);  // one per switch idles each SMA on the way back
}

TEST(MadEnginePacing, WithoutALimitTheWindowPilesOntoOneSwitchAndTakesFarLonger) {
  const LftPass unlimited = pass(0);
  expectEveryBlockAnsweredOnce(unlimited);
  // The whole window waits in one switch's queue at a time...
  EXPECT_EQ(unlimited.deepestQueue, 32U);
  // ... so few SMAs work at once, and the pass is far from its bounds
  // (the requests overdue behind the pile give their places to more).
  EXPECT_GE(unlimited.took, unlimited.bound() * 10);
  EXPECT_GE(unlimited.took, pass(1).took * 6);
  EXPECT_GE(unlimited.took, pass(2).took * 4);
}

TEST(MadEnginePacing, AWindowPerNodeAboveTheWindowChangesNothing) {
  const LftPass capped = pass(64);
  const LftPass unlimited = pass(0);
  EXPECT_EQ(capped.took, unlimited.took);
  EXPECT_EQ(capped.deepestQueue, unlimited.deepestQueue);
}

}  // namespace
}  // namespace ibsm::testing
