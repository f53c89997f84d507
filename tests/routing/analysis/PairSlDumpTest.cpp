// pair-sls: the dry run writes the SLs the engine gave its pairs beside the
// tables, and `ibsm path --dir` / `ibsm route --previous` read them back to
// the same pairs; a line that is not a pair, or a pair the fabric cannot
// send, is refused naming the file and line.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <ibsm/Dumps.h>

#include "tests/routing/analysis/HandTables.h"
#include "tests/support/FabricBuilder.h"

namespace ibsm {
namespace {

using testing::FabricBuilder;
using ::testing::HasSubstr;
using testing::lidOf;
using testing::nodeNamed;

Fabric twoSwitches() {
  FabricBuilder b;
  b.addSwitch("s0");
  b.addSwitch("s1");
  b.cable("s0", 2, "s1", 2);
  b.addHost("h0", "s0", 1);
  b.addHost("h1", "s1", 1);
  return b.build();
}

RoutingResult withPairs(const Fabric& f) {
  RoutingResult r;
  r.pairSls = {PairSl{lidOf(f, "h1"), {nodeNamed(f, "h0"), 1}, 1},
               PairSl{lidOf(f, "h1"), {nodeNamed(f, "s0"), 0}, 3},
               PairSl{lidOf(f, "s0"), {nodeNamed(f, "h1"), 1}, 15}};
  std::ranges::sort(r.pairSls);
  return r;
}

TEST(PairSlDump, WhatIsWrittenReadsBackToTheSamePairs) {
  const Fabric f = twoSwitches();
  const RoutingResult r = withPairs(f);
  const std::string text = formatPairSls(f, r);
  const auto parsed = parsePairSls(text, "pair-sls");
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_EQ(parsed->size(), 3u);
  const auto pairs = pairSlsByNode(f, *parsed, "pair-sls");
  ASSERT_TRUE(pairs) << pairs.error().message;
  EXPECT_EQ(*pairs, r.pairSls);
  const Guid h0 = f.node(nodeNamed(f, "h0")).guid;
  EXPECT_THAT(
      text, HasSubstr(fmt::format("node {} port 1 dlid {:#06x} sl 1\n", h0, lidOf(f, "h1").value)));
}

TEST(PairSlDump, NoPairsNoFile) {
  const Fabric f = twoSwitches();
  EXPECT_EQ(formatPairSls(f, RoutingResult{}), "");
}

TEST(PairSlDump, ABadLineIsNamedByFileAndLine) {
  const auto expectError = [](std::string_view text, std::string_view what) {
    const auto parsed = parsePairSls(text, "dir/pair-sls");
    ASSERT_FALSE(parsed) << text;
    EXPECT_THAT(parsed.error().message, HasSubstr(what)) << text;
  };
  expectError("# c\n\nnode 0x1 port 1 dlid 0x5\n", "dir/pair-sls:3: expected 'node 0xNODEGUID");
  expectError("node 0x1 port 1 dlid 0x5 sl 16\n", "dir/pair-sls:1: SL 16 is above 15");
  expectError("node 0x1 port 1 dlid 0xc000 sl 1\n", "dir/pair-sls:1: dlid 0xc000 is no unicast");
  expectError("node 1 port 1 dlid 0x5 sl 1\n", "dir/pair-sls:1: expected");
  expectError("node 0x1 port 1 dlid 0x5 sl 1\nnode 0x1 port 1 dlid 0x5 sl 2\n",
              "dir/pair-sls:2: node 0x0000000000000001 port 1 dlid 0x0005 is listed at line 1");
}

TEST(PairSlDump, APairTheFabricCannotSendIsRefused) {
  const Fabric f = twoSwitches();
  const Guid s0 = f.node(nodeNamed(f, "s0")).guid;
  const auto parse = [&](std::string text) {
    auto parsed = parsePairSls(text, "pair-sls");
    EXPECT_TRUE(parsed);
    return pairSlsByNode(f, *parsed, "pair-sls");
  };
  const auto unknown = parse("\nnode 0x00ffffffffffffff port 1 dlid 0x1 sl 1\n");
  ASSERT_FALSE(unknown);
  EXPECT_THAT(unknown.error().message, HasSubstr("pair-sls:2: node 0x00ffffffffffffff is not"));
  const auto switchPort = parse(fmt::format("node {} port 2 dlid 0x1 sl 1\n", s0));
  ASSERT_FALSE(switchPort);
  EXPECT_THAT(switchPort.error().message, HasSubstr("expected port 0 of a switch"));
}

}  // namespace
}  // namespace ibsm
