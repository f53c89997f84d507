// planMulticast(): one tree per group (McTreeBuilder), rooted at one of the
// most central switches of the component that holds most of its members.
#include <fmt/format.h>
#include <ibsm/Multicast.h>

#include <algorithm>
#include <set>

#include "routing/multicast/McMembers.h"
#include "routing/multicast/McRoots.h"
#include "routing/multicast/McTopologyCache.h"
#include "routing/multicast/McTreeBuilder.h"
#include "routing/multicast/McUpDownTree.h"

namespace ibsm {
namespace {

using routing::McRoots;
using routing::PlacedMember;
using routing::SwitchIndex;

Result<void> checkMlids(const std::vector<McGroupRoute>& groups) {
  std::set<std::uint16_t> seen;
  for (const McGroupRoute& g : groups) {
    if (g.mlid < kFirstMlid || g.mlid > kLastMlid)
      return fail(
          fmt::format("MLID {} is not a multicast LID (0xc000-0xfffe)", routing::mlidText(g.mlid)));
    if (!seen.insert(g.mlid.value).second)
      return fail(fmt::format("MLID {} is given to two groups", routing::mlidText(g.mlid)));
  }
  return {};
}

// The component holding most of the members (ties: the lowest); members
// elsewhere cannot be reached from that tree and are left out, with a line
// each in `warnings`.
std::uint32_t keepLargestComponent(const McRoots& roots, Lid mlid,
                                   std::vector<PlacedMember>& members,
                                   std::vector<std::string>& warnings) {
  std::vector<std::size_t> count(roots.components(), 0);
  for (const PlacedMember& m : members) ++count[roots.component(m.sw)];
  const auto c = static_cast<std::uint32_t>(std::ranges::max_element(count) - count.begin());
  std::erase_if(members, [&](const PlacedMember& m) {
    if (roots.component(m.sw) == c) return false;
    warnings.push_back(
        fmt::format("MLID {}: member port {} is in another part of a disconnected fabric than the "
                    "group's tree",
                    routing::mlidText(mlid), m.portGuid));
    return true;
  });
  return c;
}

// One tree per group, by MLID. `follow` (nullable): every tree part of
// that one, rooted at its component's first switch.
MulticastPlan planTrees(const Fabric& fabric, const routing::SwitchGraph& graph, McRoots& roots,
                        const std::vector<const McGroupRoute*>& byMlid,
                        const MulticastOptions& options, const routing::UpDownTree* follow) {
  routing::McTreeBuilder builder(graph);
  builder.follow(follow != nullptr ? &follow->tree : nullptr);
  MulticastPlan plan;
  plan.mfts.resize(fabric.size());
  plan.trees.reserve(byMlid.size());
  for (const McGroupRoute* group : byMlid) {
    McTree tree{.mlid = group->mlid, .root = std::nullopt, .switches = 0, .receivers = 0};
    auto placed = routing::placeMembers(fabric, graph, *group);
    std::ranges::move(placed.problems, std::back_inserter(plan.warnings));
    if (placed.placed.empty()) {
      // A group nobody joined yet (a pre-created one) needs no word.
      if (!group->members.empty())
        plan.warnings.push_back(fmt::format("MLID {}: no member in the fabric, no tree",
                                            routing::mlidText(group->mlid)));
      plan.trees.push_back(tree);
      continue;
    }
    // Only senders: nothing to deliver, so no switch forwards anything.
    if (std::ranges::none_of(placed.placed, [](const PlacedMember& m) { return m.receives; })) {
      plan.trees.push_back(tree);
      continue;
    }
    const std::uint32_t c = keepLargestComponent(roots, group->mlid, placed.placed, plan.warnings);
    // Consecutive MLIDs take turns over the central switches; the trees
    // that share a root turn their choice of parents instead.
    const auto& candidates = roots.candidates(c);
    const std::uint32_t offset = group->mlid.value - kFirstMlid.value;
    const std::size_t spread = options.spreadRoots && !options.oneTree ? candidates.size() : 1;
    const SwitchIndex root = follow != nullptr ? follow->rootOf[c] : candidates[offset % spread];
    const auto rotation = options.oneTree ? 0 : static_cast<std::uint32_t>(offset / spread);
    tree.root = graph.nodeId(root);
    tree.switches = builder.build(group->mlid, root, rotation,
                                  follow != nullptr ? follow->depth : roots.hopsFrom(root),
                                  placed.placed, plan.mfts);
    tree.receivers = static_cast<std::size_t>(
        std::ranges::count_if(placed.placed, [](const PlacedMember& m) { return m.receives; }));
    plan.trees.push_back(tree);
  }
  return plan;
}

}  // namespace

Result<MulticastPlan> planMulticast(const Fabric& fabric, const std::vector<McGroupRoute>& groups,
                                    const MulticastOptions& options) {
  if (auto ok = checkMlids(groups); !ok) return std::unexpected(ok.error());
  const routing::SwitchGraph graph(fabric);
  McTopologyCache ownCache;
  McRoots& roots = routing::rootsFor(graph, options.cache != nullptr ? *options.cache : ownCache);
  std::vector<const McGroupRoute*> byMlid;
  for (const McGroupRoute& g : groups) byMlid.push_back(&g);
  std::ranges::sort(byMlid, {}, [](const McGroupRoute* g) { return g->mlid; });

  MulticastPlan plan = planTrees(fabric, graph, roots, byMlid, options, nullptr);
  // The spread trees keep to updn's order wherever its roots are the
  // central switches (fat trees); planned again only where they do not.
  const auto* order = options.upDownOrder;
  if (order != nullptr && !order->empty() && routing::descendsThenClimbs(graph, plan.mfts, *order))
    if (const auto tree = routing::upDownTree(graph, roots, *order)) {
      plan = planTrees(fabric, graph, roots, byMlid, options, &*tree);
      plan.alongUpDown = true;
    }
  return plan;
}

Gid ipoibBroadcastMgid(std::uint16_t pkey, std::uint8_t scope) {
  const std::uint16_t full = pkey | 0x8000;
  return Gid{0xff,
             static_cast<std::uint8_t>(0x10 | (scope & 0x0f)),
             0x40,
             0x1b,
             static_cast<std::uint8_t>(full >> 8),
             static_cast<std::uint8_t>(full & 0xff),
             0,
             0,
             0,
             0,
             0,
             0,
             0xff,
             0xff,
             0xff,
             0xff};
}

}  // namespace ibsm
