// compareLfts: what a change of routing moves, entry by entry and per
// 64-LID block, on tables written by hand so every count is known.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <ibsm/LftChanges.h>

#include "tests/support/FabricBuilder.h"

namespace ibsm {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr std::uint8_t kPort = 1;

// Three switches in a line, each with a host: LIDs 1..6. The tables route
// LIDs 1..kTop (more than the fabric has) so that they span three blocks.
constexpr std::uint16_t kTop = 150;

class CompareLfts : public ::testing::Test {
 protected:
  CompareLfts() {
    testing::FabricBuilder b;
    for (const char* s : {"s0", "s1", "s2"}) b.addSwitch(s);
    b.cable("s0", 2, "s1", 3).cable("s1", 2, "s2", 3);
    b.addHost("h0", "s0", 1);
    b.addHost("h1", "s1", 1);
    b.addHost("h2", "s2", 1);
    fabric_ = b.build();
    now_.lfts.resize(fabric_.size());
    for (const NodeId id : fabric_.switches()) {
      now_.lfts[id].port.assign(kTop + 1, kPort);
      now_.lfts[id].port[0] = kNoRoute;
      const Node& sw = fabric_.node(id);
      previous_.push_back(DumpedLft{sw.guid, sw.ports[0].lid, sw.description, now_.lfts[id]});
    }
  }

  Lft& now(std::string_view name) { return now_.lfts.at(id(name)); }
  Lft& before(std::string_view name) {
    for (auto& d : previous_)
      if (d.description == name) return d.lft;
    throw std::runtime_error("no previous table for " + std::string(name));
  }
  NodeId id(std::string_view name) const {
    for (NodeId n = 0; n < fabric_.size(); ++n)
      if (fabric_.node(n).description == name) return n;
    throw std::runtime_error("no node " + std::string(name));
  }
  NamedSwitch named(std::string_view name) const {
    return NamedSwitch{std::string(name), fabric_.node(id(name)).guid};
  }
  LftChanges compare() const { return compareLfts(previous_, fabric_, now_); }

  Fabric fabric_;
  RoutingResult now_;
  std::vector<DumpedLft> previous_;
};

TEST_F(CompareLfts, TheSameTablesDifferInNothing) {
  const LftChanges c = compare();
  EXPECT_EQ(c.switchesCompared, 3u);
  EXPECT_EQ(c.entriesCompared, 3u * kTop);  // LIDs 1..150 on each switch
  EXPECT_EQ(c.blocksCompared, 3u * 3u);     // LIDs 0-63, 64-127, 128-191
  EXPECT_EQ(c.entriesDiffer, 0u);
  EXPECT_EQ(c.blocksDiffer, 0u);
  EXPECT_EQ(c.switchesChanged, 0u);
  EXPECT_THAT(c.mostChanged, IsEmpty());
  EXPECT_THAT(c.switchesGone, IsEmpty());
  EXPECT_THAT(c.switchesNew, IsEmpty());
  EXPECT_THAT(c.lidsChanged, IsEmpty());
}

TEST_F(CompareLfts, OneEntryThatDiffersIsOneEntryInOneBlock) {
  now("s1").port[5] = 3;
  const LftChanges c = compare();
  EXPECT_EQ(c.entriesDiffer, 1u);
  EXPECT_EQ(c.blocksDiffer, 1u);
  EXPECT_EQ(c.switchesChanged, 1u);
  EXPECT_EQ(c.topsChanged, 0u);
  EXPECT_THAT(c.mostChanged, ElementsAre(ChangedSwitch{named("s1"), 1, 1, Lid{kTop}, Lid{kTop}}));
}

TEST_F(CompareLfts, TwoEntriesOfOneBlockAreOneBlock) {
  now("s0").port[64] = 2;
  now("s0").port[127] = 2;
  const LftChanges c = compare();
  EXPECT_EQ(c.entriesDiffer, 2u);
  EXPECT_EQ(c.blocksDiffer, 1u);
}

TEST_F(CompareLfts, EntriesInTwoBlocksAreTwoBlocks) {
  now("s0").port[63] = 2;
  now("s0").port[64] = 2;  // the first LID of the next block
  const LftChanges c = compare();
  EXPECT_EQ(c.entriesDiffer, 2u);
  EXPECT_EQ(c.blocksDiffer, 2u);
}

TEST_F(CompareLfts, AnEntryRoutedInOneTableOnlyDiffers) {
  before("s2").port[7] = kNoRoute;  // routed now, not before
  now("s1").port[9] = kNoRoute;     // routed before, not now
  const LftChanges c = compare();
  EXPECT_EQ(c.entriesDiffer, 2u);
  EXPECT_EQ(c.blocksDiffer, 2u);
  EXPECT_EQ(c.switchesChanged, 2u);
}

TEST_F(CompareLfts, TopsThatDifferCountEveryLidUpToTheHigherOne) {
  // Now s0 routes LIDs up to 100 only: LIDs 101..150 are no longer routed.
  now("s0").port.resize(101);
  const LftChanges c = compare();
  EXPECT_EQ(c.topsChanged, 1u);
  EXPECT_EQ(c.entriesDiffer, 50u);
  EXPECT_EQ(c.blocksDiffer, 2u);            // 101..127 and 128..150
  EXPECT_EQ(c.entriesCompared, 3u * kTop);  // still up to the previous top
  EXPECT_THAT(c.mostChanged, ElementsAre(ChangedSwitch{named("s0"), 2, 50, Lid{kTop}, Lid{100}}));
}

TEST_F(CompareLfts, AHigherTopNowComparesUpToIt) {
  now("s2").port.resize(200, kPort);  // LIDs 151..199 newly routed
  const LftChanges c = compare();
  EXPECT_EQ(c.topsChanged, 1u);
  EXPECT_EQ(c.entriesDiffer, 49u);
  EXPECT_EQ(c.entriesCompared, 2u * kTop + 199u);
  EXPECT_EQ(c.blocksCompared, 3u * 3u + 1u);  // s2 has block 3 (192..199) too
  EXPECT_EQ(c.blocksDiffer, 2u);
}

TEST_F(CompareLfts, LidZeroIsNoDestination) {
  now("s0").port[0] = 0;
  EXPECT_EQ(compare().entriesDiffer, 0u);
}

TEST_F(CompareLfts, ASwitchInOneOnlyIsNamedAndNotCompared) {
  const DumpedLft gone{Guid{0xdead}, Lid{40}, "old-spine", Lft{{kNoRoute, 1, 1, 1}}};
  previous_.push_back(gone);
  previous_.erase(previous_.begin());  // s0 new: nothing was held for it
  const LftChanges c = compare();
  EXPECT_EQ(c.switchesCompared, 2u);
  EXPECT_THAT(c.switchesGone, ElementsAre(NamedSwitch{"old-spine", Guid{0xdead}}));
  EXPECT_THAT(c.switchesNew, ElementsAre(named("s0")));
  EXPECT_EQ(c.entriesCompared, 2u * kTop);
  EXPECT_EQ(c.entriesDiffer, 0u);
}

TEST_F(CompareLfts, AGuidThatIsACaNowIsAGoneSwitch) {
  const Guid host = fabric_.node(id("h0")).guid;
  previous_.push_back(DumpedLft{host, Lid{}, "was a switch", Lft{{kNoRoute, 1}}});
  EXPECT_THAT(compare().switchesGone, ElementsAre(NamedSwitch{"was a switch", host}));
}

TEST_F(CompareLfts, ASwitchWhoseLidMovedIsNamed) {
  for (auto& d : previous_)
    if (d.description == "s1") d.switchLid = Lid{99};
  // A dump that gives no LID (dump_fts by directed route) is taken as it is.
  for (auto& d : previous_)
    if (d.description == "s2") d.switchLid = Lid{};
  EXPECT_THAT(compare().lidsChanged, ElementsAre(named("s1")));
}

TEST_F(CompareLfts, TheMostChangedSwitchesComeFirstByBlocksThenEntries) {
  now("s0").port[1] = 2;  // 1 block, 1 entry
  now("s1").port[1] = 2;  // 1 block, 2 entries
  now("s1").port[2] = 2;
  now("s2").port[1] = 2;  // 2 blocks, 2 entries
  now("s2").port[100] = 2;
  const LftChanges c = compare();
  ASSERT_EQ(c.mostChanged.size(), 3u);
  EXPECT_EQ(c.mostChanged[0].name, named("s2"));
  EXPECT_EQ(c.mostChanged[1].name, named("s1"));
  EXPECT_EQ(c.mostChanged[2].name, named("s0"));
  EXPECT_EQ(c.entriesDiffer, 5u);
  EXPECT_EQ(c.blocksDiffer, 4u);
}

TEST(CompareLftsExamples, KeepsOnlyTheFewMostChanged) {
  testing::FabricBuilder b;
  const std::size_t n = LftChanges::kMostChanged + 3;
  for (std::size_t i = 0; i < n; ++i) b.addSwitch(fmt::format("s{}", i));
  const Fabric f = b.build();
  RoutingResult now;
  now.lfts.resize(f.size());
  std::vector<DumpedLft> previous;
  for (const NodeId id : f.switches()) {
    // Switch i has i + 1 blocks that differ.
    now.lfts[id].port.assign(64 * n, 1);
    Lft held = now.lfts[id];
    for (std::size_t blk = 0; blk <= id; ++blk) held.port[64 * blk + 1] = 2;
    previous.push_back(DumpedLft{f.node(id).guid, f.node(id).ports[0].lid, "", held});
  }
  const LftChanges c = compareLfts(previous, f, now);
  ASSERT_EQ(c.mostChanged.size(), LftChanges::kMostChanged);
  EXPECT_EQ(c.mostChanged.front().blocks, n);
  EXPECT_EQ(c.mostChanged.back().blocks, n - LftChanges::kMostChanged + 1);
  EXPECT_EQ(c.switchesChanged, n);
}

}  // namespace
}  // namespace ibsm
