#include "sm/health/FlapTracker.h"

#include <algorithm>
#include <iterator>

namespace ibsm::sm::health {
namespace {

// A counter delta is at most this many downs recorded one by one: a port
// whose counter jumped by millions (a reset we missed) must not fill memory.
constexpr std::uint64_t kMaxDownsPerPass = 1000;

}  // namespace

LinkKey linkKey(PortKey x, PortKey y) {
  return x < y ? LinkKey{x, y} : LinkKey{y, x};
}

std::optional<LinkKey> linkAt(const Fabric& fabric, PortRef end) {
  const Port& p = fabric.port(end);
  if (!p.remote) return std::nullopt;
  return linkKey({fabric.node(end.node).guid, end.port},
                 {fabric.node(p.remote->node).guid, p.remote->port});
}

std::vector<LinkKey> linksOf(const Fabric& fabric) {
  std::vector<LinkKey> out;
  for (NodeId id = 0; id < fabric.size(); ++id)
    for (std::uint8_t p = 1; p < fabric.node(id).ports.size(); ++p)
      if (auto k = linkAt(fabric, {id, p}); k && k->a == PortKey{fabric.node(id).guid, p})
        out.push_back(*k);
  std::ranges::sort(out);
  return out;
}

std::vector<LinkKey> linksLost(const std::vector<LinkKey>& before,
                               const std::vector<LinkKey>& after) {
  std::vector<LinkKey> lost;
  std::ranges::set_difference(before, after, std::back_inserter(lost));
  return lost;
}

void FlapTracker::sweepDown(LinkKey link, Clock::time_point at) {
  History& h = links_[link];
  h.downs.push_back(at);
  ++h.sweepDownsSinceCounters;
}

void FlapTracker::counterDowns(LinkKey link, std::uint64_t downs, Clock::time_point at) {
  auto it = links_.find(link);
  const std::uint64_t seen = it == links_.end() ? 0 : it->second.sweepDownsSinceCounters;
  if (it != links_.end()) it->second.sweepDownsSinceCounters = 0;
  if (downs <= seen) return;
  History& h = links_[link];
  for (std::uint64_t i = 0; i < std::min(downs - seen, kMaxDownsPerPass); ++i)
    h.downs.push_back(at);
}

std::vector<Flapping> FlapTracker::flapping(Clock::time_point now, const FlapRule& rule) {
  std::vector<Flapping> out;
  for (auto it = links_.begin(); it != links_.end();) {
    auto& downs = it->second.downs;
    while (!downs.empty() && now - downs.front() > rule.window) downs.pop_front();
    if (downs.size() > rule.count) out.push_back({it->first, downs.size()});
    if (downs.empty() && it->second.sweepDownsSinceCounters == 0)
      it = links_.erase(it);
    else
      ++it;
  }
  return out;
}

}  // namespace ibsm::sm::health
