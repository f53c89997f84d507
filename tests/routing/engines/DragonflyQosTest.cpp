// QoS classes on the dragonfly's deadlock-free VLs (issue 30): with a
// two-class policy (SLs 0-7 and 8-15 mapped to two QoS VLs), every path
// between two CA ports, on every SL of each class, is walked hop by hop
// through the LFTs and the SL2VL tables the SM programs (the engine's
// layers with the classes multiplied in, qos::planQosTables); the (channel,
// VL) dependencies of all of them form no cycle, on any VL or across VLs,
// and the two classes never share a VL. The route report's credit-loop
// analysis agrees, having walked one SL of each class.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <ibsm/Engines.h>
#include <ibsm/QosOptions.h>
#include <ibsm/Report.h>

#include <iostream>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "tests/support/FabricFixtures.h"

namespace ibsm {
namespace {

using Vls = std::array<std::uint8_t, 16>;

constexpr std::uint8_t kDrop = 15;

qos::QosOptions twoClasses() {
  qos::QosOptions o;
  o.enabled = true;
  o.all.sl2vl = *qos::parseSl2VlOption("0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1");
  return o;
}

std::uint8_t classOf(std::uint8_t sl) {
  return sl < 8 ? 0 : 1;
}

struct Routed {
  Fabric fabric;
  RoutingResult routing;
  qos::QosTables tables;
};

Routed routeWithClasses(const qos::QosOptions& options) {
  Routed out{
      .fabric = testing::sampleFabric("dragonfly-a4-p2-h2.net"), .routing = {}, .tables = {}};
  RoutingOptions ro;
  ro.maxVls = 8;
  auto r = makeDragonflyEngine()->route(out.fabric, ro);
  if (!r) throw std::runtime_error(r.error().message);
  out.routing = std::move(*r);
  auto t = qos::planQosTables(out.fabric, options, nullptr, out.routing.sl2vl);
  if (!t) throw std::runtime_error(t.error().message);
  qos::adoptLayeredSl2Vl(*t, out.routing);
  out.tables = std::move(*t);
  return out;
}

// The (channel, VL) dependency graph of the walked paths, and what it saw.
struct Walk {
  using Hop = std::tuple<NodeId, std::uint8_t, std::uint8_t>;  // node, out port, VL
  std::map<Hop, std::set<Hop>> waits;
  std::array<std::set<std::uint8_t>, 2> vlsOfClass;
  std::array<std::uint64_t, 2> paths{};  // (pair, SL) walked to the destination, by class
  std::array<std::uint64_t, 2> hops{};
  std::uint64_t lost{0};  // paths that never arrived or were dropped

  // Whether the dependencies among hops on VLs `onVl` (all when empty) hold a cycle.
  bool cyclic(std::optional<std::uint8_t> onVl) const {
    std::map<Hop, int> state;  // 1 on the stack, 2 done
    std::function<bool(const Hop&)> visit = [&](const Hop& h) {
      state[h] = 1;
      if (auto it = waits.find(h); it != waits.end())
        for (const Hop& next : it->second) {
          if (onVl && (std::get<2>(next) != *onVl || std::get<2>(h) != *onVl)) continue;
          const int s = state[next];
          if (s == 1 || (s == 0 && visit(next))) return true;
        }
      state[h] = 2;
      return false;
    };
    for (const auto& [h, next] : waits)
      if ((!onVl || std::get<2>(h) == *onVl) && state[h] == 0 && visit(h)) return true;
    return false;
  }
};

class Tables {
 public:
  explicit Tables(const Routed& r) {
    for (const Sl2VlEntry& e : r.routing.sl2vl) switchTables_[{e.sw, e.inPort, e.outPort}] = e.vl;
    for (const qos::QosSl2Vl& t : r.tables.sl2vl)
      if (!r.fabric.node(t.port.node).isSwitch()) caTables_[t.port] = t.vl;
  }
  std::uint8_t ca(PortRef port, std::uint8_t sl) const { return caTables_.at(port)[sl]; }
  std::uint8_t turn(NodeId sw, std::uint8_t in, std::uint8_t out, std::uint8_t sl) const {
    return switchTables_.at({sw, in, out})[sl];
  }

 private:
  std::map<std::tuple<NodeId, std::uint8_t, std::uint8_t>, Vls> switchTables_;
  std::map<PortRef, Vls> caTables_;
};

void walkPath(const Routed& r, const Tables& t, PortRef src, PortRef dst, std::uint8_t sl,
              Walk& w) {
  const Fabric& f = r.fabric;
  const Lid lid = f.port(dst).lid;
  Walk::Hop prev{src.node, src.port, t.ca(src, sl)};
  PortRef at = *f.port(src).remote;
  const std::uint8_t cls = classOf(sl);
  w.vlsOfClass[cls].insert(std::get<2>(prev));
  for (int hop = 0; hop < 64; ++hop) {
    const std::uint8_t out = r.routing.lfts[at.node].at(lid);
    if (out == kNoRoute || out == 0) break;
    const std::uint8_t vl = t.turn(at.node, at.port, out, sl);
    if (vl == kDrop) break;
    const Walk::Hop next{at.node, out, vl};
    w.waits[prev].insert(next);
    w.vlsOfClass[cls].insert(vl);
    ++w.hops[cls];
    prev = next;
    at = *f.port({at.node, out}).remote;
    if (at == dst) {
      ++w.paths[cls];
      return;
    }
  }
  ++w.lost;
}

std::vector<PortRef> caPorts(const Fabric& f) {
  std::vector<PortRef> out;
  for (const NodeId id : f.endNodes())
    for (const std::uint8_t p : f.node(id).endpointPorts())
      if (f.port({id, p}).remote) out.push_back({id, p});
  return out;
}

TEST(DragonflyQos, EveryPathOfBothClassesIsLoopFreePerVlAndTheClassesShareNoVl) {
  const Routed r = routeWithClasses(twoClasses());
  ASSERT_EQ(r.routing.engine, "dragonfly");
  ASSERT_TRUE(r.tables.layers);
  EXPECT_EQ(r.tables.layers->classes.size(), 2U);
  EXPECT_EQ(r.tables.layers->layers, 2);  // local, global, local
  EXPECT_EQ(r.routing.vlsUsed, 4);
  const Tables t(r);
  const auto ports = caPorts(r.fabric);
  Walk w;
  for (const PortRef src : ports)
    for (const PortRef dst : ports)
      if (src != dst)
        for (std::uint8_t sl = 0; sl < 16; ++sl) walkPath(r, t, src, dst, sl, w);
  const std::uint64_t perClass = ports.size() * (ports.size() - 1) * 8;
  std::cout << fmt::format(
      "{} CA ports; class SLs 0-7: {} paths, {} switch hops, VLs {}; class SLs 8-15: {} paths, "
      "{} switch hops, VLs {}; total {} paths, {} hops, {} (channel, VL) nodes\n",
      ports.size(), w.paths[0], w.hops[0], fmt::join(w.vlsOfClass[0], ","), w.paths[1], w.hops[1],
      fmt::join(w.vlsOfClass[1], ","), w.paths[0] + w.paths[1], w.hops[0] + w.hops[1],
      w.waits.size());
  EXPECT_EQ(w.lost, 0U);
  EXPECT_EQ(w.paths[0], perClass);
  EXPECT_EQ(w.paths[1], perClass);
  // (b) the classes' VLs are disjoint: blocks {0, 1} and {2, 3}.
  EXPECT_EQ(w.vlsOfClass[0], (std::set<std::uint8_t>{0, 1}));
  EXPECT_EQ(w.vlsOfClass[1], (std::set<std::uint8_t>{2, 3}));
  // (a) no cycle on any VL, nor across them.
  for (std::uint8_t vl = 0; vl < 4; ++vl) EXPECT_FALSE(w.cyclic(vl)) << "VL " << int(vl);
  EXPECT_FALSE(w.cyclic(std::nullopt));
}

TEST(DragonflyQos, TheRouteReportWalksOneSlOfEachClassAndFindsNoLoop) {
  const Routed r = routeWithClasses(twoClasses());
  const CreditLoopReport c = findCreditLoops(r.fabric, r.routing);
  EXPECT_TRUE(c.acyclic) << fmt::format("{}", fmt::join(c.cycle, " -> "));
  EXPECT_EQ(c.sls, (std::vector<std::uint8_t>{0, 8}));
  EXPECT_EQ(c.vlsNeeded, 4);
  EXPECT_EQ(c.vlsAnalysed, 4);
  EXPECT_GT(c.dependencies, 0U);
  ASSERT_EQ(c.perVl.size(), 4U);
  for (const auto& v : c.perVl) EXPECT_TRUE(v.acyclic) << int(v.vl);
  // Walking SL 0 alone would leave the second class's VLs unjudged.
  RoutingResult oneSl = r.routing;
  for (Sl2VlEntry& e : oneSl.sl2vl) e.vl.fill(e.vl[0]);
  EXPECT_EQ(findCreditLoops(r.fabric, oneSl).sls, (std::vector<std::uint8_t>{0}));
}

TEST(DragonflyQos, ThreeClassesDoNotFitTheSampleFabricsEightVlsWithoutSaying) {
  qos::QosOptions o = twoClasses();
  o.all.sl2vl = *qos::parseSl2VlOption("0,0,0,0,0,1,1,1,1,1,2,2,2,2,2,2");
  EXPECT_NO_THROW(routeWithClasses(o));  // 3 x 2 = 6 VLs of VL0-7
  o.all.sl2vl = *qos::parseSl2VlOption("0,0,0,1,1,1,2,2,2,3,3,3,4,4,4,4");
  try {
    routeWithClasses(o);
    ADD_FAILURE() << "5 classes x 2 layers planned on VL0-7 ports";
  } catch (const std::runtime_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("5 classes x 2 VL layers need 10 VLs"), std::string::npos) << m;
    EXPECT_NE(m.find("allows 8"), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace ibsm
