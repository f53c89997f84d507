// The retransmission timeout per path length, as TCP's (RFC 6298): the
// smoothed round trip plus four mean deviations of the samples given,
// the initial timeout before any, within a floor and a cap, doubling with
// each attempt. Expectations are worked out from the samples, not copied
// from a run.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <numeric>
#include <vector>

#include "sm/mad/MadRto.h"

namespace ibsm {
namespace {

using namespace std::chrono_literals;
using Us = MadRto::Duration;

DrPath hops(unsigned n) {
  return *DrPath::fromPorts(std::vector<std::uint8_t>(n, 1));
}

MadRto::Limits limits() {
  return {.initial = 200ms, .floor = 1ms, .cap = 200ms};
}

TEST(MadRto, BeforeAnySampleEveryAttemptWaitsTheInitialTimeoutCapOrNot) {
  MadRto rto({.initial = 200ms, .floor = 1ms, .cap = 50ms});
  EXPECT_EQ(rto.rto(MadLoss::bucketOf(hops(3))), Us(200ms));
  EXPECT_EQ(rto.timeout(MadLoss::bucketOf(hops(3)), 1), Us(200ms));
  EXPECT_EQ(rto.timeout(MadLoss::bucketOf(hops(3)), 3), Us(200ms));
}

TEST(MadRto, ConvergesToTheMeasuredRoundTripPlusFourDeviations) {
  MadRto rto(limits());
  const auto b = MadLoss::bucketOf(hops(5));
  // Round trips of 1 ms and 3 ms in turn: mean 2 ms, every sample 1 ms off it.
  std::vector<Us> samples;
  for (int i = 0; i < 400; ++i) samples.push_back(i % 2 == 0 ? Us(1000) : Us(3000));
  for (Us s : samples) rto.sample(b, s);
  const double mean =
      std::accumulate(samples.begin(), samples.end(), 0.0,
                      [](double a, Us s) { return a + static_cast<double>(s.count()); }) /
      static_cast<double>(samples.size());
  double deviation = 0;
  for (Us s : samples) deviation += std::abs(static_cast<double>(s.count()) - mean);
  deviation /= static_cast<double>(samples.size());
  const auto& e = rto.estimate(b);
  EXPECT_EQ(e.samples, samples.size());
  // SRTT swings by alpha * 1 ms around the mean between samples; RTTVAR
  // follows |SRTT - R|, which that swing moves by as much.
  EXPECT_NEAR(static_cast<double>(e.srtt.count()), mean, 0.15 * deviation);
  EXPECT_NEAR(static_cast<double>(e.rttvar.count()), deviation, 0.15 * deviation);
  EXPECT_EQ(rto.rto(b), e.srtt + 4 * e.rttvar);
  EXPECT_NEAR(static_cast<double>(rto.rto(b).count()), mean + 4 * deviation, 0.15 * 4 * deviation);
}

TEST(MadRto, TheFirstSampleCountsForTheRoundTripAndHalfOfItAsDeviation) {
  MadRto rto(limits());
  const auto b = MadLoss::bucketOf(hops(1));
  rto.sample(b, Us(4000));
  EXPECT_EQ(rto.estimate(b).srtt, Us(4000));
  EXPECT_EQ(rto.estimate(b).rttvar, Us(2000));
  EXPECT_EQ(rto.rto(b), Us(4000 + 4 * 2000));
}

TEST(MadRto, PathLengthsAndLidRoutedLearnApart) {
  MadRto rto(limits());
  for (int i = 0; i < 50; ++i) rto.sample(MadLoss::bucketOf(hops(1)), Us(3000));
  EXPECT_LT(rto.rto(MadLoss::bucketOf(hops(1))), Us(10ms));
  EXPECT_EQ(rto.rto(MadLoss::bucketOf(hops(2))), Us(200ms));
  EXPECT_EQ(rto.rto(MadLoss::bucketOf(Lid{7})), Us(200ms));
}

TEST(MadRto, StaysWithinTheFloorAndTheCap) {
  MadRto rto({.initial = 200ms, .floor = 2ms, .cap = 50ms});
  const auto fast = MadLoss::bucketOf(hops(1));
  const auto slow = MadLoss::bucketOf(hops(2));
  for (int i = 0; i < 50; ++i) rto.sample(fast, Us(10));
  for (int i = 0; i < 50; ++i) rto.sample(slow, Us(80ms));
  EXPECT_EQ(rto.rto(fast), Us(2ms));
  EXPECT_EQ(rto.rto(slow), Us(50ms));
}

TEST(MadRto, EachRetryWaitsTwiceTheOneBeforeUpToTheCap) {
  MadRto rto({.initial = 200ms, .floor = 1ms, .cap = 100ms});
  const auto b = MadLoss::bucketOf(hops(4));
  for (int i = 0; i < 50; ++i) rto.sample(b, Us(3000));
  const Us first = rto.timeout(b, 1);
  EXPECT_EQ(first, rto.rto(b));
  for (unsigned attempt = 2; attempt <= 12; ++attempt) {
    const Us expected = std::min(Us(100ms), first * (1 << (attempt - 1)));
    EXPECT_EQ(rto.timeout(b, attempt), expected) << "attempt " << attempt;
  }
  EXPECT_EQ(rto.timeout(b, 64), Us(100ms));
}

TEST(MadRto, LearntListsEachMeasuredPathAndKindWithItsTimeout) {
  MadRto rto({.initial = 200ms, .floor = 1ms, .cap = 100ms});
  EXPECT_TRUE(rto.learnt().empty());
  const auto getTwo = MadRto::keyOf(MadLoss::bucketOf(hops(2)), MadRto::Kind::Get);
  const auto lftByLid = MadRto::keyOf(MadLoss::bucketOf(Lid{9}), MadRto::Kind::TableSet);
  for (int i = 0; i < 3; ++i) rto.sample(getTwo, Us(400));
  rto.sample(lftByLid, Us(6000));
  const auto learnt = rto.learnt();
  ASSERT_EQ(learnt.size(), 2U);
  EXPECT_FALSE(learnt[0].lidRouted);
  EXPECT_EQ(learnt[0].hops, 2U);
  EXPECT_EQ(MadRto::kindName(learnt[0].kind), "get");
  EXPECT_EQ(learnt[0].estimate.samples, 3U);
  EXPECT_EQ(learnt[0].estimate.srtt, rto.estimate(getTwo).srtt);
  EXPECT_EQ(learnt[0].timeout, rto.rto(getTwo));
  EXPECT_TRUE(learnt[1].lidRouted);
  EXPECT_EQ(MadRto::kindName(learnt[1].kind), "table_set");
  EXPECT_EQ(learnt[1].timeout, rto.rto(lftByLid));
}

}  // namespace
}  // namespace ibsm
