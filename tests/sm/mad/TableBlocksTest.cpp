// How whole tables are cut into the blocks SMPs carry (MadAttributes.h):
// the one place the dry run's report, the partition report and programming
// all take their blocks from.
#include <gtest/gtest.h>
#include <ibsm/MadAttributes.h>

#include <vector>

namespace ibsm {
namespace {

TEST(TableBlocks, PKeyBlockCountsRoundUpToWholeBlocks) {
  EXPECT_EQ(pkeyBlockCount(0), 0);
  EXPECT_EQ(pkeyBlockCount(8), 1);
  EXPECT_EQ(pkeyBlockCount(32), 1);
  EXPECT_EQ(pkeyBlockCount(64), 2);
  EXPECT_EQ(pkeyBlockCount(65), 3);
}

TEST(TableBlocks, PKeyBlocksHold32EntriesPaddedWithZero) {
  std::vector<std::uint16_t> keys;
  for (std::uint16_t k = 1; k <= 33; ++k) keys.push_back(k);
  EXPECT_EQ(pkeyBlock(keys, 0).pkeys[31], 32);
  EXPECT_EQ(pkeyBlock(keys, 1).pkeys[0], 33);
  EXPECT_EQ(pkeyBlock(keys, 1).pkeys[1], 0) << "a shorter table clears what it no longer has";
  EXPECT_EQ(pkeyBlock({}, 0), PKeyBlock{});
}

TEST(TableBlocks, LftBlocksHold64LidsAndLidsPastTheTableAreUnrouted) {
  std::vector<std::uint8_t> portByLid(70, 0);
  portByLid[1] = 3;
  portByLid[64] = 5;
  portByLid[69] = 7;
  const LftBlock first = lftBlock(portByLid, 0);
  EXPECT_EQ(first.ports[1], 3);
  const LftBlock second = lftBlock(portByLid, 1);
  EXPECT_EQ(second.ports[0], 5);
  EXPECT_EQ(second.ports[5], 7);
  EXPECT_EQ(second.ports[6], 0xFF);
  EXPECT_EQ(lftBlock(portByLid, 1, 0x00).ports[63], 0x00) << "the unrouted value is the caller's";
}

}  // namespace
}  // namespace ibsm
