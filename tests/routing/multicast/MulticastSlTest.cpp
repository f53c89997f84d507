// checkMulticastSls(): a multicast packet travels on its group's SL, and an
// SL2VL table that sends that SL to VL 15 at a turn the tree crosses drops
// the copies there (an engine may drop SL 0 where unicast must never turn).
// Each tree is walked from every member on its SL; each dropping turn it
// crosses is named once, and a turn it does not cross, or another SL's
// drop, is no problem.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <ibsm/Multicast.h>
#include <ibsm/Report.h>

#include "tests/routing/engines/ShapeFabrics.h"
#include "tests/routing/multicast/McTestGroups.h"

namespace ibsm {
namespace {

using testing::everyCa;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::nodeNamed;
using ::testing::SizeIs;

// 4 leaves x 2 spines, 2 hosts a leaf: leaf ports 1-2 go to spine0-1,
// hosts on 3-4.
class MulticastSl : public ::testing::Test {
 protected:
  MulticastSl() {
    auto planned = planMulticast(f, groups);
    if (!planned) throw std::runtime_error(planned.error().message);
    plan = std::move(*planned);
  }
  // leaf0 sends `sl` from in port to out port on VL 15, every other SL on VL 0.
  std::vector<Sl2VlEntry> dropAtLeaf0(std::uint8_t sl, std::uint8_t in, std::uint8_t out) const {
    Sl2VlEntry e{nodeNamed(f, "leaf0"), in, out, {}};
    e.vl[sl] = 15;
    return {e};
  }

  Fabric f = testing::twoLevelFatTree(4, 2, 2);
  std::vector<McGroupRoute> groups{everyCa(f, 0xC000)};
  MulticastPlan plan;
};

TEST_F(MulticastSl, ATurnThatDropsTheGroupsSlCutsTheTreeAndIsNamed) {
  ASSERT_THAT(checkMulticast(f, plan.mfts, groups), IsEmpty());
  // leaf0's two hosts exchange copies through leaf0 itself: port 3 -> port 4.
  const auto problems = checkMulticastSls(f, plan.mfts, groups, {0}, dropAtLeaf0(0, 3, 4));
  ASSERT_THAT(problems, SizeIs(1));
  EXPECT_THAT(problems[0], HasSubstr("MLID 0xc000"));
  EXPECT_THAT(problems[0], HasSubstr("\"leaf0\"[4]"));
  EXPECT_THAT(problems[0], HasSubstr("SL 0 to VL 15 from port 3 to port 4"));
}

TEST_F(MulticastSl, TheSameGroupOnAnotherSlIsNotCut) {
  EXPECT_THAT(checkMulticastSls(f, plan.mfts, groups, {1}, dropAtLeaf0(0, 3, 4)), IsEmpty());
  EXPECT_THAT(checkMulticastSls(f, plan.mfts, groups, {0}, dropAtLeaf0(1, 3, 4)), IsEmpty());
}

TEST_F(MulticastSl, ADroppingTurnNoTreeCrossesIsNoProblem) {
  // Into the port a packet came in by: never a copy.
  EXPECT_THAT(checkMulticastSls(f, plan.mfts, groups, {0}, dropAtLeaf0(0, 3, 3)), IsEmpty());
  EXPECT_THAT(checkMulticastSls(f, plan.mfts, groups, {0}, {}), IsEmpty());
}

TEST_F(MulticastSl, ASendersOwnPortTableThatDropsTheSlCutsAtTheSource) {
  const NodeId host = f.endNodes().front();
  Sl2VlEntry own{host, 0, 1, {}};
  own.vl[0] = 15;
  const auto problems = checkMulticastSls(f, plan.mfts, groups, {0}, std::vector{own});
  ASSERT_THAT(problems, SizeIs(1));
  EXPECT_THAT(problems[0], HasSubstr(f.describe(PortRef{host, 1})));
}

}  // namespace
}  // namespace ibsm
