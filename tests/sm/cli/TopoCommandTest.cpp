// `ibsm topo generate fat-tree` as an operator runs it: the furniture
// options reach the generator, and a malformed --io-hosts is refused naming
// the option. What the generator builds is judged in
// tests/routing/topology/GeneratorFurnitureTest.cpp.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

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

// Every option of every generator says what it sets: `--help` prints a
// description after each option's name and type, or on the next line when
// the name column is full ("--seed UINT Needs: --degrade").
bool hasHelp(const std::vector<std::string>& lines, std::size_t i) {
  const auto gap = lines[i].find("  ", 2);
  if (gap != std::string::npos && lines[i].find_first_not_of(' ', gap) != std::string::npos)
    return true;
  return i + 1 < lines.size() && !lines[i + 1].starts_with("  -") &&
         lines[i + 1].find_first_not_of(' ') != std::string::npos;
}

TEST(TopoCommand, EveryGeneratorOptionHasHelp) {
  for (const char* shape : {"fat-tree", "dragonfly", "dragonfly-plus"}) {
    const Outcome r = runIbsm(fmt::format("topo generate {} --help", shape));
    ASSERT_EQ(r.status, 0) << r.out;
    std::istringstream text(r.out);
    std::vector<std::string> lines;
    for (std::string line; std::getline(text, line);) lines.push_back(line);
    std::size_t options = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (!lines[i].starts_with("  -")) continue;
      ++options;
      EXPECT_TRUE(hasHelp(lines, i)) << shape << ": no help: " << lines[i];
    }
    EXPECT_GE(options, 5u) << r.out;
  }
}

TEST(TopoCommand, ASeedWithoutDegradeIsRefused) {
  const Outcome r = runIbsm("topo generate fat-tree --levels 2 --radix 4 --seed 7");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_THAT(r.out, HasSubstr("--seed requires --degrade"));
  EXPECT_THAT(r.out, Not(HasSubstr("Switch")));  // no net file printed
  EXPECT_EQ(runIbsm("topo generate fat-tree --levels 2 --radix 4 --degrade 1 --seed 7").status, 0);
}

}  // namespace
