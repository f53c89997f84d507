// Fabrics that are neither fat tree nor dragonfly: rings of BFS distance
// from a centre switch, each ring in BFS discovery order so that a switch
// sits near the ring's other children of its parent.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <numbers>
#include <unordered_map>

#include "routing/draw/Placement.h"

namespace ibsm::draw {
namespace {

constexpr std::uint32_t kUnreached = ~std::uint32_t{0};

struct Bfs {
  std::vector<std::uint32_t> distance;  // by switch index
  std::vector<std::size_t> parent;
  std::vector<std::size_t> order;  // discovery order
};

Bfs bfs(const std::vector<std::vector<std::size_t>>& adjacent, std::size_t from) {
  Bfs r{std::vector<std::uint32_t>(adjacent.size(), kUnreached),
        std::vector<std::size_t>(adjacent.size(), from),
        {}};
  std::deque<std::size_t> queue{from};
  r.distance[from] = 0;
  while (!queue.empty()) {
    const std::size_t s = queue.front();
    queue.pop_front();
    r.order.push_back(s);
    for (std::size_t t : adjacent[s])
      if (r.distance[t] == kUnreached) {
        r.distance[t] = r.distance[s] + 1;
        r.parent[t] = s;
        queue.push_back(t);
      }
  }
  return r;
}

std::size_t farthest(const Bfs& r) {
  return r.order.back();
}

// The middle of a longest shortest path found by two sweeps: a centre that
// keeps the rings few, without a BFS from every switch.
std::size_t centreOf(const std::vector<std::vector<std::size_t>>& adjacent) {
  const std::size_t a = farthest(bfs(adjacent, 0));
  const Bfs fromA = bfs(adjacent, a);
  std::size_t s = farthest(fromA);
  for (std::uint32_t steps = fromA.distance[s] / 2; steps > 0; --steps) s = fromA.parent[s];
  return s;
}

}  // namespace

Placement placeByDistance(const Fabric& fabric) {
  const auto switches = fabric.switches();
  Placement p{.arrangement = Arrangement::Distance,
              .shape = {},
              .switches = {},
              .boxWidth = boxWidthFor(fabric, switches),
              .boxHeight = 18.0};
  if (switches.empty()) return p;
  std::unordered_map<NodeId, std::size_t> index;
  for (std::size_t i = 0; i < switches.size(); ++i) index[switches[i]] = i;
  std::vector<std::vector<std::size_t>> adjacent(switches.size());
  for (std::size_t i = 0; i < switches.size(); ++i)
    for (const Port& port : fabric.node(switches[i]).ports)
      if (port.remote && fabric.node(port.remote->node).isSwitch())
        adjacent[i].push_back(index.at(port.remote->node));

  const std::size_t centre = centreOf(adjacent);
  const Bfs r = bfs(adjacent, centre);
  std::vector<std::vector<std::size_t>> rings;
  for (std::size_t s : r.order) {
    if (rings.size() <= r.distance[s]) rings.resize(r.distance[s] + 1);
    rings[r.distance[s]].push_back(s);
  }
  std::vector<std::size_t> unreached;
  for (std::size_t s = 0; s < switches.size(); ++s)
    if (r.distance[s] == kUnreached) unreached.push_back(s);
  if (!unreached.empty()) rings.push_back(unreached);  // apart from the centre's component

  p.shape = fmt::format("{} rings of BFS distance from {}", rings.size(),
                        switchName(fabric.node(switches[centre])));
  const double pitch = p.boxWidth + 10.0;
  double radius = 0;
  for (std::size_t d = 0; d < rings.size(); ++d) {
    const auto n = static_cast<double>(rings[d].size());
    if (d > 0) radius = std::max(radius + 90.0, n * pitch / (2 * std::numbers::pi));
    for (std::size_t i = 0; i < rings[d].size(); ++i) {
      const double angle =
          -std::numbers::pi / 2 + 2 * std::numbers::pi * static_cast<double>(i) / n;
      const Point out{std::cos(angle), std::sin(angle)};
      const Point at{radius * out.x, radius * out.y};
      p.switches.push_back({switches[rings[d][i]], at, d == 0 ? Point{0.0, 1.0} : out,
                            static_cast<std::uint32_t>(d)});
    }
  }
  return p;
}

}  // namespace ibsm::draw
