// Under change the judge's hint pass (FatTreeHintPass.h) carries the
// degraded D-mod-K plan it was made with, and ftree routes from that plan
// (sharedDegraded) rather than make the same again: only when the verdicts
// it is handed were judged on the frame of the tree it routes, with such a
// pass; the plan gives the columns ftree's own would, and ftree's tables
// are the same either way.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "routing/engines/ftree/FatTreeDegraded.h"
#include "routing/engines/ftree/FatTreeDestinations.h"
#include "routing/engines/ftree/FatTreeHeldColumns.h"
#include "routing/engines/ftree/FatTreeHint.h"
#include "routing/engines/ftree/FatTreeHintPass.h"
#include "tests/routing/engines/FatTreeChecks.h"
#include "tests/routing/support/DamagedTrees.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm {
namespace {

using routing::SwitchGraph;
using namespace routing::ftree;

class HintPassPlan : public ::testing::Test {
 protected:
  void SetUp() override {
    const Fabric full = testing::generatedFabric(FatTreeSpec{.levels = 3, .radix = 8}, {}, 0);
    previous_ = testing::routeFtree(full).lfts;
    std::mt19937 rng(3);
    cut_ = testing::cutCables(full, 6, rng);
    graph_.emplace(cut_);
    frame_ = fatTreeFrame(cut_, *graph_, previous_, {});
    ASSERT_NE(frame_, nullptr);
    holds_.frame = frame_;
    pass_ = hintPassUnderChange(cut_, *graph_, *frame_, previous_, holds_, 2);
    ASSERT_NE(pass_, nullptr) << "the cut tree routes by degraded D-mod-K";
  }

  Fabric cut_;
  std::vector<Lft> previous_;
  std::optional<SwitchGraph> graph_;
  std::shared_ptr<FatTreeFrame> frame_;
  PreviousHolds holds_;
  std::shared_ptr<const HintPass> pass_;
};

TEST_F(HintPassPlan, IsSharedOnlyFromTheFrameItWasMadeOn) {
  const FatTreeLayout& layout = frame_->layout;
  const auto dests = caDestinations(layout, *graph_, cut_);
  HintColumns hint(*graph_, layout, previous_, &holds_);
  EXPECT_EQ(sharedDegraded(hint, layout, dests), nullptr) << "the frame carries no pass yet";
  frame_->pass = pass_;
  ASSERT_NE(pass_->setup, nullptr);
  EXPECT_EQ(sharedDegraded(hint, layout, dests), &*pass_->setup->degraded);
  // Another reading of the same fabric, no verdicts, or fewer destinations: none.
  const auto other = fatTreeFrame(cut_, *graph_, previous_, {});
  HintColumns otherHint(*graph_, other->layout, previous_, &holds_);
  EXPECT_EQ(sharedDegraded(otherHint, other->layout, dests), nullptr);
  HintColumns unjudged(*graph_, layout, previous_);
  EXPECT_EQ(sharedDegraded(unjudged, layout, dests), nullptr);
  EXPECT_EQ(sharedDegraded(hint, layout, std::span(dests).first(dests.size() - 1)), nullptr);
}

TEST_F(HintPassPlan, GivesTheColumnsOfFtreesOwnPlan) {
  const FatTreeLayout& layout = frame_->layout;
  const auto dests = caDestinations(layout, *graph_, cut_);
  const auto own = DegradedDmodk::make(layout, frame_->reach, dests);
  ASSERT_TRUE(own.has_value());
  const DegradedDmodk& shared = *pass_->setup->degraded;
  EXPECT_EQ(shared.shortList(), own->shortList());
  EXPECT_GT(own->shortSwitches(), 0u);
  const DegradedTree tree{layout, frame_->reach, frame_->hub, dests, *own};
  std::vector<CableId> mine, theirs;
  std::size_t plain = 0;
  for (std::size_t i = 0; i < dests.size(); ++i) {
    const auto dist = towardLeaf(tree, dests[i].leaf).dist;
    mine.assign(layout.switches(), kNoCable);
    theirs.assign(layout.switches(), kNoCable);
    const bool a = shared.plainColumn(i, dist, mine), b = own->plainColumn(i, dist, theirs);
    ASSERT_EQ(a, b) << "destination " << i;
    EXPECT_EQ(mine, theirs) << "destination " << i;
    plain += a;
  }
  EXPECT_GT(plain, 0u);
}

TEST_F(HintPassPlan, FtreeRoutesTheSameTablesFromIt) {
  RoutingOptions options;
  options.previous = previous_;
  options.previousHolds = &holds_;
  const RoutingResult ownPlan = testing::routeFtree(cut_, options);
  frame_->pass = pass_;
  const RoutingResult sharedPlan = testing::routeFtree(cut_, options);
  ASSERT_EQ(ownPlan.lfts.size(), sharedPlan.lfts.size());
  for (std::size_t n = 0; n < ownPlan.lfts.size(); ++n)
    EXPECT_EQ(ownPlan.lfts[n].port, sharedPlan.lfts[n].port) << "node " << n;
}

}  // namespace
}  // namespace ibsm
