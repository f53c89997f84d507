#include <fmt/format.h>
#include <gtest/gtest.h>
#include <ibsm/MadPath.h>

#include <string>
#include <vector>

namespace ibsm {
namespace {

TEST(DrPath, DefaultIsTheLocalNodeWithNoHops) {
  const DrPath local;
  EXPECT_EQ(local.hopCount(), 0);
  EXPECT_TRUE(local.ports().empty());
  EXPECT_EQ(local.toString(), "0");
}

TEST(DrPath, ExtendingAddsOneHopAndLeavesTheOriginalAlone) {
  const DrPath a = *DrPath{}.extended(3);
  const DrPath b = *a.extended(17);
  EXPECT_EQ(a.hopCount(), 1);
  EXPECT_EQ(b.hopCount(), 2);
  EXPECT_EQ(b.port(1), 3);
  EXPECT_EQ(b.port(2), 17);
  EXPECT_EQ(fmt::format("{}", b), "0,3,17");
}

TEST(DrPath, InitialPathLeavesEntryZeroUnused) {
  const DrPath p = *DrPath::fromPorts(std::vector<std::uint8_t>{5, 6});
  const auto& wire = p.initialPath();
  EXPECT_EQ(wire[0], 0);
  EXPECT_EQ(wire[1], 5);
  EXPECT_EQ(wire[2], 6);
  EXPECT_EQ(wire[3], 0);
}

TEST(DrPath, StopsAt63Hops) {
  const std::vector<std::uint8_t> ports(63, 1);
  auto longest = DrPath::fromPorts(ports);
  ASSERT_TRUE(longest);
  EXPECT_FALSE(longest->extended(1));
  EXPECT_FALSE(DrPath::fromPorts(std::vector<std::uint8_t>(64, 1)));
}

TEST(DrPath, ParsesTheSmpqueryNotation) {
  EXPECT_EQ(*DrPath::parse("0,1,3"), *DrPath::fromPorts(std::vector<std::uint8_t>{1, 3}));
  EXPECT_EQ(*DrPath::parse("1,3"), *DrPath::fromPorts(std::vector<std::uint8_t>{1, 3}));
  EXPECT_EQ(DrPath::parse("0")->hopCount(), 0);
  EXPECT_FALSE(DrPath::parse(""));
  EXPECT_FALSE(DrPath::parse("0,,3"));
  EXPECT_FALSE(DrPath::parse("0,256"));
  EXPECT_FALSE(DrPath::parse("0,x"));
}

TEST(DrPath, EqualPathsHashAlike) {
  const DrPath a = *DrPath::parse("0,2,4");
  const DrPath b = *DrPath{}.extended(2)->extended(4);
  EXPECT_EQ(a, b);
  EXPECT_EQ(std::hash<DrPath>{}(a), std::hash<DrPath>{}(b));
}

TEST(DrPath, PathsAreEqualExactlyWhenTheirHopsAre) {
  const DrPath one = *DrPath::parse("0,1");
  // The same ports and a trailing port 0: the bytes past the shorter path's
  // last hop agree, its hop count does not.
  const DrPath oneThenZero = *DrPath::parse("0,1,0");
  EXPECT_NE(one, oneThenZero);
  EXPECT_NE(*DrPath::parse("0,1,2"), *DrPath::parse("0,1,3"));
  EXPECT_NE(*DrPath::parse("0,5,2"), *DrPath::parse("0,1,2"));
  EXPECT_NE(DrPath{}, one);
  EXPECT_EQ(DrPath{}, *DrPath::parse("0"));
  // A path grown hop by hop equals one parsed whole, at any length.
  DrPath grown;
  std::string text = "0";
  for (std::uint8_t hop = 1; hop <= DrPath::kMaxHops; ++hop) {
    grown = *grown.extended(hop);
    text += fmt::format(",{}", hop);
    ASSERT_EQ(grown, *DrPath::parse(text)) << text;
  }
  // Ordered as before (std::map keys): by the ports, then the length.
  EXPECT_LT(one, oneThenZero);
  EXPECT_LT(*DrPath::parse("0,1,2"), *DrPath::parse("0,1,3"));
}

}  // namespace
}  // namespace ibsm
