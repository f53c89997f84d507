// Every pair of a routing result walked on the SL the engine gives it
// (RoutingResult::pairSls; SL 0 where none), through the LFTs and SL2VL
// tables, independently of the engine and of the report: where each pair
// arrives, how many switch hops it takes, and whether the channel
// dependencies of all pairs, each on its own SL's VLs, form a cycle.
//
//   const PairSlWalk walk = walkPairsOnTheirSls(fabric, result);
//   EXPECT_TRUE(walk.acyclic);
#pragma once

#include <ibsm/Fabric.h>
#include <ibsm/Routing.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

namespace ibsm::testing {

struct PairSlWalk {
  std::size_t pairs{0};
  std::size_t delivered{0};
  std::size_t dropped{0};  // a hop mapped the pair's SL to VL 15
  std::size_t onSl[16]{};  // pairs walked per SL
  bool acyclic{true};
  // Per (source port, destination LID) walked: switch hops.
  std::map<std::pair<PortRef, std::uint16_t>, std::size_t> hops;
};

namespace detail {

using Sl2VlIndex = std::map<std::tuple<NodeId, std::uint8_t, std::uint8_t>, const Sl2VlEntry*>;

// VL 0 where no entry is given (as ForwardingView reads it).
inline std::uint8_t vlOf(const Sl2VlIndex& index, NodeId sw, std::uint8_t in, std::uint8_t out,
                         std::uint8_t sl) {
  const auto it = index.find({sw, in, out});
  return it == index.end() ? 0 : it->second->vl[sl];
}

// A channel: (switch, out port, VL).
using Channel = std::tuple<NodeId, std::uint8_t, std::uint8_t>;

inline bool acyclic(const std::map<Channel, std::set<Channel>>& deps) {
  std::map<Channel, int> colour;  // 0 white, 1 grey, 2 black
  for (const auto& [start, _] : deps) {
    if (colour[start] != 0) continue;
    std::vector<std::pair<Channel, std::set<Channel>::const_iterator>> stack;
    const auto edges = [&](const Channel& c) -> const std::set<Channel>& {
      static const std::set<Channel> none;
      const auto it = deps.find(c);
      return it == deps.end() ? none : it->second;
    };
    colour[start] = 1;
    stack.emplace_back(start, edges(start).begin());
    while (!stack.empty()) {
      auto& [node, it] = stack.back();
      if (it == edges(node).end()) {
        colour[node] = 2;
        stack.pop_back();
        continue;
      }
      const Channel next = *it++;
      if (colour[next] == 1) return false;
      if (colour[next] == 0) {
        colour[next] = 1;
        stack.emplace_back(next, edges(next).begin());
      }
    }
  }
  return true;
}

}  // namespace detail

// Sources: every CA port with a LID and every switch's port 0; destinations:
// every LID of every such port (LMC ranges whole).
inline PairSlWalk walkPairsOnTheirSls(const Fabric& fabric, const RoutingResult& result) {
  std::map<std::pair<std::uint16_t, PortRef>, std::uint8_t> slOf;
  for (const PairSl& p : result.pairSls) slOf[{p.dlid.value, p.source}] = p.sl;
  struct End {
    PortRef port;
    Lid base;
    std::uint8_t lmc;
  };
  std::vector<End> ends;
  for (NodeId id = 0; id < fabric.size(); ++id) {
    const Node& n = fabric.node(id);
    for (const Port& p : n.ports) {
      if (p.lid.value == 0 || (n.isSwitch() ? p.number != 0 : !p.remote)) continue;
      ends.push_back({{id, p.number}, p.lid, p.lmc});
    }
  }
  detail::Sl2VlIndex index;
  for (const Sl2VlEntry& e : result.sl2vl) index[{e.sw, e.inPort, e.outPort}] = &e;
  PairSlWalk out;
  std::map<detail::Channel, std::set<detail::Channel>> deps;
  for (const End& src : ends)
    for (const End& dst : ends) {
      if (src.port == dst.port) continue;
      for (unsigned layer = 0; layer < (1u << dst.lmc); ++layer) {
        const Lid lid{static_cast<std::uint16_t>(dst.base.value + layer)};
        const auto found = slOf.find({lid.value, src.port});
        const std::uint8_t sl = found == slOf.end() ? 0 : found->second;
        ++out.pairs;
        ++out.onSl[sl];
        const bool fromSwitch = fabric.node(src.port.node).isSwitch();
        NodeId at = fromSwitch ? src.port.node : fabric.port(src.port).remote->node;
        std::uint8_t in = fromSwitch ? 0 : fabric.port(src.port).remote->port;
        std::optional<detail::Channel> previous;
        std::size_t switchHops = 0;
        for (std::size_t guard = 0; guard <= fabric.size(); ++guard) {
          const std::uint8_t port = result.lfts.at(at).at(lid);
          if (port == kNoRoute || port > fabric.node(at).numPorts()) break;
          if (port == 0) {  // the switch itself
            if (at == dst.port.node) ++out.delivered, out.hops[{src.port, lid.value}] = switchHops;
            break;
          }
          const auto& remote = fabric.node(at).ports[port].remote;
          if (!remote) break;
          const std::uint8_t vl = detail::vlOf(index, at, in, port, sl);
          if (vl == 15) {
            ++out.dropped;
            break;
          }
          const detail::Channel here{at, port, vl};
          if (previous) deps[*previous].insert(here);
          previous = here;
          if (!fabric.node(remote->node).isSwitch()) {
            if (*remote == dst.port) ++out.delivered, out.hops[{src.port, lid.value}] = switchHops;
            break;
          }
          ++switchHops;
          at = remote->node;
          in = remote->port;
        }
      }
    }
  out.acyclic = detail::acyclic(deps);
  return out;
}

}  // namespace ibsm::testing
