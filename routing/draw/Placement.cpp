#include "routing/draw/Placement.h"

#include <fmt/format.h>
#include <ibsm/Dragonfly.h>
#include <ibsm/FatTree.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <unordered_map>

namespace ibsm::draw {
namespace {

// Labels are 10px sans-serif; 6px a character errs on the wide side.
constexpr double kCharWidth = 6.0;
constexpr double kGap = 10.0;
// A level wider than this gets narrow boxes with the label written upwards,
// so a 288-switch level stays within a few thousand pixels.
constexpr double kWideRow = 3000.0;

// Each level above the leaves in the order of its cables' mean position
// below (the barycentre heuristic): ftree's canonical order deals a pod's
// aggregation switches out across the whole row, which crosses every
// leaf's cables; sorted this way a pod's switches stand above its leaves.
void orderByBarycentre(const Fabric& fabric, std::vector<std::vector<NodeId>>& levels) {
  std::unordered_map<NodeId, double> position;
  for (std::size_t i = 0; i < levels.front().size(); ++i)
    position[levels.front()[i]] = static_cast<double>(i);
  for (std::size_t l = 1; l < levels.size(); ++l) {
    std::vector<std::pair<double, NodeId>> keyed;
    for (NodeId s : levels[l]) {
      double sum = 0;
      int n = 0;
      for (const Port& port : fabric.node(s).ports)
        if (port.remote)
          if (const auto it = position.find(port.remote->node); it != position.end()) {
            sum += it->second;
            ++n;
          }
      keyed.emplace_back(n == 0 ? std::numeric_limits<double>::max() : sum / n, s);
    }
    std::ranges::stable_sort(keyed, {}, &std::pair<double, NodeId>::first);
    position.clear();
    for (std::size_t i = 0; i < keyed.size(); ++i) {
      levels[l][i] = keyed[i].second;
      position[keyed[i].second] = static_cast<double>(i) *
                                  static_cast<double>(levels.front().size()) /
                                  static_cast<double>(keyed.size());
    }
  }
}

}  // namespace

std::string switchName(const Node& node) {
  return node.description.empty() ? fmt::format("{}", node.guid) : node.description;
}

double boxWidthFor(const Fabric& fabric, const std::vector<NodeId>& switches) {
  std::size_t longest = 4;
  for (NodeId s : switches) longest = std::max(longest, switchName(fabric.node(s)).size());
  return static_cast<double>(longest) * kCharWidth + 8.0;
}

std::optional<Placement> placeByLevels(const Fabric& fabric) {
  auto shape = recogniseFatTree(fabric);
  if (!shape) return std::nullopt;
  std::size_t placed = 0, widest = 0;
  for (const auto& level : shape->levels) {
    placed += level.size();
    widest = std::max(widest, level.size());
  }
  const auto switches = fabric.switches();
  if (placed != switches.size() || shape->levels.empty()) return std::nullopt;
  orderByBarycentre(fabric, shape->levels);

  Placement p{.arrangement = Arrangement::Levels,
              .shape = fmt::format("fat tree, {} levels", shape->levels.size()),
              .switches = {},
              .boxWidth = boxWidthFor(fabric, switches),
              .boxHeight = 18.0};
  if (static_cast<double>(widest) * (p.boxWidth + kGap) > kWideRow)
    std::swap(p.boxWidth, p.boxHeight);  // upright labels: the name runs along the height
  const double pitch = p.boxWidth + kGap;
  const double rowWidth = static_cast<double>(widest) * pitch;
  // Rows far enough apart that the fan of cables between them can be told apart.
  const double rowGap = std::max(160.0, rowWidth / 8.0);
  const auto levels = shape->levels.size();
  for (std::size_t l = 0; l < levels; ++l) {
    const auto& level = shape->levels[l];
    const double start = (rowWidth - static_cast<double>(level.size()) * pitch) / 2.0;
    const double y = static_cast<double>(levels - 1 - l) * rowGap;  // leaves at the bottom
    for (std::size_t i = 0; i < level.size(); ++i)
      p.switches.push_back({.node = level[i],
                            .at = {start + (static_cast<double>(i) + 0.5) * pitch, y},
                            .out = {0.0, 1.0},
                            .tier = static_cast<std::uint32_t>(l)});
  }
  return p;
}

namespace {

Point along(Point centre, double angle, double tangent, double radial) {
  const double c = std::cos(angle), s = std::sin(angle);
  return {centre.x + radial * c - tangent * s, centre.y + radial * s + tangent * c};
}

Point unit(Point from, Point to) {
  const double dx = to.x - from.x, dy = to.y - from.y;
  const double len = std::hypot(dx, dy);
  return len == 0 ? Point{0.0, 1.0} : Point{dx / len, dy / len};
}

// One group at `angle` on the big circle. Dragonfly: its routers on a small
// circle (the local full mesh shows as a wheel). Dragonfly+: spines on a row
// facing the centre (their global links cross the circle), leaves outside.
void placeGroup(const DragonflyShape& shape, const std::vector<NodeId>& members, double angle,
                double radius, double pitch, Placement& p) {
  const Point centre = along({0, 0}, angle, 0.0, radius);
  if (shape.kind == DragonflyKind::Dragonfly) {
    // Roomy enough that a router's host summary fits between its neighbours'.
    const double local = std::max(
        40.0, static_cast<double>(members.size()) * (pitch + 30.0) / (2 * std::numbers::pi));
    for (std::size_t i = 0; i < members.size(); ++i) {
      const double a =
          angle + std::numbers::pi +
          2 * std::numbers::pi * static_cast<double>(i) / static_cast<double>(members.size());
      const Point at = along(centre, a, 0.0, local);
      p.switches.push_back({members[i], at, unit(centre, at), 0});
    }
    return;
  }
  // Leaves' host summaries hang outwards side by side: room for each.
  pitch = std::max(pitch, kHostsBoxWidth + 10.0);
  std::vector<NodeId> rows[2];  // spines, leaves
  for (NodeId n : members) rows[shape.roleOf[n] == DragonflyRole::Spine ? 0 : 1].push_back(n);
  for (int r = 0; r < 2; ++r)
    for (std::size_t i = 0; i < rows[r].size(); ++i) {
      const double t =
          (static_cast<double>(i) - (static_cast<double>(rows[r].size()) - 1) / 2) * pitch;
      const Point at = along(centre, angle, t, r == 0 ? -35.0 : 35.0);
      p.switches.push_back({rows[r][i], at, unit({0, 0}, at), 0});
    }
}

}  // namespace

std::optional<Placement> placeByGroups(const Fabric& fabric) {
  auto shape = recogniseDragonfly(fabric);
  if (!shape || shape->groups == 0) return std::nullopt;
  std::vector<std::vector<NodeId>> groups(shape->groups);
  for (NodeId s : fabric.switches())
    if (shape->groupOf[s] != kNoGroup) groups[shape->groupOf[s]].push_back(s);
  std::size_t placed = 0, largest = 0;
  for (const auto& g : groups) {
    placed += g.size();
    largest = std::max(largest, g.size());
  }
  if (placed != fabric.switches().size()) return std::nullopt;

  Placement p{.arrangement = Arrangement::Groups,
              .shape = describe(*shape),
              .switches = {},
              .boxWidth = boxWidthFor(fabric, fabric.switches()),
              .boxHeight = 18.0};
  const double pitch = p.boxWidth + kGap;
  // Each group takes an arc as long as its widest row or wheel, plus room to breathe.
  const double arc = static_cast<double>(largest) * (pitch + 30.0) * 0.8 + 160.0;
  const double radius =
      std::max(150.0, static_cast<double>(groups.size()) * arc / (2 * std::numbers::pi));
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const double angle = -std::numbers::pi / 2 + 2 * std::numbers::pi * static_cast<double>(g) /
                                                     static_cast<double>(groups.size());
    const auto first = p.switches.size();
    placeGroup(*shape, groups[g], angle, radius, pitch, p);
    for (auto i = first; i < p.switches.size(); ++i)
      p.switches[i].tier = static_cast<std::uint32_t>(g);
  }
  return p;
}

Placement placeSwitches(const Fabric& fabric) {
  // The order the auto engine tries: a dragonfly+ group is also a small fat tree.
  if (auto groups = placeByGroups(fabric)) return std::move(*groups);
  if (auto levels = placeByLevels(fabric)) return std::move(*levels);
  return placeByDistance(fabric);
}

}  // namespace ibsm::draw
