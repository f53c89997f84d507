// checkMulticast(): judges MFTs by walking them, whoever wrote them (the
// planner, a dump of a live fabric): a packet entering a switch leaves by
// every port of the MLID's mask but the one it came in by. Every mask bit
// is looked at on its own (non-member ports and dead branches need no source
// to be wrong). A group whose masks form one tree that holds every member
// once is right from any source, which is checked in O(tree + members);
// any other group is flooded from each switch with members, and the floods
// say what is wrong.
#include <fmt/format.h>
#include <ibsm/Multicast.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "routing/multicast/McMembers.h"

namespace ibsm {
namespace {

using routing::mlidText;
using routing::PlacedMember;

constexpr int kNoInPort = -1;
constexpr std::size_t kProblemsPerGroup = 10;

// A switch that holds an entry for the group's MLID, and that entry.
struct TreeSwitch {
  NodeId id;
  const McPortMask* mask;
};

class GroupCheck {
 public:
  GroupCheck(const Fabric& fabric, const std::vector<SwitchMft>& mfts, Lid mlid,
             const std::vector<PlacedMember>& members)
      : fabric_(fabric), mfts_(mfts), mlid_(mlid), members_(members) {
    for (const PlacedMember& m : members)
      if (m.receives) receivers_.insert(m.portGuid);
  }

  std::vector<std::string> run() {
    std::vector<TreeSwitch> tree;
    for (NodeId id = 0; id < mfts_.size() && id < fabric_.size(); ++id) {
      if (const McPortMask* mask = maskOf(id)) {
        judgeMask(id, *mask);
        tree.push_back({id, mask});
      }
    }
    std::map<NodeId, std::vector<const PlacedMember*>> sources;
    for (const PlacedMember& m : members_) {
      const NodeId sw = switchOf(m);
      sources[sw].push_back(&m);
    }
    if (!deliversOnceFromAnywhere(tree, sources)) {
      seen_.assign(fabric_.size(), 0);
      for (const auto& [sw, here] : sources) flood(sw, here);
    }
    return std::move(problems_);
  }

 private:
  NodeId switchOf(const PlacedMember& m) const {
    const auto ref = *fabric_.findPort(m.portGuid);
    return fabric_.node(ref.node).isSwitch() ? ref.node : fabric_.port(ref).remote->node;
  }
  const McPortMask* maskOf(NodeId id) const {
    if (id >= mfts_.size()) return nullptr;
    const auto it = mfts_[id].entries.find(mlid_.value);
    return it == mfts_[id].entries.end() ? nullptr : &it->second;
  }
  void report(std::string what) {
    problems_.push_back(fmt::format("MLID {}: {}", mlidText(mlid_), what));
  }

  // The port behind bit p of switch `id`: nullopt for port 0 (the switch
  // itself) and for a port without cable.
  std::optional<PortRef> behind(NodeId id, std::size_t p) const {
    return p == 0 ? std::nullopt : fabric_.node(id).ports[p].remote;
  }

  void judgeMask(NodeId id, const McPortMask& mask) {
    const Node& sw = fabric_.node(id);
    for (std::size_t p = 0; p < mask.size(); ++p) {
      if (!mask.test(p)) continue;
      const PortRef here{id, static_cast<std::uint8_t>(p)};
      if (p > sw.numPorts()) {
        report(fmt::format("switch {} has no port {} but its mask names it",
                           fabric_.describe({id, 0}), p));
        continue;
      }
      const auto peer = behind(id, p);
      if (p == 0 && !receivers_.contains(sw.guid))
        report(
            fmt::format("non-member port: {} is not a receiving member", fabric_.describe(here)));
      if (p == 0) continue;
      if (!peer) {
        report(fmt::format("dead branch: {} has no cable", fabric_.describe(here)));
      } else if (!fabric_.node(peer->node).isSwitch()) {
        if (!receivers_.contains(fabric_.port(*peer).guid))
          report(fmt::format("non-member port: {} leads to {}, not a receiving member",
                             fabric_.describe(here), fabric_.describe(*peer)));
      } else if (!reachesReceiver(*peer)) {
        report(fmt::format("dead branch: {} leads to no receiving member", fabric_.describe(here)));
      }
    }
  }

  // Whether a packet entering at `entry` (a switch port) reaches a receiver.
  bool reachesReceiver(PortRef entry) {
    if (const auto it = reaches_.find(entry); it != reaches_.end()) return it->second;
    std::vector<PortRef> queue{entry};
    std::set<NodeId> visited{entry.node};
    bool found = false;
    for (std::size_t i = 0; i < queue.size() && !found; ++i) {
      const McPortMask* mask = maskOf(queue[i].node);
      for (std::size_t p = 0; mask && p < mask->size() && !found; ++p) {
        if (!mask->test(p) || p == queue[i].port || p > fabric_.node(queue[i].node).numPorts())
          continue;
        const auto peer = behind(queue[i].node, p);
        if (p == 0)
          found = receivers_.contains(fabric_.node(queue[i].node).guid);
        else if (peer && !fabric_.node(peer->node).isSwitch())
          found = receivers_.contains(fabric_.port(*peer).guid);
        else if (peer && visited.insert(peer->node).second)
          queue.push_back(*peer);
      }
    }
    reaches_[entry] = found;
    return found;
  }

  // Whether every flood would find nothing wrong, proved in O(tree +
  // members) rather than walking the tree once per source switch: when the
  // masks' switch-to-switch bits pair up (each cable in both ends' masks or
  // in neither) into one tree without cycles, a packet from any tree switch
  // crosses each of its cables once, so every CA bit and port 0 bit gets one
  // copy and no switch is reached twice. Then each receiver's port must be
  // in exactly one mask and each source switch in the tree. Anything else
  // (a loop, a cable used one way, a missing receiver) is left to the
  // floods, which say what is wrong.
  bool deliversOnceFromAnywhere(const std::vector<TreeSwitch>& tree,
                                const std::map<NodeId, std::vector<const PlacedMember*>>& sources) {
    // Position in `tree` (sorted by NodeId) of a switch with an entry.
    const auto slot = [&](NodeId id) -> std::optional<std::uint32_t> {
      const auto it = std::ranges::lower_bound(tree, id, {}, &TreeSwitch::id);
      if (it == tree.end() || it->id != id) return std::nullopt;
      return static_cast<std::uint32_t>(it - tree.begin());
    };
    std::vector<std::uint32_t> set(tree.size());
    for (std::uint32_t i = 0; i < set.size(); ++i) set[i] = i;
    const auto find = [&](std::uint32_t v) {
      while (set[v] != v) v = set[v] = set[set[v]];
      return v;
    };
    std::unordered_map<Guid, std::uint32_t> copies;
    std::size_t cables = 0;
    for (std::uint32_t i = 0; i < tree.size(); ++i) {
      const auto [id, mask] = tree[i];
      for (std::size_t p = 0; p <= fabric_.node(id).numPorts(); ++p) {
        if (!mask->test(p)) continue;
        const auto peer = behind(id, p);
        if (p == 0) {
          ++copies[fabric_.node(id).guid];
        } else if (peer && !fabric_.node(peer->node).isSwitch()) {
          ++copies[fabric_.port(*peer).guid];
        } else if (peer) {
          const auto far = slot(peer->node);
          if (!far || !tree[*far].mask->test(peer->port)) return false;     // used one way
          if (*peer < PortRef{id, static_cast<std::uint8_t>(p)}) continue;  // counted from there
          const std::uint32_t a = find(i);
          const std::uint32_t b = find(*far);
          if (a == b) return false;  // a cycle (or a cable from a switch to itself)
          set[a] = b;
          ++cables;
        }
      }
    }
    if (cables + 1 != tree.size()) return false;  // not one tree
    for (const auto& [sw, here] : sources)
      if (!slot(sw)) return false;
    return std::ranges::all_of(members_, [&](const PlacedMember& r) {
      const auto it = copies.find(r.portGuid);
      return !r.receives || (it != copies.end() && it->second == 1);
    });
  }

  // A packet reaching a switch: walked on the first and the second time
  // (so the copies a loop or a second path delivers are counted), dropped
  // after, so a loop ends.
  void arrive(PortRef at, Guid source, std::vector<std::pair<NodeId, int>>& queue,
              std::vector<NodeId>& touched, bool& looped) {
    const std::uint32_t times = ++seen_[at.node];
    if (times == 1) touched.push_back(at.node);
    if (times == 2 && !looped) {
      looped = true;
      report(fmt::format("loop: a packet from member {} reaches switch {} twice", source,
                         fabric_.describe({at.node, 0})));
    }
    if (times <= 2) queue.emplace_back(at.node, at.port);
  }

  // One packet from the members on switch `sw`: it enters by a CA port (or
  // port 0) that is not in any other switch's mask, so one walk serves them
  // all; each then needs one copy at every other receiver.
  void flood(NodeId sw, const std::vector<const PlacedMember*>& here) {
    std::unordered_map<Guid, std::uint32_t> copies;
    std::vector<std::pair<NodeId, int>> queue{{sw, kNoInPort}};
    std::vector<NodeId> touched{sw};
    seen_[sw] = 1;
    bool looped = false;
    for (std::size_t i = 0; i < queue.size(); ++i) {
      const auto [id, in] = queue[i];
      const McPortMask* mask = maskOf(id);
      for (std::size_t p = 0; mask && p <= fabric_.node(id).numPorts(); ++p) {
        if (!mask->test(p) || static_cast<int>(p) == in) continue;
        const auto peer = behind(id, p);
        if (p == 0)
          ++copies[fabric_.node(id).guid];
        else if (peer && !fabric_.node(peer->node).isSwitch())
          ++copies[fabric_.port(*peer).guid];
        else if (peer)
          arrive(*peer, here.front()->portGuid, queue, touched, looped);
      }
    }
    for (const NodeId id : touched) seen_[id] = 0;
    for (const PlacedMember& r : members_) {
      if (!r.receives) continue;
      // r's own packet never comes back by the port it left.
      const auto other = std::ranges::find_if(
          here, [&](const PlacedMember* s) { return s->portGuid != r.portGuid; });
      if (other == here.end()) continue;
      const std::uint32_t n = copies[r.portGuid];
      if (n == 0)
        report(fmt::format("missing member: {} gets no copy of a packet from member {}", r.portGuid,
                           (*other)->portGuid));
      else if (n > 1)
        report(fmt::format("double copy: {} gets {} copies of a packet from member {}", r.portGuid,
                           n, (*other)->portGuid));
    }
  }

  const Fabric& fabric_;
  const std::vector<SwitchMft>& mfts_;
  Lid mlid_;
  const std::vector<PlacedMember>& members_;
  std::set<Guid> receivers_;
  std::vector<std::uint32_t> seen_;  // by NodeId, while flooding
  std::map<PortRef, bool> reaches_;
  std::vector<std::string> problems_;
};

}  // namespace

std::vector<std::string> checkMulticast(const Fabric& fabric, const std::vector<SwitchMft>& mfts,
                                        const std::vector<McGroupRoute>& groups) {
  std::vector<std::string> problems;
  std::set<std::uint16_t> known;
  for (const McGroupRoute& g : groups) known.insert(g.mlid.value);
  for (NodeId id = 0; id < mfts.size() && id < fabric.size(); ++id)
    for (const auto& [mlid, mask] : mfts[id].entries)
      if (!known.contains(mlid) && mask.any())
        problems.push_back(
            fmt::format("MLID {}: stray entry: switch {} holds it but no group has it",
                        mlidText(Lid{mlid}), fabric.describe({id, 0})));
  const routing::SwitchGraph graph(fabric);
  for (const McGroupRoute& g : groups) {
    const auto placed = routing::placeMembers(fabric, graph, g);
    auto found = GroupCheck(fabric, mfts, g.mlid, placed.placed).run();
    const std::size_t total = found.size();
    if (total > kProblemsPerGroup) {
      found.resize(kProblemsPerGroup);
      found.push_back(fmt::format("MLID {}: ... and {} more problems", mlidText(g.mlid),
                                  total - kProblemsPerGroup));
    }
    std::ranges::move(found, std::back_inserter(problems));
  }
  return problems;
}

}  // namespace ibsm
