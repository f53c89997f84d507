// Independent checks of engine output for the engine tests: they walk the
// LFTs themselves instead of trusting anything the engine computed, so a
// wrong engine cannot pass by sharing a wrong helper.
//
//   const auto routes = walkAll(fabric, result);
//   EXPECT_EQ(routes.failures, std::vector<std::string>{});
//   EXPECT_TRUE(channelDependenciesAcyclic(fabric, result));
#pragma once

#include <fmt/format.h>
#include <ibsm/Fabric.h>
#include <ibsm/Lids.h>
#include <ibsm/Routing.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <queue>
#include <string>
#include <utility>
#include <vector>

namespace ibsm::testing {

// Switch hops between every pair of switches in the cabled graph (BFS).
inline std::map<std::pair<NodeId, NodeId>, int> switchDistances(const Fabric& f) {
  std::map<std::pair<NodeId, NodeId>, int> out;
  for (const NodeId from : f.switches()) {
    std::map<NodeId, int> dist{{from, 0}};
    std::queue<NodeId> q;
    q.push(from);
    while (!q.empty()) {
      const NodeId u = q.front();
      q.pop();
      for (const Port& p : f.node(u).ports) {
        if (!p.remote || !f.node(p.remote->node).isSwitch()) continue;
        if (dist.emplace(p.remote->node, dist[u] + 1).second) q.push(p.remote->node);
      }
    }
    for (const auto& [to, d] : dist) out[{from, to}] = d;
  }
  return out;
}

// The switch that delivers `owner` (the switch itself, or the one a CA port is
// cabled to); nullopt for a CA port without a cable to a switch.
inline std::optional<NodeId> deliveringSwitch(const Fabric& f, PortRef owner) {
  if (f.node(owner.node).isSwitch()) return owner.node;
  const auto& remote = f.port(owner).remote;
  if (!remote || !f.node(remote->node).isSwitch()) return std::nullopt;
  return remote->node;
}

struct RouteWalk {
  std::vector<std::string> failures;  // one line per switch/LID that was not delivered
  // Switch hops of each delivered (source switch, LID), keyed that way.
  std::map<std::pair<NodeId, std::uint16_t>, int> hops;
};

// Follows the LFTs from every switch to every owned LID whose delivering
// switch is cabled to it through switches; such pairs must arrive at the
// owning port. Pairs in different components must stay unrouted at the source.
inline RouteWalk walkAll(const Fabric& f, const RoutingResult& r) {
  RouteWalk out;
  const LidIndex index(f);
  const auto dist = switchDistances(f);
  for (const NodeId s : f.switches()) {
    for (std::uint16_t lid = 1; lid <= index.maxLid().value; ++lid) {
      const auto owner = index.owner(Lid{lid});
      if (!owner) continue;
      const auto target = deliveringSwitch(f, *owner);
      const bool reachable = target && dist.contains({s, *target});
      NodeId at = s;
      int hops = 0;
      std::string failure;
      for (;;) {
        const std::uint8_t port = r.lfts.at(at).at(Lid{lid});
        if (!reachable) {
          if (port != kNoRoute && at == s)
            failure = fmt::format("routed although unreachable (port {})", port);
          break;
        }
        if (port == kNoRoute) {
          failure = fmt::format("no entry at {}", f.node(at).description);
          break;
        }
        if (port >= f.node(at).ports.size()) {
          failure = fmt::format("port {} does not exist on {}", port, f.node(at).description);
          break;
        }
        if (port == 0 || !f.node(f.port({at, port}).remote->node).isSwitch()) {
          const PortRef delivered = port == 0 ? PortRef{at, 0} : *f.port({at, port}).remote;
          if (delivered != *owner)
            failure = fmt::format("delivered to the wrong port at {}", f.node(at).description);
          break;
        }
        at = f.port({at, port}).remote->node;
        if (++hops > static_cast<int>(f.size())) {
          failure = "forwarding loop";
          break;
        }
      }
      if (!failure.empty())
        out.failures.push_back(
            fmt::format("{} -> LID {}: {}", f.node(s).description, lid, failure));
      else if (reachable)
        out.hops[{s, lid}] = hops;
    }
  }
  return out;
}

// Dally and Seitz: channels are the directed inter-switch cables; c1 -> c2
// when some LFT chain leaves a switch on c1 and the next switch forwards the
// same LID on c2. Deadlock-free when that graph has no cycle (Kahn's sort).
inline bool channelDependenciesAcyclic(const Fabric& f, const RoutingResult& r) {
  std::map<PortRef, std::size_t> channel;
  for (const NodeId s : f.switches())
    for (const Port& p : f.node(s).ports)
      if (p.number != 0 && p.remote && f.node(p.remote->node).isSwitch())
        channel.emplace(PortRef{s, p.number}, channel.size());
  std::vector<std::vector<std::size_t>> next(channel.size());
  const LidIndex index(f);
  for (std::uint16_t lid = 1; lid <= index.maxLid().value; ++lid) {
    for (const auto& [from, c1] : channel) {
      if (r.lfts.at(from.node).at(Lid{lid}) != from.port) continue;
      const NodeId t = f.port(from).remote->node;
      const std::uint8_t out = r.lfts.at(t).at(Lid{lid});
      if (const auto it = channel.find(PortRef{t, out}); it != channel.end())
        next[c1].push_back(it->second);
    }
  }
  std::vector<std::size_t> indegree(channel.size(), 0);
  for (auto& targets : next) {
    std::ranges::sort(targets);
    targets.erase(std::ranges::unique(targets).begin(), targets.end());
    for (const auto c : targets) ++indegree[c];
  }
  std::vector<std::size_t> ready;
  for (std::size_t c = 0; c < indegree.size(); ++c)
    if (indegree[c] == 0) ready.push_back(c);
  std::size_t sorted = 0;
  while (!ready.empty()) {
    const auto c = ready.back();
    ready.pop_back();
    ++sorted;
    for (const auto d : next[c])
      if (--indegree[d] == 0) ready.push_back(d);
  }
  return sorted == channel.size();
}

}  // namespace ibsm::testing
