// Multicast on ftree's second VL (issue 33): its SL2VL drops SL 0 where a
// route would descend then climb, and the IPoIB broadcast group of a tree
// with aggregation nodes or hosts above the leaves needs such a turn to
// reach them. The group then travels on the SL no turn drops
// (routing/multicast/McSl.h: the SA answers it, the dry run's judge walks
// the tree on it), and every copy arrives.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <ibsm/Multicast.h>
#include <ibsm/Report.h>
#include <ibsm/TopologyGenerator.h>

#include "routing/engines/ftree/FatTreeApartVlTables.h"
#include "routing/multicast/McSl.h"
#include "tests/routing/engines/FatTreeChecks.h"
#include "tests/routing/multicast/McTestGroups.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm {
namespace {

using routing::ftree::kMulticastSl;
using ::testing::IsEmpty;
using ::testing::Not;

struct McCase {
  std::string name;
  FatTreeSpec spec;
};
void PrintTo(const McCase& c, std::ostream* os) {
  *os << c.name;
}

class ApartVlMulticast : public ::testing::TestWithParam<McCase> {
 protected:
  ApartVlMulticast() {
    auto planned = planMulticast(fabric_, groups_);
    if (!planned) throw std::runtime_error(planned.error().message);
    plan_ = std::move(*planned);
  }
  std::vector<std::string> problemsOn(std::uint8_t sl) const {
    return checkMulticastSls(fabric_, plan_.mfts, groups_, {sl}, routed_.sl2vl);
  }

  const Fabric fabric_ = testing::generatedFabric(GetParam().spec);
  const RoutingResult routed_ =
      testing::routeFtree(fabric_, RoutingOptions{.rootGuids = {}, .maxVls = 8});
  // The broadcast group: every CA port, aggregation nodes and hosts above
  // the leaves among them.
  const std::vector<McGroupRoute> groups_{testing::everyCa(fabric_, 0xC000)};
  MulticastPlan plan_;
};

TEST_P(ApartVlMulticast, TheTreeTurnsWhereSl0IsDropped) {
  ASSERT_GE(routed_.vlsUsed, 2);
  EXPECT_THAT(checkMulticast(fabric_, plan_.mfts, groups_), IsEmpty());
  EXPECT_THAT(problemsOn(0), Not(IsEmpty()));
}

TEST_P(ApartVlMulticast, TheGroupGetsTheSlEveryTurnCarriesAndEveryCopyArrives) {
  const std::uint16_t carried = routing::slsCarriedEverywhere(routed_.sl2vl);
  EXPECT_EQ(carried & 1u, 0u);  // SL 0 dropped somewhere
  const std::uint8_t sl = routing::groupTreeSl(0, carried);
  EXPECT_EQ(sl, kMulticastSl);
  EXPECT_THAT(problemsOn(sl), IsEmpty());
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, ApartVlMulticast,
    ::testing::Values(
        McCase{"AggregationNodes", FatTreeSpec{.levels = 3, .radix = 8, .aggregationNodes = true}},
        McCase{"IoOnCores", FatTreeSpec{.levels = 3, .radix = 8, .ioHosts = {{2, 4}}}},
        McCase{"RailsAggregationNodesIo", FatTreeSpec{.levels = 3,
                                                      .radix = 8,
                                                      .aggregationNodes = true,
                                                      .ioHosts = {{1, 2}, {2, 2}},
                                                      .rails = 2}}),
    [](const ::testing::TestParamInfo<McCase>& info) { return info.param.name; });

// The rule alone: the SL asked for where every turn carries it, else the
// lowest that every turn carries; the one asked for when none is.
TEST(GroupTreeSl, KeepsACarriedSlElseTakesTheLowestCarried) {
  EXPECT_EQ(routing::groupTreeSl(0, routing::kEverySl), 0);
  EXPECT_EQ(routing::groupTreeSl(3, 0b1'0000'1000), 3);
  EXPECT_EQ(routing::groupTreeSl(0, 0b1'0001'0000), 4);
  EXPECT_EQ(routing::groupTreeSl(2, 0), 2);
  EXPECT_EQ(routing::slsCarriedEverywhere({}), routing::kEverySl);
  Sl2VlEntry e{};
  e.vl[0] = 15;
  e.vl[5] = 15;
  const std::vector<Sl2VlEntry> table{e};
  EXPECT_EQ(routing::slsCarriedEverywhere(table), 0xFFFF & ~0b10'0001);
  EXPECT_EQ(routing::groupTreeSl(0, routing::slsCarriedEverywhere(table)), 1);
}

}  // namespace
}  // namespace ibsm
