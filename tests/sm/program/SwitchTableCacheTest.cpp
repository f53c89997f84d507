// What the SM believes each switch's LFT holds, across sweeps.
#include <gtest/gtest.h>

#include "SwitchTableCache.h"

namespace ibsm::sm {
namespace {

constexpr Guid kSw{0x200000};
constexpr Guid kOther{0x200001};

LftBlock blockOf(std::uint8_t port) {
  LftBlock b;
  b.ports.fill(port);
  return b;
}

TEST(SwitchTableCache, ASwitchWithLinearFdbTopZeroHoldsNothingAndNeedsNoReads) {
  SwitchTableCache cache;
  EXPECT_TRUE(cache.admit(kSw, Lid{0}).empty());
  EXPECT_EQ(cache.block(kSw, 0), emptyLftBlock());
  EXPECT_EQ(cache.block(kSw, 767), emptyLftBlock());
}

TEST(SwitchTableCache, ARunningSwitchHasItsBlocksUpToLinearFdbTopRead) {
  SwitchTableCache cache;
  // LIDs 0..130 span blocks 0, 1 and 2.
  EXPECT_EQ(cache.admit(kSw, Lid{130}), (std::vector<std::uint16_t>{0, 1, 2}));
  EXPECT_EQ(cache.block(kSw, 1), std::nullopt);
  EXPECT_EQ(cache.block(kSw, 3), std::nullopt) << "beyond the top: unknown, not empty";
  cache.learned(kSw, 1, blockOf(3));
  EXPECT_EQ(cache.block(kSw, 1), blockOf(3));
  EXPECT_EQ(cache.block(kSw, 0), std::nullopt);
}

TEST(SwitchTableCache, ASwitchSeenAgainWithTheSameTopKeepsWhatWasKnown) {
  SwitchTableCache cache;
  cache.admit(kSw, Lid{0});
  cache.learned(kSw, 0, blockOf(1));
  cache.topWritten(kSw, Lid{40});
  EXPECT_TRUE(cache.admit(kSw, Lid{40}).empty());
  EXPECT_EQ(cache.block(kSw, 0), blockOf(1));
  EXPECT_EQ(cache.block(kSw, 1), emptyLftBlock());
}

TEST(SwitchTableCache, ASwitchWhoseTopIsNotWhatWasWrittenIsTakenAfresh) {
  SwitchTableCache cache;
  cache.admit(kSw, Lid{0});
  cache.learned(kSw, 0, blockOf(1));
  cache.topWritten(kSw, Lid{40});
  // It rebooted: top 0, and a rebooted switch holds nothing.
  EXPECT_TRUE(cache.admit(kSw, Lid{0}).empty());
  EXPECT_EQ(cache.block(kSw, 0), emptyLftBlock());
  // Someone else programmed it: read it again.
  cache.learned(kSw, 0, blockOf(1));
  cache.topWritten(kSw, Lid{40});
  EXPECT_EQ(cache.admit(kSw, Lid{70}), (std::vector<std::uint16_t>{0, 1}));
  EXPECT_EQ(cache.block(kSw, 0), std::nullopt);
}

TEST(SwitchTableCache, AFailedSetMakesTheBlockUnknown) {
  SwitchTableCache cache;
  cache.admit(kSw, Lid{0});
  cache.forget(kSw, 2);
  EXPECT_EQ(cache.block(kSw, 2), std::nullopt);
  EXPECT_EQ(cache.block(kSw, 1), emptyLftBlock()) << "blocks below keep what they were";
  EXPECT_EQ(cache.block(kSw, 3), emptyLftBlock()) << "blocks above keep what they were";
}

TEST(SwitchTableCache, AnUncertainTopAcceptsWhatTheSwitchReportsAndKeepsTheBlocks) {
  SwitchTableCache cache;
  cache.admit(kSw, Lid{0});
  cache.learned(kSw, 0, blockOf(2));
  cache.topUncertain(kSw);  // the SwitchInfo Set timed out: old or new top
  EXPECT_TRUE(cache.admit(kSw, Lid{63}).empty());
  EXPECT_EQ(cache.block(kSw, 0), blockOf(2));
  EXPECT_EQ(cache.admit(kSw, Lid{200}).size(), 4U) << "from now on the top is known again";
}

TEST(SwitchTableCache, SwitchesAreKeptApartByGuid) {
  SwitchTableCache cache;
  cache.admit(kSw, Lid{0});
  cache.admit(kOther, Lid{64});
  cache.learned(kSw, 1, blockOf(4));
  EXPECT_EQ(cache.block(kOther, 1), std::nullopt);
  EXPECT_TRUE(cache.knows(kOther));
  EXPECT_FALSE(cache.knows(Guid{0x999}));
  EXPECT_EQ(cache.block(Guid{0x999}, 0), std::nullopt);
  EXPECT_EQ(cache.size(), 2U);
}

}  // namespace
}  // namespace ibsm::sm
