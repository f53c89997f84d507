// The walk every taker of the hint shares: a switch's previous chain holds
// while it reaches the port that owns the LID over cables that exist now,
// and its length is the switch hops it takes; a lost cable, a loop or a
// wrong delivery port breaks it, and every chain that runs into it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "routing/graph/PreviousChains.h"
#include "routing/graph/SwitchGraph.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::routing {
namespace {

using testing::nodeNamed;

// Five switches r0..r4 in a ring (ri port 1 to r(i+1), port 2 to r(i-1)),
// host hi on port 3 of ri; previous tables route h0 around both ways.
class PreviousChainsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    lid_ = fabric_.port({nodeNamed(fabric_, "h0"), 1}).lid;
    previous_.resize(fabric_.size());
    for (const NodeId s : fabric_.switches()) previous_[s].port.assign(lid_.value + 1u, kNoRoute);
    set("r0", 3);
    set("r1", 2);
    set("r2", 2);
    set("r4", 1);
    set("r3", 1);
  }

  void set(const std::string& sw, std::uint8_t port) {
    previous_[nodeNamed(fabric_, sw)].port[lid_.value] = port;
  }
  SwitchIndex at(const SwitchGraph& g, const std::string& sw) const {
    return g.index(nodeNamed(fabric_, sw));
  }
  // Judges h0's LID on `fabric`, delivered by r0 on `deliverPort`.
  std::vector<bool> holding(const Fabric& fabric, std::uint8_t deliverPort = 3) {
    const SwitchGraph graph(fabric);
    PreviousChains chains(graph, previous_);
    chains.judge(lid_, graph.index(nodeNamed(fabric, "r0")), deliverPort);
    std::vector<bool> out;
    for (const std::string sw : {"r0", "r1", "r2", "r3", "r4"})
      out.push_back(chains.holds(graph.index(nodeNamed(fabric, sw))));
    return out;
  }

  Fabric fabric_ = testing::ringFabric(5);
  Lid lid_;
  std::vector<Lft> previous_;
};

TEST_F(PreviousChainsTest, EveryChainHoldsOnTheFabricItWasMadeFor) {
  const SwitchGraph graph(fabric_);
  PreviousChains chains(graph, previous_);
  EXPECT_EQ(chains.judge(lid_, at(graph, "r0"), 3), 5u);
  EXPECT_EQ(chains.length(at(graph, "r0")), 0);
  EXPECT_EQ(chains.length(at(graph, "r2")), 2);
  EXPECT_EQ(chains.length(at(graph, "r3")), 2);
  EXPECT_EQ(chains.next(at(graph, "r2")), at(graph, "r1"));
  EXPECT_EQ(chains.next(at(graph, "r0")), kNoSwitch);
  EXPECT_EQ(chains.port(at(graph, "r4")), 1);
}

TEST_F(PreviousChainsTest, ALostCableBreaksTheChainsThatCrossedIt) {
  Fabric cut = fabric_;
  cut.disconnect({nodeNamed(cut, "r1"), 2});  // r1 -- r0
  EXPECT_EQ(holding(cut), (std::vector<bool>{true, false, false, true, true}));
}

TEST_F(PreviousChainsTest, ALoopHoldsNowhere) {
  set("r2", 1);  // r2 -> r3, r3 -> r4 -> r0 still holds
  set("r3", 2);  // r3 -> r2: a loop between them
  EXPECT_EQ(holding(fabric_), (std::vector<bool>{true, true, false, false, true}));
}

TEST_F(PreviousChainsTest, TheTargetMustDeliverOnTheOwnersPort) {
  EXPECT_EQ(holding(fabric_, 4), (std::vector<bool>(5, false)));
}

// An entry with no switch behind it breaks the chain there: a host's port,
// a port past every cabled one, no route, a table too short for the LID.
TEST_F(PreviousChainsTest, AnEntryWithNoSwitchBehindItBreaksTheChain) {
  set("r2", 3);   // h2's port
  set("r3", 40);  // past every port the switch has
  set("r4", kNoRoute);
  EXPECT_EQ(holding(fabric_), (std::vector<bool>{true, true, false, false, false}));
  previous_[nodeNamed(fabric_, "r1")].port.resize(lid_.value);
  EXPECT_EQ(holding(fabric_), (std::vector<bool>{true, false, false, false, false}));
}

// One PreviousChains judges LID after LID: nothing of a verdict is left over
// for the next one.
TEST_F(PreviousChainsTest, EachJudgeStartsAfresh) {
  const SwitchGraph graph(fabric_);
  PreviousChains chains(graph, previous_);
  ASSERT_EQ(chains.judge(lid_, at(graph, "r0"), 3), 5u);
  const Lid other{static_cast<std::uint16_t>(lid_.value + 1u)};  // in no table
  EXPECT_EQ(chains.judge(other, at(graph, "r0"), 3), 0u);
  for (SwitchIndex s = 0; s < graph.size(); ++s) {
    EXPECT_FALSE(chains.hadRoute(s));
    EXPECT_EQ(chains.next(s), kNoSwitch);
  }
  EXPECT_EQ(chains.judge(lid_, at(graph, "r0"), 3), 5u);
  EXPECT_EQ(chains.next(at(graph, "r2")), at(graph, "r1"));
}

TEST_F(PreviousChainsTest, NoPreviousTablesNoVerdicts) {
  const SwitchGraph graph(fabric_);
  PreviousChains chains(graph, {});
  EXPECT_TRUE(chains.empty());
  EXPECT_EQ(chains.judge(lid_, at(graph, "r0"), 3), 0u);
}

}  // namespace
}  // namespace ibsm::routing
