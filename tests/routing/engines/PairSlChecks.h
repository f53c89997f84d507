// Walks every (source port, LID) pair of an engine's tables on the SL the
// engine gives it (RoutingResult::pairSls, SL 0 where none), independently of
// the engines: the hop lengths against the cabled graph's shortest, the
// CA-to-CA load on every inter-switch channel, and the channel dependency
// graph whose nodes are (switch, out port, VL), the VL of a hop being the
// switch's SL2VL for the pair's SL on its (in port, out port). Traffic a
// switch sends itself (in port 0, which SL2VL tables here do not name) is
// taken to travel on VL = SL where the result has SL2VL tables.
//
//   const auto walk = walkPairsOnSls(fabric, result);
//   EXPECT_EQ(walk.failures, std::vector<std::string>{});
//   EXPECT_EQ(walk.longer, std::vector<std::string>{});
//   EXPECT_TRUE(walk.acyclic);
#pragma once

#include <fmt/format.h>
#include <ibsm/Fabric.h>
#include <ibsm/Lids.h>
#include <ibsm/Routing.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "tests/routing/engines/RouteChecks.h"

namespace ibsm::testing {

struct PairSlWalk {
  std::vector<std::string> failures;  // pairs not delivered
  std::vector<std::string> longer;    // pairs delivered on more switch hops than the fewest
  std::size_t pairs{0};               // pairs walked to their LID
  std::uint64_t busiest{0};           // most CA-to-CA routes on one channel
  std::set<std::uint8_t> vls;         // VLs the inter-switch hops use
  bool acyclic{true};                 // (channel, VL) dependencies have no cycle
};

namespace detail {

using VlChannel = std::tuple<NodeId, std::uint8_t, std::uint8_t>;  // switch, out port, VL

inline bool acyclic(const std::map<VlChannel, std::set<VlChannel>>& next) {
  std::map<VlChannel, int> indegree;
  for (const auto& [from, tos] : next) {
    indegree.emplace(from, 0);
    for (const auto& to : tos) ++indegree[to];
  }
  std::vector<VlChannel> ready;
  for (const auto& [c, d] : indegree)
    if (d == 0) ready.push_back(c);
  std::size_t sorted = 0;
  while (!ready.empty()) {
    const auto c = ready.back();
    ready.pop_back();
    ++sorted;
    if (const auto it = next.find(c); it != next.end())
      for (const auto& to : it->second)
        if (--indegree[to] == 0) ready.push_back(to);
  }
  return sorted == indegree.size();
}

}  // namespace detail

inline PairSlWalk walkPairsOnSls(const Fabric& f, const RoutingResult& r) {
  PairSlWalk out;
  const LidIndex index(f);
  const auto dist = switchDistances(f);
  std::map<std::pair<Lid, PortRef>, std::uint8_t> slOf;
  for (const PairSl& p : r.pairSls) slOf[{p.dlid, p.source}] = p.sl;
  std::map<std::tuple<NodeId, std::uint8_t, std::uint8_t>, std::array<std::uint8_t, 16>> sl2vl;
  for (const Sl2VlEntry& e : r.sl2vl) sl2vl[{e.sw, e.inPort, e.outPort}] = e.vl;
  std::vector<PortRef> sources;
  for (NodeId n = 0; n < f.size(); ++n)
    for (const std::uint8_t p : f.node(n).endpointPorts())
      if (f.node(n).isSwitch() || deliveringSwitch(f, {n, p})) sources.push_back({n, p});
  std::map<std::pair<NodeId, std::uint8_t>, std::uint64_t> load;
  std::map<detail::VlChannel, std::set<detail::VlChannel>> next;
  for (const PortRef src : sources) {
    const bool fromCa = !f.node(src.node).isSwitch();
    const NodeId first = *deliveringSwitch(f, src);
    for (std::uint16_t lid = 1; lid <= index.maxLid().value; ++lid) {
      const auto owner = index.owner(Lid{lid});
      if (!owner || *owner == src) continue;
      const auto target = deliveringSwitch(f, *owner);
      if (!target) continue;
      const auto sl = slOf.contains({Lid{lid}, src}) ? slOf[{Lid{lid}, src}] : std::uint8_t{0};
      NodeId at = first;
      std::uint8_t in = fromCa ? f.port(src).remote->port : 0;
      std::optional<detail::VlChannel> before;
      int hops = 0;
      std::string failure;
      for (;;) {
        const std::uint8_t port = r.lfts.at(at).at(Lid{lid});
        if (port == kNoRoute || port >= f.node(at).ports.size()) {
          failure = fmt::format("no usable entry at {}", f.node(at).description);
          break;
        }
        const auto& remote = f.node(at).ports[port].remote;
        if (port == 0 || !remote || !f.node(remote->node).isSwitch()) {
          if ((port == 0 ? PortRef{at, 0} : *remote) != *owner) failure = "delivered elsewhere";
          break;
        }
        std::uint8_t vl = 0;
        if (const auto it = sl2vl.find({at, in, port}); it != sl2vl.end())
          vl = it->second[sl];
        else if (!r.sl2vl.empty())
          vl = sl;
        const detail::VlChannel here{at, port, vl};
        out.vls.insert(vl);
        if (before)
          next[*before].insert(here);
        else
          next.try_emplace(here);
        before = here;
        if (fromCa && !f.node(owner->node).isSwitch()) ++load[{at, port}];
        in = remote->port;
        at = remote->node;
        if (++hops > static_cast<int>(f.size())) {
          failure = "forwarding loop";
          break;
        }
      }
      if (!failure.empty()) {
        out.failures.push_back(
            fmt::format("{} -> LID {} on SL {}: {}", f.describe(src), lid, sl, failure));
        continue;
      }
      ++out.pairs;
      if (hops > dist.at({first, *target}))
        out.longer.push_back(fmt::format("{} -> LID {}: {} switch hops where {} would do",
                                         f.describe(src), lid, hops, dist.at({first, *target})));
    }
  }
  for (const auto& [channel, routes] : load) out.busiest = std::max(out.busiest, routes);
  out.acyclic = detail::acyclic(next);
  return out;
}

}  // namespace ibsm::testing
