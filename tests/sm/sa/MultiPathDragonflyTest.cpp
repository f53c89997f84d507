// MultiPathRecord on a dragonfly (a6 p3 h3) routed with LMC 2 (issue 33): where the
// tables give a pair four pairwise link-disjoint routes (one per DLID), a
// GetMulti with NumbPath 4 answers those four, and no two of the answers
// share an inter-switch cable. Each answer carries the SL its DLID travels
// on: SL 0 for the base LID, one of the later LIDs' own SLs (1-14)
// for the others, as the engine names them (RoutingResult::pairSls).
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <optional>
#include <set>

#include "routing/analysis/PathSl.h"
#include "sm/sa/MultiPathRecords.h"
#include "tests/sm/sa/SaFixture.h"

namespace ibsm::sm::sa {
namespace {

using testing::SaFixture;

using Cables = std::set<std::pair<NodeId, std::uint8_t>>;

class MultiPathDragonflyTest : public ::testing::Test {
 protected:
  MultiPathDragonflyTest() {
    RoutingOptions options;
    options.maxVls = 8;
    sa.plan.routing = *makeDragonflyEngine()->route(sa.plan.fabric, options);
    sa.rebuild();
  }

  // The inter-switch cables (switch, out port) from host `from` to `dlid`.
  Cables cables(std::size_t from, Lid dlid) const {
    Cables out;
    const Fabric& f = sa.plan.fabric;
    PortRef at = *f.port(sa.hostPort(from)).remote;
    for (int hop = 0; hop < 16 && f.node(at.node).isSwitch(); ++hop) {
      const std::uint8_t port = sa.plan.routing.lfts[at.node].at(dlid);
      const PortRef next = *f.port({at.node, port}).remote;
      if (!f.node(next.node).isSwitch()) break;
      out.insert({at.node, port});
      at = next;
    }
    return out;
  }

  static bool disjoint(const std::vector<Cables>& routes) {
    for (std::size_t i = 0; i < routes.size(); ++i)
      for (std::size_t j = 0; j < i; ++j) {
        std::vector<std::pair<NodeId, std::uint8_t>> shared;
        std::ranges::set_intersection(routes[i], routes[j], std::back_inserter(shared));
        if (!shared.empty()) return false;
      }
    return true;
  }

  // A destination host on another switch whose four DLIDs the tables route
  // from `from` on pairwise disjoint cables, walked here as the report walks
  // them (a host on the same switch crosses no cable on any of them).
  std::optional<std::size_t> fourApartFrom(std::size_t from) const {
    for (std::size_t to = 0; to < sa.hosts.size(); ++to) {
      if (to == from) continue;
      std::vector<Cables> routes;
      for (std::uint16_t k = 0; k < 4; ++k)
        routes.push_back(cables(from, Lid{static_cast<std::uint16_t>(sa.lidOfHost(to).value + k)}));
      if (!routes[0].empty() && disjoint(routes)) return to;
    }
    return std::nullopt;
  }

  std::vector<PathRecord> askFor(std::size_t from, std::size_t to, unsigned paths) {
    MultiPathRecord r;
    r.sgids = {sa.gidOfHost(from)};
    r.dgids = {sa.gidOfHost(to)};
    r.numbPath = static_cast<std::uint8_t>(paths);
    SaMad mad;
    mad.header.method = saMethod::kGetMulti;
    mad.header.attributeId = saAttr::kMultiPathRecord;
    mad.header.componentMask = mprMask::kSgidCount | mprMask::kDgidCount | mprMask::kNumbPath;
    mad.data = encodeRecord(r);
    return SaFixture::records<PathRecord>(sa.answer(encodeSaMad(mad)));
  }

  SaFixture sa{DragonflySpec{.a = 6, .p = 3, .h = 3}, /*lmc=*/2};
};

TEST_F(MultiPathDragonflyTest, NumbPathFourAnswersTheFourDisjointRoutes) {
  std::size_t checked = 0;
  for (std::size_t from = 1; from < sa.hosts.size() && checked < 8; ++from) {
    const auto to = fourApartFrom(from);
    if (!to) continue;
    ++checked;
    const auto four = askFor(from, *to, 4);
    ASSERT_EQ(four.size(), 4U);
    std::vector<Cables> routes;
    std::set<std::uint16_t> dlids;
    for (const PathRecord& p : four) {
      routes.push_back(cables(from, p.dlid));
      dlids.insert(p.dlid.value);
    }
    EXPECT_EQ(dlids.size(), 4U) << "host " << from << " to " << *to << ": one path per DLID";
    for (const PathRecord& p : four) {
      const bool base = p.dlid == sa.lidOfHost(*to);
      if (base) {
        EXPECT_EQ(p.sl, 0) << "DLID " << p.dlid.value;
      } else {
        EXPECT_GE(p.sl, 1) << "DLID " << p.dlid.value;
        EXPECT_LE(p.sl, 14) << "DLID " << p.dlid.value;
      }
      EXPECT_EQ(
          p.sl,
          analysis::engineSl(sa.plan.routing.pairSls, sa.hostPort(from), p.dlid).value_or(0xFF));
    }
    EXPECT_TRUE(disjoint(routes)) << "host " << from << " to " << *to;
  }
  EXPECT_GT(checked, 0U) << "no pair of hosts has four disjoint routes";
}

}  // namespace
}  // namespace ibsm::sm::sa
