// The generic per-block table the held subnet keeps for every table kind:
// what each block's state is after reads, Sets and failures.
#include <gtest/gtest.h>

#include "sm/program/BlockTable.h"

namespace ibsm::sm::program {
namespace {

using Table = BlockTable<int, char>;
using enum BlockState;

TEST(BlockTable, AnOwnerNeverSeenHasEveryBlockUnknown) {
  Table t;
  EXPECT_FALSE(t.has(7));
  EXPECT_EQ(t.state(7, 0), Unknown);
  EXPECT_EQ(t.block(7, 0), std::nullopt);
  EXPECT_EQ(t.blocks(7), 0U);
}

TEST(BlockTable, AnOwnerTakenAfreshHasItsBlocksInTheGivenStateAndTheRestStale) {
  Table t;
  t.reset(7, 3, Unknown);
  EXPECT_TRUE(t.has(7));
  EXPECT_EQ(t.blocks(7), 3U);
  EXPECT_EQ(t.state(7, 2), Unknown);
  EXPECT_EQ(t.state(7, 3), Stale) << "beyond what the device uses: written, not read";
  EXPECT_EQ(t.block(7, 3), std::nullopt);
}

TEST(BlockTable, BlocksPastTheEndCanBeKnownToHoldOneValue) {
  Table t;
  t.reset(7, 0, Unknown, 'e');  // e.g. a switch that forwards nothing
  EXPECT_EQ(t.state(7, 500), Known);
  EXPECT_EQ(t.block(7, 500), 'e');
}

TEST(BlockTable, ALearnedBlockIsKnownAndHoldsWhatWasLearned) {
  Table t;
  t.reset(7, 2, Unknown);
  t.learned(7, 1, 'x');
  EXPECT_EQ(t.state(7, 1), Known);
  EXPECT_EQ(t.block(7, 1), 'x');
  EXPECT_EQ(t.block(7, 0), std::nullopt);
}

TEST(BlockTable, AForgottenBlockIsStaleNotUnknownSoItIsWrittenUnread) {
  Table t;
  t.reset(7, 2, Unknown);
  t.learned(7, 0, 'x');
  t.forgotten(7, 0);
  EXPECT_EQ(t.state(7, 0), Stale);
  EXPECT_EQ(t.block(7, 0), std::nullopt);
}

TEST(BlockTable, LearningPastTheEndGrowsTheTableKeepingWhatTheGapWasKnownToHold) {
  Table t;
  t.reset(7, 0, Unknown, 'e');
  t.learned(7, 4, 'x');
  EXPECT_EQ(t.block(7, 2), 'e');
  EXPECT_EQ(t.block(7, 4), 'x');
  Table u;
  u.reset(7, 1, Unknown);
  u.forgotten(7, 3);
  EXPECT_EQ(u.state(7, 2), Stale);
  EXPECT_EQ(u.state(7, 0), Unknown);
}

TEST(BlockTable, OwnersAreKeptApartAndCanBeDroppedAlone) {
  Table t;
  for (int owner : {1, 2, 3}) {
    t.reset(owner, 1, Unknown);
    t.learned(owner, 0, static_cast<char>('a' + owner));
  }
  t.erase(2);
  t.eraseIf([](int o) { return o == 3; });
  EXPECT_EQ(t.size(), 1U);
  EXPECT_EQ(t.block(1, 0), 'b');
  EXPECT_FALSE(t.has(2));
  EXPECT_EQ(t.state(3, 0), Unknown);
}

}  // namespace
}  // namespace ibsm::sm::program
