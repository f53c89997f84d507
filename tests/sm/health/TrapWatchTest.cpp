// Traps per sending port (sm/health/TrapWatch.h): a port repeating traps
// faster than the threshold turns noisy within the window and asks for no
// sweep until it calms down; a Notice naming another port than the one it
// came from is dropped; traps 256/257/258 are counted per port; each port
// has a log budget and what it had beyond it is counted, to be told once;
// the ports remembered stay bounded whatever a storm from many LIDs does.
#include <gtest/gtest.h>

#include "sm/health/TrapWatch.h"

namespace ibsm::sm::health {
namespace {

using namespace std::chrono_literals;

Notice trap(std::uint16_t number, Lid issuer) {
  Notice n;
  n.trapNumber = number;
  n.issuerLid = issuer;
  if (number == 128) n.dataDetails = encodeDetails(Trap128Details{issuer});
  return n;
}

class TrapWatchTest : public ::testing::Test {
 protected:
  // `n` traps 128 from `lid`, `gap` apart from t_; the verdicts.
  std::vector<TrapVerdict> storm(Lid lid, int n, std::chrono::microseconds gap) {
    std::vector<TrapVerdict> out;
    for (int i = 0; i < n; ++i) {
      out.push_back(watch_.observe(trap(128, lid), lid, t_));
      t_ += gap;
    }
    return out;
  }

  TrapWatch watch_{
      TrapWatchSettings{.noisyRate = 10, .window = 2s, .logLines = 5, .logWindow = 10s}};
  MadClock::time_point t_{};
};

TEST_F(TrapWatchTest, APortUnderTheRateAsksForASweepWithEveryTrap) {
  // One trap every 200 ms: 5/s, half the threshold, for a minute.
  for (const auto& v : storm(Lid{7}, 300, 200ms)) EXPECT_EQ(v.fate, TrapFate::Sweep);
  EXPECT_FALSE(watch_.noisy(Lid{7}));
  EXPECT_EQ(watch_.counts().sweepsAsked, 300U);
  EXPECT_EQ(watch_.counts().noisyEpisodes, 0U);
}

TEST_F(TrapWatchTest, AStormTurnsThePortNoisyAtTheThresholdCount) {
  // 2,000/s: more than rate x window = 20 traps within the window.
  const auto v = storm(Lid{135}, 100, 500us);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(v[i].fate, TrapFate::Sweep) << i;
  EXPECT_EQ(v[20].fate, TrapFate::Noisy);
  EXPECT_TRUE(v[20].becameNoisy);
  for (int i = 21; i < 100; ++i) EXPECT_FALSE(v[i].becameNoisy);
  EXPECT_TRUE(watch_.noisy(Lid{135}));
  EXPECT_EQ(watch_.counts().noisyIgnored, 80U);
  ASSERT_EQ(watch_.view(t_).size(), 1U);
  EXPECT_TRUE(watch_.view(t_)[0].noisy);
  EXPECT_GT(watch_.view(t_)[0].rate, 10.0);
}

TEST_F(TrapWatchTest, ANoisyPortCalmsDownOnlyAfterItsRateFallsAndAWindowPassed) {
  storm(Lid{135}, 100, 500us);
  t_ += 1s;
  EXPECT_TRUE(watch_.age(t_).empty() || !watch_.age(t_).front().calmed);
  EXPECT_TRUE(watch_.noisy(Lid{135}));  // the storm still weighs on the window
  t_ += 4s;                             // two windows of silence
  const auto aged = watch_.age(t_);
  ASSERT_EQ(aged.size(), 1U);
  EXPECT_TRUE(aged[0].calmed);
  EXPECT_FALSE(watch_.noisy(Lid{135}));
  EXPECT_EQ(watch_.observe(trap(128, Lid{135}), Lid{135}, t_).fate, TrapFate::Sweep);
}

TEST_F(TrapWatchTest, ATrapNamingAnotherPortThanItsSenderIsDropped) {
  // Issuer LID 9 in the Notice, sent from LID 135.
  EXPECT_EQ(watch_.observe(trap(128, Lid{9}), Lid{135}, t_).fate, TrapFate::Mismatch);
  // The issuer right but trap 128's LIDADDR another switch.
  Notice n = trap(128, Lid{135});
  n.dataDetails = encodeDetails(Trap128Details{Lid{4}});
  EXPECT_EQ(watch_.observe(n, Lid{135}, t_).fate, TrapFate::Mismatch);
  // No issuer: the LIDADDR must be the sender's.
  n.issuerLid = Lid{};
  EXPECT_EQ(watch_.observe(n, Lid{135}, t_).fate, TrapFate::Mismatch);
  EXPECT_EQ(watch_.counts().mismatched, 3U);
  EXPECT_EQ(watch_.counts().sweepsAsked, 0U);
  ASSERT_EQ(watch_.view(t_).size(), 1U);
  EXPECT_EQ(watch_.view(t_)[0].mismatched, 3U);
  // Matching ones stand.
  EXPECT_EQ(watch_.observe(trap(128, Lid{4}), Lid{4}, t_).fate, TrapFate::Sweep);
  EXPECT_EQ(watch_.observe(trap(144, Lid{}), Lid{4}, t_).fate, TrapFate::Sweep);
}

TEST_F(TrapWatchTest, WithAnLmcAnyLidOfThePortsRangeMatches) {
  watch_.setSettings({.lmc = 2});
  EXPECT_EQ(watch_.observe(trap(144, Lid{8}), Lid{11}, t_).fate, TrapFate::Sweep);
  EXPECT_EQ(watch_.observe(trap(144, Lid{8}), Lid{12}, t_).fate, TrapFate::Mismatch);
}

TEST_F(TrapWatchTest, BadKeyTrapsAreCountedPerPort) {
  watch_.observe(trap(256, Lid{5}), Lid{5}, t_);
  watch_.observe(trap(257, Lid{5}), Lid{5}, t_);
  watch_.observe(trap(257, Lid{5}), Lid{5}, t_);
  watch_.observe(trap(258, Lid{6}), Lid{6}, t_);
  const auto v = watch_.view(t_);
  ASSERT_EQ(v.size(), 2U);
  EXPECT_EQ(v[0].lid, Lid{5});
  EXPECT_EQ(v[0].badMKey, 1U);
  EXPECT_EQ(v[0].badPKey, 2U);
  EXPECT_EQ(v[1].badQKey, 1U);
  EXPECT_EQ(watch_.counts().byNumber.at(257), 2U);
}

TEST_F(TrapWatchTest, EachPortLogsAFewLinesAWindowAndCountsTheRest) {
  const auto v = storm(Lid{135}, 1000, 500us);  // 0.5 s
  int logged = 0;
  for (const auto& x : v) logged += x.log ? 1 : 0;
  EXPECT_EQ(logged, 5);
  EXPECT_EQ(watch_.counts().logSuppressed, 995U);
  // Another port keeps its own budget.
  EXPECT_TRUE(watch_.observe(trap(128, Lid{3}), Lid{3}, t_).log);
  // The held-back count is told once when the log window ends.
  t_ += 10s;
  std::uint64_t told = 0;
  for (const auto& c : watch_.age(t_)) told += c.lid == Lid{135} ? c.suppressed : 0;
  EXPECT_EQ(told, 995U);
  for (const auto& c : watch_.age(t_ + 10s)) EXPECT_EQ(c.suppressed, 0U);
}

TEST_F(TrapWatchTest, AStormFromManyLidsKeepsAtMostTheBoundOfPorts) {
  for (std::uint16_t lid = 1; lid < 20000; ++lid) {
    watch_.observe(trap(128, Lid{lid}), Lid{lid}, t_);
    t_ += 10us;
  }
  EXPECT_LE(watch_.trackedPorts(), TrapWatch::kMaxPorts);
  EXPECT_GT(watch_.counts().portsForgotten, 0U);
  // Silence: every port without anything to show is forgotten.
  t_ += 10s;
  watch_.age(t_);
  watch_.age(t_ + 10s);
  EXPECT_EQ(watch_.trackedPorts(), 0U);
}

}  // namespace
}  // namespace ibsm::sm::health
