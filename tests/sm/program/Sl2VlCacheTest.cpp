// The SL2VL cache: which tables a sweep must read, and what it knows after
// Gets, Sets, failures and a node's reset.
#include <gtest/gtest.h>

#include "Sl2VlCache.h"

namespace ibsm::sm {
namespace {

const Sl2VlKey kTurn{Guid{0x200}, 3, 6};
const Sl2VlKey kOtherTurn{Guid{0x200}, 6, 3};
const Sl2VlKey kOtherSwitch{Guid{0x300}, 3, 6};

SlToVlTable allTo(std::uint8_t vl) {
  SlToVlTable t;
  t.vl.fill(vl);
  return t;
}

TEST(Sl2VlCache, ATableSeenForTheFirstTimeIsReadAndUnknownUntilThen) {
  Sl2VlCache cache;
  EXPECT_TRUE(cache.admit(kTurn));
  EXPECT_EQ(cache.table(kTurn), std::nullopt);
  cache.learned(kTurn, allTo(1));
  EXPECT_EQ(cache.table(kTurn), allTo(1));
}

TEST(Sl2VlCache, ATableSeenAgainIsNotReadEvenWhenItsSetFailed) {
  Sl2VlCache cache;
  cache.admit(kTurn);
  cache.learned(kTurn, allTo(0));
  cache.forget(kTurn);  // a failed Set: written again, not read
  EXPECT_FALSE(cache.admit(kTurn));
  EXPECT_EQ(cache.table(kTurn), std::nullopt);
}

TEST(Sl2VlCache, EachPortPairIsItsOwnTable) {
  Sl2VlCache cache;
  cache.admit(kTurn);
  cache.learned(kTurn, allTo(1));
  EXPECT_TRUE(cache.admit(kOtherTurn)) << "(6, 3) is not (3, 6)";
  EXPECT_EQ(cache.table(kOtherTurn), std::nullopt);
}

TEST(Sl2VlCache, AResetDropsEveryTableOfThatNodeAndNoOther) {
  Sl2VlCache cache;
  for (const Sl2VlKey& k : {kTurn, kOtherTurn, kOtherSwitch}) {
    cache.admit(k);
    cache.learned(k, allTo(1));
  }
  cache.reset(kTurn.node);
  EXPECT_EQ(cache.size(), 1U);
  EXPECT_TRUE(cache.admit(kTurn));
  EXPECT_TRUE(cache.admit(kOtherTurn));
  EXPECT_FALSE(cache.admit(kOtherSwitch));
  EXPECT_EQ(cache.table(kOtherSwitch), allTo(1));
}

}  // namespace
}  // namespace ibsm::sm
