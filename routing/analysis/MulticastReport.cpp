// analyseMulticast(): the figures of a multicast plan and its check. Root
// and cable sharing say how well trees are spread over the spines (OpenSM
// roots every tree at one switch, so one root carries every tree).
#include <ibsm/Report.h>

#include <algorithm>
#include <map>

namespace ibsm {
namespace {

// Trees using each inter-switch cable (either direction counts once).
void countLinks(const Fabric& fabric, const MulticastPlan& plan, MulticastReport& r) {
  std::map<std::pair<PortRef, PortRef>, std::size_t> trees;
  for (NodeId id = 0; id < plan.mfts.size(); ++id) {
    for (const auto& [mlid, mask] : plan.mfts[id].entries) {
      const Node& sw = fabric.node(id);
      for (std::size_t p = 1; p <= sw.numPorts(); ++p) {
        const auto& peer = sw.ports[p].remote;
        if (!mask.test(p) || !peer || !fabric.node(peer->node).isSwitch()) continue;
        const PortRef here{id, static_cast<std::uint8_t>(p)};
        // The far end counts the cable unless this end is the lesser one or
        // the far end does not use it for this MLID.
        const auto& far = plan.mfts[peer->node].entries;
        const auto it = far.find(mlid);
        const bool farUses = it != far.end() && it->second.test(peer->port);
        if (here < *peer || !farUses) ++trees[std::minmax(here, *peer)];
      }
    }
  }
  r.linksUsed = trees.size();
  for (const auto& [link, n] : trees) {
    if (n <= r.maxTreesPerLink) continue;
    r.maxTreesPerLink = n;
    r.busiestLink = fabric.describe(link.first) + " -- " + fabric.describe(link.second);
  }
}

}  // namespace

MulticastReport analyseMulticast(const Fabric& fabric, const MulticastPlan& plan,
                                 const std::vector<McGroupRoute>& groups) {
  MulticastReport r;
  r.groups = plan.trees.size();
  std::map<NodeId, std::size_t> perRoot;
  for (const McTree& t : plan.trees) {
    if (!t.root) continue;
    ++r.groupsWithTree;
    ++perRoot[*t.root];
    r.receivers += t.receivers;
    r.treeSwitches += t.switches;
    r.maxTreeSwitches = std::max(r.maxTreeSwitches, t.switches);
  }
  r.roots = perRoot.size();
  for (const auto& [root, n] : perRoot) {
    r.maxTreesPerRoot = std::max(r.maxTreesPerRoot, n);
    r.minTreesPerRoot = r.minTreesPerRoot == 0 ? n : std::min(r.minTreesPerRoot, n);
  }
  for (const SwitchMft& mft : plan.mfts)
    r.mftEntries += static_cast<std::size_t>(
        std::ranges::count_if(mft.entries, [](const auto& e) { return e.second.any(); }));
  countLinks(fabric, plan, r);
  r.warnings = plan.warnings;
  r.alongUpDown = plan.alongUpDown;
  r.problems = checkMulticast(fabric, plan.mfts, groups);
  return r;
}

}  // namespace ibsm
