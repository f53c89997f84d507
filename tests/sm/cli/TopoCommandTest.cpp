// `ibsm topo generate fat-tree` as an operator runs it: the furniture
// options reach the generator, and a malformed --io-hosts is refused naming
// the option. What the generator builds is judged in
// tests/routing/topology/GeneratorFurnitureTest.cpp.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/sm/cli/IbsmProcess.h"

namespace {

using ibsm::sm::cli::testing::Outcome;
using ibsm::sm::cli::testing::runIbsm;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(TopoCommand, EveryFurnitureOptionReachesTheNetFile) {
  const Outcome r = runIbsm(
      "topo generate fat-tree --levels 3 --radix 8 --rails 4 --aggregation-nodes "
      "--io-hosts 2:4 --io-hosts 1:1 --director-pods 1 --hosts-per-leaf 2");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("Hca\t1 \"d0_0_3 mlx5_3\"\n"));  // 4 hosts per director switch
  EXPECT_THAT(r.out, HasSubstr("[2]\t\"h0_1 mlx5_0\"[1]\n"));   // 2 hosts per edge
  EXPECT_THAT(r.out, Not(HasSubstr("\"h0_2 mlx5_0\"")));
  EXPECT_THAT(r.out, HasSubstr("[9]\t\"io2_3\"[1]\n"));
  EXPECT_THAT(r.out, HasSubstr("Hca\t1 \"io1_0\"\n"));
  EXPECT_THAT(r.out, HasSubstr("sysimgguid=0x7cfe900300000000\nSwitch\t10 \"core0\"\n"));
  EXPECT_THAT(r.out, HasSubstr("[10]\t\"Mellanox Technologies Aggregation Node core0\"[1]\n"));
}

TEST(TopoCommand, IoHostsTakeLevelColonCount) {
  for (const char* bad : {"2x4", "2:", ":4", "2:4x", "two:4"}) {
    const Outcome r = runIbsm(fmt::format("topo generate fat-tree --levels 3 --io-hosts {}", bad));
    EXPECT_EQ(r.status, 2) << bad;
    EXPECT_THAT(r.out, HasSubstr(fmt::format("--io-hosts '{}': expected LEVEL:COUNT", bad)));
  }
}

TEST(TopoCommand, AFurnitureValueTheTreeCannotTakeNamesItsOption) {
  const Outcome r = runIbsm("topo generate fat-tree --levels 2 --radix 8 --rails 3");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.out, HasSubstr("--rails 3"));
  EXPECT_THAT(r.out, HasSubstr("must divide the 8 leaves"));
}

}  // namespace
