// Recognition works on the cabling only. Dragonfly+ is told by its layers:
// the switches with hosts are leaves, the others spines, and the leaf-spine
// cables bind a group. A dragonfly has no layers: its groups are the meshes
// of local links, found from the cabling that remains (DragonflyGroups.h),
// so a group missing local cables still comes out whole.
#include <fmt/format.h>
#include <ibsm/Dragonfly.h>

#include <algorithm>

#include "routing/engines/dragonfly/DragonflyCabling.h"
#include "routing/engines/dragonfly/DragonflyGroups.h"
#include "routing/engines/dragonfly/DragonflyMissing.h"

namespace ibsm {
namespace {

using routing::SwitchGraph;
using routing::SwitchIndex;
using routing::dragonfly::Neighbours;
using routing::dragonfly::switchName;

MinMax span(const std::vector<std::uint32_t>& values) {
  if (values.empty()) return {};
  const auto [lo, hi] = std::ranges::minmax(values);
  return {lo, hi};
}

// Figures shared by both shapes, from group of each switch (by switch index)
// and which switches carry global links (routers, or spines).
Result<DragonflyShape> summarise(const Fabric& f, const SwitchGraph& g, const Neighbours& nb,
                                 const std::vector<std::uint32_t>& group, std::uint32_t groups,
                                 DragonflyKind kind, const std::vector<DragonflyRole>& role) {
  DragonflyShape shape;
  shape.kind = kind;
  shape.groups = groups;
  shape.groupOf.assign(f.size(), kNoGroup);
  shape.roleOf.assign(f.size(), DragonflyRole::None);
  if (groups < 2) return fail("only one group: no global links to route over");

  std::vector<std::uint32_t> members(groups, 0), leaves(groups, 0);
  std::vector<std::uint32_t> pairLinks(std::size_t{groups} * groups, 0);
  std::vector<std::uint32_t> hosts, globals;
  for (SwitchIndex s = 0; s < g.size(); ++s) {
    shape.groupOf[g.nodeId(s)] = group[s];
    shape.roleOf[g.nodeId(s)] = role[s];
    ++members[group[s]];
    if (role[s] == DragonflyRole::Leaf) ++leaves[group[s]];
    if (role[s] != DragonflyRole::Spine) hosts.push_back(static_cast<std::uint32_t>(g.caCount(s)));
    std::uint32_t global = 0;
    g.forEachCable(s, [&](SwitchIndex t, const routing::Cable&) {
      if (group[t] == group[s]) return;
      ++global;
      ++pairLinks[std::size_t{group[s]} * groups + group[t]];
    });
    if (role[s] != DragonflyRole::Leaf) globals.push_back(global);
  }
  for (std::uint32_t gr = 1; gr < groups; ++gr)
    if (members[gr] != members[0] || leaves[gr] != leaves[0])
      return fail(fmt::format(
          "groups differ: group 0 has {} switches ({} with hosts), group {} has {} ({})",
          members[0], leaves[0], gr, members[gr], leaves[gr]));
  shape.switchesPerGroup = members[0];
  shape.leavesPerGroup = kind == DragonflyKind::DragonflyPlus ? leaves[0] : 0;
  shape.hostsPerSwitch = span(hosts);
  shape.globalsPerSwitch = span(globals);

  std::vector<std::uint32_t> perPair;
  for (std::uint32_t a = 0; a < groups; ++a)
    for (std::uint32_t b = a + 1; b < groups; ++b) {
      perPair.push_back(pairLinks[std::size_t{a} * groups + b]);
      if (perPair.back() == 0) ++shape.unlinkedGroupPairs;
    }
  shape.globalsPerGroupPair = span(perPair);
  routing::dragonfly::findMissingCables(g, nb, group, role, shape);
  return shape;
}

Result<DragonflyShape> recognisePlus(const Fabric& f, const SwitchGraph& g, const Neighbours& nb) {
  const std::size_t n = g.size();
  std::vector<DragonflyRole> role(n);
  for (SwitchIndex s = 0; s < n; ++s)
    role[s] = g.caCount(s) > 0 ? DragonflyRole::Leaf : DragonflyRole::Spine;
  routing::dragonfly::UnionFind dsu(n);
  for (SwitchIndex s = 0; s < n; ++s) {
    if (role[s] != DragonflyRole::Leaf) continue;
    for (const SwitchIndex t : nb[s]) {
      if (role[t] == DragonflyRole::Leaf)
        return fail(
            fmt::format("leaf {} is cabled to leaf {}", switchName(f, g, s), switchName(f, g, t)));
      dsu.unite(s, t);
    }
  }
  std::vector<bool> hasLeaf(n, false);
  for (SwitchIndex s = 0; s < n; ++s)
    if (role[s] == DragonflyRole::Leaf) hasLeaf[dsu.find(s)] = true;
  for (SwitchIndex s = 0; s < n; ++s)
    if (!hasLeaf[dsu.find(s)])
      return fail(fmt::format("spine {} is cabled to no leaf", switchName(f, g, s)));
  // Groups numbered 0.. in order of their first switch.
  std::vector<std::uint32_t> group(n, kNoGroup), id(n, kNoGroup);
  std::uint32_t groups = 0;
  for (SwitchIndex s = 0; s < n; ++s) {
    const std::uint32_t root = dsu.find(s);
    if (id[root] == kNoGroup) id[root] = groups++;
    group[s] = id[root];
  }
  for (SwitchIndex s = 0; s < n; ++s)
    for (const SwitchIndex t : nb[s])
      if (role[s] == DragonflyRole::Spine && role[t] == DragonflyRole::Spine &&
          group[s] == group[t])
        return fail(fmt::format("spines {} and {} of one group are cabled to each other",
                                switchName(f, g, s), switchName(f, g, t)));
  return summarise(f, g, nb, group, groups, DragonflyKind::DragonflyPlus, role);
}

Result<DragonflyShape> recogniseMesh(const Fabric& f, const SwitchGraph& g, const Neighbours& nb) {
  const auto groups = routing::dragonfly::findMeshGroups(f, g, nb);
  if (!groups) return std::unexpected(groups.error());
  auto shape = summarise(f, g, nb, groups->group, groups->count, DragonflyKind::Dragonfly,
                         std::vector<DragonflyRole>(g.size(), DragonflyRole::Router));
  if (!shape) return shape;
  const std::uint64_t a = shape->switchesPerGroup;
  if (shape->missingLocalLinks * 4 > std::uint64_t{groups->count} * a * (a - 1) / 2)
    return fail(fmt::format("a quarter or more of the local links are missing ({})",
                            shape->missingLocalLinks));
  return shape;
}

}  // namespace

Result<DragonflyShape> recogniseDragonfly(const Fabric& fabric) {
  const SwitchGraph g(fabric);
  if (g.size() < 6) return fail("fewer than 6 switches");
  const auto nb = routing::dragonfly::neighbours(g);
  bool withHosts = false, withoutHosts = false;
  for (SwitchIndex s = 0; s < g.size(); ++s) (g.caCount(s) > 0 ? withHosts : withoutHosts) = true;
  if (!withHosts) return fail("no switch has hosts");
  if (!withoutHosts) return recogniseMesh(fabric, g, nb);
  auto plus = recognisePlus(fabric, g, nb);
  if (plus) return plus;
  auto mesh = recogniseMesh(fabric, g, nb);
  if (mesh) return mesh;
  return fail(fmt::format("not a dragonfly+ ({}) nor a dragonfly ({})", plus.error().message,
                          mesh.error().message));
}

}  // namespace ibsm
