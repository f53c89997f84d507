// planMulticast(): one tree per group (McTreeBuilder), rooted at one of the
// most central switches of the component that holds most of its members, or
// along the routes' order where such a tree could turn down then up
// (McUpDownTree.h OrderCheck).
#include <fmt/format.h>
#include <ibsm/Multicast.h>

#include <algorithm>
#include <optional>
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

// Where one group's tree grows from: spread over the component's central
// switches by MLID, or, where `order` finds such trees could pass copies
// down into a switch and up out of it, along the order's tree.
struct TreeStart {
  SwitchIndex root;
  std::uint32_t rotation;
  const std::vector<std::uint16_t>* hops;
  const routing::OneTree* follow;  // nullptr: the spread tree's own cables
};

TreeStart treeStart(McRoots& roots, std::uint32_t c, Lid mlid,
                    const std::vector<PlacedMember>& members, const MulticastOptions& options,
                    routing::OrderCheck* order) {
  // Consecutive MLIDs take turns over the central switches; the trees
  // that share a root turn their choice of parents instead.
  const auto& candidates = roots.candidates(c);
  const std::uint32_t offset = mlid.value - kFirstMlid.value;
  const std::size_t spread = options.spreadRoots && !options.oneTree ? candidates.size() : 1;
  const SwitchIndex root = candidates[offset % spread];
  const auto rotation = options.oneTree ? 0 : static_cast<std::uint32_t>(offset / spread);
  const auto& hops = roots.hopsFrom(root);
  if (order != nullptr && !order->keeps(root, rotation, hops, members))
    if (const routing::UpDownTree* along = order->alongTree(roots))
      return {along->rootOf[c], 0, &along->depth, &along->tree};
  return {root, rotation, &hops, nullptr};
}

// One tree per group, by MLID.
MulticastPlan planTrees(const Fabric& fabric, const routing::SwitchGraph& graph, McRoots& roots,
                        const std::vector<const McGroupRoute*>& byMlid,
                        const MulticastOptions& options) {
  std::optional<routing::OrderCheck> order;
  if (options.upDownOrder != nullptr && !options.upDownOrder->empty())
    order.emplace(graph, *options.upDownOrder);
  routing::McTreeBuilder builder(graph);
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
    const TreeStart start =
        treeStart(roots, c, group->mlid, placed.placed, options, order ? &*order : nullptr);
    builder.follow(start.follow);
    plan.alongUpDown += start.follow != nullptr;
    tree.root = graph.nodeId(start.root);
    tree.switches = builder.build(group->mlid, start.root, start.rotation, *start.hops,
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

  return planTrees(fabric, graph, roots, byMlid, options);
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
