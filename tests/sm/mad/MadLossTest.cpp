// How many attempts an SMP gets: from the loss seen on answered requests
// of the same path length, never from requests that were not answered.
#include <gtest/gtest.h>

#include "sm/mad/MadLoss.h"

namespace ibsm {
namespace {

DrPath hops(unsigned n) {
  return *DrPath::fromPorts(std::vector<std::uint8_t>(n, 1));
}

TEST(MadLoss, APathThatLosesNothingKeepsTheFloor) {
  MadLoss loss;
  const auto b = MadLoss::bucketOf(hops(5));
  for (int i = 0; i < 100; ++i) loss.answeredAt(b, 1);
  EXPECT_EQ(loss.attemptsFor(b, {.floor = 4, .ceiling = 16}), 4U);
}

TEST(MadLoss, AttemptsGrowWithTheLossSeenOnPathsOfThatLength) {
  MadLoss loss;
  const auto deep = MadLoss::bucketOf(hops(5));
  const auto near = MadLoss::bucketOf(hops(1));
  // Two attempts in three lost at 5 hops: about 0.65.
  for (int i = 0; i < 200; ++i) loss.answeredAt(deep, 3);
  EXPECT_NEAR(loss.lossRate(deep), 2.0 / 3, 0.05);
  // 0.65^n <= 1e-4 needs n >= 22: past the ceiling of 16.
  EXPECT_EQ(loss.attemptsFor(deep, {.floor = 4, .ceiling = 16}), 16U);
  const unsigned free = loss.attemptsFor(deep, {.floor = 4, .ceiling = 64});
  EXPECT_GE(free, 21U);
  EXPECT_LE(free, 23U);
  EXPECT_EQ(loss.attemptsFor(near, {.floor = 4, .ceiling = 16}), 4U);
}

TEST(MadLoss, ModerateLossGetsJustEnoughAttempts) {
  MadLoss loss;
  const auto b = MadLoss::bucketOf(hops(3));
  // One attempt in four lost: 0.25^7 = 6e-5 <= 1e-4 < 0.25^6.
  for (int i = 0; i < 400; ++i) loss.answeredAt(b, i % 3 == 0 ? 2 : 1);
  EXPECT_NEAR(loss.lossRate(b), 0.25, 0.03);
  EXPECT_EQ(loss.attemptsFor(b, {.floor = 4, .ceiling = 16}), 7U);
}

TEST(MadLoss, LidRoutedSmpsHaveTheirOwnBucket) {
  MadLoss loss;
  EXPECT_EQ(MadLoss::bucketOf(Lid{12}), MadLoss::kLidRouted);
  for (int i = 0; i < 200; ++i) loss.answeredAt(MadLoss::kLidRouted, 4);
  EXPECT_EQ(loss.attemptsFor(MadLoss::bucketOf(hops(2)), {.floor = 4, .ceiling = 16}), 4U);
  EXPECT_EQ(loss.attemptsFor(MadLoss::kLidRouted, {.floor = 4, .ceiling = 16}), 16U);
}

TEST(MadLoss, ACeilingBelowTheFloorMeansTheFloor) {
  MadLoss loss;
  const auto b = MadLoss::bucketOf(hops(2));
  for (int i = 0; i < 200; ++i) loss.answeredAt(b, 3);
  EXPECT_EQ(loss.attemptsFor(b, {.floor = 4, .ceiling = 2}), 4U);
}

}  // namespace
}  // namespace ibsm
