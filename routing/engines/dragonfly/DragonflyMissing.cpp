// Local cables are missing by definition: a group pair (dragonfly) or a
// leaf-spine pair (dragonfly+) of a group not cabled. Global cables can only
// be inferred: a full dragonfly gives every switch that carries global links
// as many as the others (h), and every group pair at least floor(group's
// global ports / (groups - 1)) cables. A pair below that lacks cables; their
// ends are switches short of h, one in each group where the count tells.
#include "routing/engines/dragonfly/DragonflyMissing.h"

#include <algorithm>

namespace ibsm::routing::dragonfly {
namespace {

void findMissingLocal(const SwitchGraph& g, const Neighbours& nb,
                      const std::vector<std::uint32_t>& group,
                      const std::vector<DragonflyRole>& role, DragonflyShape& shape) {
  std::vector<std::vector<SwitchIndex>> byGroup(shape.groups);
  for (SwitchIndex s = 0; s < g.size(); ++s) byGroup[group[s]].push_back(s);
  for (std::uint32_t gr = 0; gr < shape.groups; ++gr) {
    const auto& members = byGroup[gr];
    for (std::size_t i = 0; i < members.size(); ++i)
      for (std::size_t j = i + 1; j < members.size(); ++j) {
        const SwitchIndex s = members[i], t = members[j];
        const bool wanted = shape.kind == DragonflyKind::Dragonfly || role[s] != role[t];
        if (wanted && !adjacent(nb, s, t))
          shape.missingLocal.push_back({gr, gr, g.nodeId(s), g.nodeId(t)});
      }
    if (shape.kind != DragonflyKind::Dragonfly) continue;
    for (const SwitchIndex s : members)
      if (std::ranges::none_of(nb[s], [&](SwitchIndex t) { return group[t] == gr; }))
        shape.stranded.push_back(g.nodeId(s));
  }
  shape.missingLocalLinks = shape.missingLocal.size();
}

// The first switch of `gr` still short of global links, taking one from it.
std::optional<NodeId> takeShort(const SwitchGraph& g, const std::vector<std::uint32_t>& group,
                                std::vector<std::uint32_t>& deficit, std::uint32_t gr) {
  for (SwitchIndex s = 0; s < g.size(); ++s)
    if (group[s] == gr && deficit[s] > 0) {
      --deficit[s];
      return g.nodeId(s);
    }
  return std::nullopt;
}

void findMissingGlobal(const SwitchGraph& g, const std::vector<std::uint32_t>& group,
                       const std::vector<DragonflyRole>& role, DragonflyShape& shape) {
  const std::uint32_t groups = shape.groups;
  std::vector<std::uint32_t> globals(g.size(), 0), pair(std::size_t{groups} * groups, 0);
  std::uint32_t carriers = 0, h = 0;  // per group; most global links of a switch
  for (SwitchIndex s = 0; s < g.size(); ++s) {
    g.forEachCable(s, [&](SwitchIndex t, const Cable&) {
      if (group[t] == group[s]) return;
      ++globals[s];
      ++pair[std::size_t{group[s]} * groups + group[t]];
    });
    if (role[s] == DragonflyRole::Leaf) continue;
    h = std::max(h, globals[s]);
    carriers += group[s] == 0;
  }
  std::vector<std::uint32_t> deficit(g.size(), 0);
  for (SwitchIndex s = 0; s < g.size(); ++s)
    if (role[s] != DragonflyRole::Leaf) deficit[s] = h - globals[s];
  const std::uint32_t perPair = carriers * h / (groups - 1);
  for (std::uint32_t x = 0; x < groups; ++x)
    for (std::uint32_t y = x + 1; y < groups; ++y)
      for (std::uint32_t k = pair[std::size_t{x} * groups + y]; k < perPair; ++k)
        shape.missingGlobal.push_back(
            {x, y, takeShort(g, group, deficit, x), takeShort(g, group, deficit, y)});
  // Switches still short lack cables on pairs that may have one more than
  // the floor: two of them in groups below that are taken as each other's
  // far end; the rest's far group is not told.
  const std::uint32_t ceilPair = (carriers * h + groups - 2) / (groups - 1);
  for (SwitchIndex s = 0; s < g.size(); ++s)
    for (SwitchIndex t = s + 1; t < g.size() && deficit[s] > 0; ++t) {
      const std::size_t k = std::size_t{group[s]} * groups + group[t];
      if (deficit[t] == 0 || group[t] == group[s] || pair[k] >= ceilPair) continue;
      --deficit[s], --deficit[t], ++pair[k];
      ++pair[std::size_t{group[t]} * groups + group[s]];
      shape.missingGlobal.push_back({group[s], group[t], g.nodeId(s), g.nodeId(t)});
      t = s;  // s may lack more than one
    }
  for (SwitchIndex s = 0; s < g.size(); ++s)
    for (; deficit[s] > 0; --deficit[s])
      shape.missingGlobal.push_back({group[s], kNoGroup, g.nodeId(s), std::nullopt});
}

}  // namespace

void findMissingCables(const SwitchGraph& g, const Neighbours& nb,
                       const std::vector<std::uint32_t>& group,
                       const std::vector<DragonflyRole>& role, DragonflyShape& shape) {
  findMissingLocal(g, nb, group, role, shape);
  findMissingGlobal(g, group, role, shape);
}

}  // namespace ibsm::routing::dragonfly
