// The SA's compact per-port record (PathTable, built with each snapshot)
// gives the routes, and so the PathRecords, that a walk over the Fabric and
// the plan's LFTs gives: judged against such a walk written here, on a
// degraded fat tree, a dragonfly and a tree with LMC 2, each with links of
// mixed MTU and rate, a few LFT entries bent (cut, looping or ending
// elsewhere) and some turns whose SL2VL drops SLs.
#include <gtest/gtest.h>
#include <ibsm/Engines.h>

#include <algorithm>
#include <bit>
#include <optional>

#include "sm/sa/PathRecords.h"
#include "sm/sa/PathTable.h"
#include "sm/sa/SaSubnet.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::sm::sa {
namespace {

struct Case {
  const char* name;
  TopologySpec spec;
  Degradation degrade;
  std::uint8_t lmc;
  const char* engine;
};
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

// Every few ports a lower MTU or a narrower link; every few switches an
// LFT entry bent; every few turns an SL2VL that drops SLs.
void perturb(SubnetPlan& plan) {
  std::size_t n = 0;
  for (NodeId id = 0; id < plan.fabric.size(); ++id) {
    for (Port& port : plan.fabric.node(id).ports) {
      ++n;
      if (n % 7 == 0) port.mtuCap = static_cast<std::uint8_t>(3 + n % 2);
      if (n % 5 == 0) port.link.widthActive = 1;   // 1x
      if (n % 11 == 0) port.link.speedActive = 4;  // QDR
    }
  }
  for (NodeId sw : plan.fabric.switches()) {
    auto& lft = plan.routing.lfts.at(sw).port;
    if (sw % 5 == 0 && lft.size() > 3) lft[lft.size() / 2] = kNoRoute;
    if (sw % 7 == 0 && lft.size() > 3) lft[lft.size() / 3] = 1;
    if (sw % 3 == 0) {
      Sl2VlEntry drop{.sw = sw, .inPort = 1, .outPort = 2};
      for (std::size_t sl = 0; sl < drop.vl.size(); ++sl)
        drop.vl[sl] = sl % (2 + sw % 3) == 0 ? 15 : 0;  // VL15: dropped
      plan.routing.sl2vl.push_back(drop);
    }
  }
}

std::shared_ptr<const SubnetPlan> planOf(const Case& c) {
  PlanInputs inputs;
  inputs.lmc = c.lmc;
  inputs.engines = {c.engine};
  auto plan = planSubnet(ibsm::testing::generatedFabric(c.spec, c.degrade, c.lmc), inputs,
                         defaultRegistry());
  if (!plan) throw std::runtime_error(plan.error().message);
  perturb(*plan);
  return std::make_shared<const SubnetPlan>(std::move(*plan));
}

// The route as a walk over the Fabric and the plan reads it; of two SL2VL
// entries for one turn the later one counts (perturb() adds its own last).
std::uint16_t carried(const SubnetPlan& plan, NodeId sw, std::uint8_t in, std::uint8_t out) {
  std::uint16_t sls = 0xFFFF;
  for (const Sl2VlEntry& e : plan.routing.sl2vl) {
    if (e.sw != sw || e.inPort != in || e.outPort != out) continue;
    sls = 0;
    for (std::size_t sl = 0; sl < e.vl.size(); ++sl)
      if (e.vl[sl] != 15) sls = static_cast<std::uint16_t>(sls | (1U << sl));
  }
  return sls;
}

std::optional<Route> fabricWalk(const SubnetPlan& plan, PortRef from, Lid dlid, PortRef dest) {
  const Fabric& f = plan.fabric;
  Route r;
  PortRef at = from;  // the port a packet enters a node by (port 0: it starts there)
  if (!f.node(from.node).isSwitch()) {
    if (from == dest) return r;
    if (!f.port(from).remote) return std::nullopt;
    at = *f.port(from).remote;
    r.mtu = std::min(f.port(from).mtuCap, f.port(at).mtuCap);
    r.rate = rateHalfGbps(rateCode(f.port(from).link));
    r.anyLink = true;
  } else {
    at.port = 0;
  }
  for (int hop = 0; hop < 64; ++hop) {
    if (!f.node(at.node).isSwitch()) return at == dest ? std::optional(r) : std::nullopt;
    const auto& lft = plan.routing.lfts.at(at.node);
    const std::uint8_t out = lft.at(dlid);
    if (out == kNoRoute || out > f.node(at.node).numPorts()) return std::nullopt;
    if (out == 0) return PortRef{at.node, 0} == dest ? std::optional(r) : std::nullopt;
    if (at.port != 0) r.sls &= carried(plan, at.node, at.port, out);
    const Port& exit = f.port({at.node, out});
    if (!exit.remote) return std::nullopt;
    r.mtu = std::min({r.mtu, exit.mtuCap, f.port(*exit.remote).mtuCap});
    r.rate = std::min(r.rate, rateHalfGbps(rateCode(exit.link)));
    r.anyLink = true;
    at = *exit.remote;
  }
  return std::nullopt;
}

std::vector<Lid> lidsOf(const Fabric& f, PortRef p) {
  std::vector<Lid> out;
  for (unsigned i = 0; i < (1U << f.port(p).lmc); ++i)
    out.push_back(Lid{static_cast<std::uint16_t>(f.port(p).lid.value + i)});
  return out;
}

class PathTableTest : public ::testing::TestWithParam<Case> {
 protected:
  PathTableTest()
      : plan(planOf(GetParam())), subnet(SaSubnet::build({.plan = plan}, SaSettings{})) {}
  std::shared_ptr<const SubnetPlan> plan;
  std::shared_ptr<const SaSubnet> subnet;
};

TEST_P(PathTableTest, EveryRouteIsTheOneAWalkOverTheFabricFinds) {
  const PathTable& table = subnet->paths();
  std::size_t routed = 0, cut = 0, dropping = 0;
  for (const PortRef src : subnet->endPorts()) {
    for (const PortRef dst : subnet->endPorts()) {
      for (const Lid lid : lidsOf(plan->fabric, dst)) {
        const auto want = fabricWalk(*plan, src, lid, dst);
        const auto got = table.walk(src, lid, dst);
        ASSERT_EQ(got.has_value(), want.has_value())
            << plan->fabric.describe(src) << " to LID " << lid.value;
        // Both ways at once, as a PathRecord asks: each as on its own.
        const Lid back = plan->fabric.port(src).lid;
        const auto [there, andBack] = table.walkBoth(src, lid, dst, dst, back, src);
        EXPECT_EQ(there.has_value(), want.has_value());
        EXPECT_EQ(andBack.has_value(), fabricWalk(*plan, dst, back, src).has_value());
        if (there && want) {
          EXPECT_EQ(there->mtu, want->mtu);
        }
        if (!want) {
          ++cut;
          continue;
        }
        ++routed;
        dropping += want->sls != 0xFFFF;
        EXPECT_EQ(got->mtu, want->mtu);
        EXPECT_EQ(got->rate, want->rate);
        EXPECT_EQ(got->anyLink, want->anyLink);
        EXPECT_EQ(got->sls, want->sls);
      }
    }
  }
  // The perturbation reached the walks: some cut, some dropping an SL.
  EXPECT_GT(routed, 0U);
  EXPECT_GT(cut, 0U);
  EXPECT_GT(dropping, 0U);
}

// The snapshot finds a port by GUID where the fabric does, and no other.
TEST_P(PathTableTest, EveryPortGuidFindsThePortTheFabricFinds) {
  const Fabric& f = plan->fabric;
  std::size_t found = 0;
  for (const Node& node : f.nodes()) {
    for (const Port& port : node.ports) {
      if (!port.guid) continue;
      EXPECT_EQ(subnet->portOfGuid(port.guid), f.findPort(port.guid));
      ++found;
      const Guid other{port.guid.value ^ 0x8000000000000000ULL};
      EXPECT_EQ(subnet->portOfGuid(other), f.findPort(other));
    }
  }
  EXPECT_GE(found, f.size());
  EXPECT_EQ(subnet->portOfGuid(Guid{}), f.findPort(Guid{}));
}

// The PathRecords of a GetTable from a port to every port: one per LID pair
// the walk routes both ways or one way (Reversible says which), with the
// route's MTU and rate and the lowest SL it carries; none where it is cut.
TEST_P(PathTableTest, PathRecordsCarryTheWalksMtuRateAndSl) {
  const Fabric& f = plan->fabric;
  const auto& ends = subnet->endPorts();
  for (std::size_t s = 0; s < ends.size(); s += std::max<std::size_t>(1, ends.size() / 6)) {
    const PortRef src = ends[s];
    PathQuery q;
    q.mask = prMask::kSgid;
    q.query.sgid = makeGid(kDefaultSubnetPrefix, f.port(src).guid);
    const auto paths = findPaths(*subnet, q);
    ASSERT_TRUE(paths.has_value());
    std::size_t expected = 0;
    for (const PortRef dst : ends) {
      for (const Lid slid : lidsOf(f, src)) {
        for (const Lid dlid : lidsOf(f, dst)) {
          const auto route = fabricWalk(*plan, src, dlid, dst);
          if (!route || route->sls == 0) continue;
          ++expected;
          const auto pr = std::ranges::find_if(
              *paths, [&](const PathRecord& p) { return p.slid == slid && p.dlid == dlid; });
          ASSERT_NE(pr, paths->end()) << slid.value << " to " << dlid.value;
          const std::uint8_t own = f.port(src).mtuCap;
          EXPECT_EQ(pr->mtu,
                    std::min({route->anyLink ? route->mtu : own, own, f.port(dst).mtuCap}));
          EXPECT_EQ(pr->rate,
                    route->anyLink ? rateOfHalfGbps(route->rate) : rateCode(f.port(src).link));
          EXPECT_EQ(pr->sl, std::countr_zero(route->sls));
          EXPECT_EQ(pr->reversible, fabricWalk(*plan, dst, slid, src).has_value());
        }
      }
    }
    EXPECT_EQ(paths->size(), expected) << f.describe(src);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Fabrics, PathTableTest,
    ::testing::Values(Case{"DegradedTree",
                           FatTreeSpec{.levels = 3, .radix = 8},
                           {.links = 4, .seed = 3},
                           0,
                           "updn"},
                      Case{"Dragonfly", DragonflySpec{.a = 4, .p = 2, .h = 2}, {}, 0, "dragonfly"},
                      Case{"TreeLmc2", FatTreeSpec{.levels = 2, .radix = 8}, {}, 2, "updn"}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace ibsm::sm::sa
