// Forwarding tables written by hand for the report's tests, by switch and
// destination name, plus a plain shortest-path routing to have a correct
// table for any fabric. Test-only helpers.
//
//   HandTables t(fabric);
//   t.deliverLocally().toward("s0", "s1", 3).toward("s1", "s0", 3);
//   RouteReport r = analyseRoutes(fabric, t.result());
#pragma once

#include <ibsm/Fabric.h>
#include <ibsm/Routing.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "routing/graph/SwitchGraph.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::testing {

// Every LID a port holds.
inline std::vector<Lid> lidsOf(const Port& port) {
  std::vector<Lid> out;
  if (port.lid.value == 0) return out;
  for (unsigned k = 0; k < (1u << port.lmc); ++k)
    out.push_back(Lid{static_cast<std::uint16_t>(port.lid.value + k)});
  return out;
}

// The base LID of a node's port (port 0 of a switch by default).
inline Lid lidOf(const Fabric& f, std::string_view name, std::uint8_t port = 0) {
  const Node& n = f.node(nodeNamed(f, name));
  return n.ports.at(n.isSwitch() ? port : (port == 0 ? 1 : port)).lid;
}

class HandTables {
 public:
  explicit HandTables(const Fabric& fabric) : fabric_(fabric) {
    result_.engine = "by hand";
    result_.lfts.resize(fabric.size());
    for (const NodeId id : fabric.switches()) result_.lfts[id].port.assign(1024, kNoRoute);
  }

  HandTables& set(std::string_view at, Lid lid, std::uint8_t port) {
    lft(at).port.at(lid.value) = port;
    return *this;
  }

  // Each switch delivers its own LID (port 0) and the LIDs of CA ports cabled to it.
  HandTables& deliverLocally() {
    for (const NodeId id : fabric_.switches()) {
      const Node& sw = fabric_.node(id);
      for (const Lid l : lidsOf(sw.ports[0])) result_.lfts[id].port.at(l.value) = 0;
      for (std::size_t p = 1; p < sw.ports.size(); ++p) {
        const auto& remote = sw.ports[p].remote;
        if (!remote || fabric_.node(remote->node).isSwitch()) continue;
        for (const Lid l : lidsOf(fabric_.port(*remote)))
          result_.lfts[id].port.at(l.value) = static_cast<std::uint8_t>(p);
      }
    }
    return *this;
  }

  // `at` sends every LID of switch `to`, and of the CA ports cabled to it, out `port`.
  HandTables& toward(std::string_view at, std::string_view to, std::uint8_t port) {
    for (const Lid l : lidsBehind(to)) set(at, l, port);
    return *this;
  }

  std::vector<Lid> lidsBehind(std::string_view switchName) const {
    const Node& sw = fabric_.node(nodeNamed(fabric_, switchName));
    std::vector<Lid> out = lidsOf(sw.ports[0]);
    for (std::size_t p = 1; p < sw.ports.size(); ++p) {
      const auto& remote = sw.ports[p].remote;
      if (!remote || fabric_.node(remote->node).isSwitch()) continue;
      for (const Lid l : lidsOf(fabric_.port(*remote))) out.push_back(l);
    }
    return out;
  }

  Lft& lft(std::string_view at) { return result_.lfts.at(nodeNamed(fabric_, at)); }
  RoutingResult& result() { return result_; }

 private:
  const Fabric& fabric_;
  RoutingResult result_;
};

// Shortest switch paths: toward each LID, a switch picks among its cables to
// switches one hop nearer the destination's switch the (LID mod count)-th.
// Between hosts of a fat tree these paths are up*/down*; toward switch LIDs
// some go down and up again (agg -> edge -> agg), as OpenSM's minhop does.
inline RoutingResult shortestPathTables(const Fabric& fabric) {
  const routing::SwitchGraph g(fabric);
  RoutingResult r;
  r.engine = "shortest paths (test)";
  r.lfts.resize(fabric.size());
  std::uint32_t maxLid = 0;
  for (const Node& n : fabric.nodes())
    for (const std::uint8_t p : n.endpointPorts())
      if (n.ports[p].lid.value)
        maxLid = std::max<std::uint32_t>(maxLid, n.ports[p].lid.value + (1u << n.ports[p].lmc));
  for (routing::SwitchIndex s = 0; s < g.size(); ++s)
    r.lfts[g.nodeId(s)].port.assign(maxLid + 1, kNoRoute);
  // Per source switch, the ports one hop nearer the destination's switch.
  std::vector<std::vector<std::uint8_t>> nearer(g.size());
  for (routing::SwitchIndex t = 0; t < g.size(); ++t) {
    const auto dist = g.hopsFrom(t);
    for (routing::SwitchIndex s = 0; s < g.size(); ++s) {
      nearer[s].clear();
      g.forEachCable(s, [&](routing::SwitchIndex to, const routing::Cable& c) {
        if (dist[s] != routing::kUnreachable && dist[to] + 1 == dist[s])
          nearer[s].push_back(c.port);
      });
    }
    for (const auto& e : g.endpoints(t)) {
      for (unsigned k = 0; e.base.value && k < (1u << e.lmc); ++k) {
        const auto lid = static_cast<std::uint16_t>(e.base.value + k);
        for (routing::SwitchIndex s = 0; s < g.size(); ++s) {
          if (s == t)
            r.lfts[g.nodeId(s)].port[lid] = e.switchPort;
          else if (!nearer[s].empty())
            r.lfts[g.nodeId(s)].port[lid] = nearer[s][lid % nearer[s].size()];
        }
      }
    }
  }
  return r;
}

}  // namespace ibsm::testing
