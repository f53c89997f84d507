#include "PortBalancer.h"

#include <algorithm>
#include <tuple>
#include <unordered_map>

namespace ibsm::routing {

PortBalancer::PortBalancer(const std::vector<SwitchIndex>& remoteOf) : ports_(remoteOf.size()) {
  std::unordered_map<SwitchIndex, std::uint32_t> groupOf;
  for (std::size_t p = 0; p < remoteOf.size(); ++p) {
    if (remoteOf[p] == kNoSwitch) continue;
    const auto [it, added] =
        groupOf.try_emplace(remoteOf[p], static_cast<std::uint32_t>(groupOf.size()));
    ports_[p].group = it->second;
  }
  groups_.resize(groupOf.size());
}

PortBalancer PortBalancer::forSwitch(const SwitchGraph& graph, SwitchIndex s) {
  std::vector<SwitchIndex> remoteOf;
  graph.forEachCable(s, [&](SwitchIndex target, const Cable& cable) {
    if (cable.port >= remoteOf.size()) remoteOf.resize(cable.port + 1u, kNoSwitch);
    remoteOf[cable.port] = target;
  });
  return PortBalancer(remoteOf);
}

std::uint32_t PortBalancer::groupLoad(std::uint8_t port, LidKind kind) const {
  if (port >= ports_.size()) return 0;
  const auto group = ports_[port].group;
  return group == kNoGroup ? ports_[port].load[index(kind)] : groups_[group][index(kind)];
}

std::uint8_t PortBalancer::pick(std::span<const std::uint8_t> candidates,
                                std::span<const std::uint8_t> siblings, LidKind kind) const {
  const auto other = kind == LidKind::Ca ? LidKind::Switch : LidKind::Ca;
  const auto sameRemote = [&](std::uint8_t a, std::uint8_t b) {
    if (a == b) return true;
    if (a >= ports_.size() || b >= ports_.size()) return false;
    return ports_[a].group != kNoGroup && ports_[a].group == ports_[b].group;
  };
  const auto rank = [&](std::uint8_t port) {
    const bool remoteUsed =
        std::ranges::any_of(siblings, [&](std::uint8_t s) { return sameRemote(s, port); });
    const bool portUsed = std::ranges::find(siblings, port) != siblings.end();
    return std::tuple(remoteUsed, portUsed, load(port, kind), groupLoad(port, kind),
                      load(port, other), port);
  };
  std::uint8_t best = candidates.front();
  auto bestRank = rank(best);
  for (const std::uint8_t port : candidates.subspan(1)) {
    const auto r = rank(port);
    if (r < bestRank) {
      best = port;
      bestRank = r;
    }
  }
  return best;
}

void PortBalancer::assign(std::uint8_t port, LidKind kind) {
  if (port >= ports_.size()) ports_.resize(port + 1u);
  ++ports_[port].load[index(kind)];
  if (ports_[port].group != kNoGroup) ++groups_[ports_[port].group][index(kind)];
}

}  // namespace ibsm::routing
