// Routes walked through one LID's row; see DragonflyValiantRoutes.h.
#include "routing/engines/dragonfly/DragonflyValiantRoutes.h"

#include <algorithm>

namespace ibsm::routing::dragonfly {
namespace {

constexpr std::size_t kMaxLids = 16;  // the report judges a port's first 16 LIDs

bool shares(const LaterRoute& a, const LaterRoute& b) {
  for (std::size_t i = 0; i < a.hops; ++i)
    for (std::size_t j = 0; j < b.hops; ++j)
      if (a.channel[i] == b.channel[j]) return true;
  return false;
}

}  // namespace

void walkRoute(const PortMap& ports, const std::uint8_t* row, SwitchIndex d, SwitchIndex s,
               LaterRoute& r) {
  r = LaterRoute{};
  SwitchIndex at = s;
  for (; at != d && r.hops < kMaxLaterHops; ++r.hops) {
    const std::uint8_t p = row[at];
    if (p == kNoRoute || p >= ports.stride || ports.peer[ports.at(at, p)] == kNoSwitch) return;
    const std::size_t c = ports.at(at, p);
    r.channel[r.hops] = static_cast<std::uint32_t>(c);
    r.globals += ports.global[c];
    at = ports.peer[c];
  }
  r.reached = at == d;
}

void markEntered(const PortMap& ports, const std::vector<std::uint32_t>& group,
                 const std::uint8_t* row, SwitchIndex d, std::vector<std::uint8_t>& entered) {
  std::ranges::fill(entered, 0);
  LaterRoute r;
  for (SwitchIndex s = 0; s < group.size(); ++s) {
    if (group[s] == group[d]) continue;
    walkRoute(ports, row, d, s, r);
    for (std::size_t i = 0; i < r.hops; ++i) {
      const SwitchIndex at = ports.peer[r.channel[i]];
      if (at != d && group[at] == group[d]) entered[at] = 1;
    }
  }
}

bool sameRoute(const LaterRoute& a, const LaterRoute& b) {
  return a.hops == b.hops &&
         std::equal(a.channel.begin(), a.channel.begin() + a.hops, b.channel.begin());
}

void addRouteLoads(const SwitchGraph& graph, const PortMap& ports, const std::uint8_t* row,
                   SwitchIndex d, std::vector<std::uint64_t>& load) {
  LaterRoute r;
  for (SwitchIndex s = 0; s < graph.size(); ++s) {
    const std::uint64_t ca = graph.caCount(s);
    if (ca == 0 || s == d) continue;
    walkRoute(ports, row, d, s, r);
    if (r.reached)
      for (std::size_t i = 0; i < r.hops; ++i) load[r.channel[i]] += ca;
  }
}

std::uint64_t rangeConflicts(const SwitchGraph& graph, const PortMap& ports,
                             const DragonflyTables& t, std::size_t base, std::size_t count) {
  const std::size_t n = graph.size();
  const SwitchIndex d = t.targets[base].sw;
  const std::size_t lids = std::min(count, kMaxLids);
  std::array<LaterRoute, kMaxLids> routes;
  std::uint64_t sum = 0;
  for (SwitchIndex s = 0; s < n; ++s) {
    const std::uint64_t ca = graph.caCount(s);
    if (ca == 0 || s == d) continue;
    for (std::size_t k = 0; k < lids; ++k)
      walkRoute(ports, t.out.data() + (base + k) * n, d, s, routes[k]);
    for (std::size_t k = 1; k < lids; ++k)
      for (std::size_t j = 0; j < k; ++j) sum += ca * shares(routes[k], routes[j]);
  }
  return sum;
}

}  // namespace ibsm::routing::dragonfly
