#include "routing/engines/PortBalancer.h"

#include <algorithm>
#include <tuple>
#include <unordered_map>

namespace ibsm::routing {

PortBalancer::PortBalancer(const std::vector<SwitchIndex>& remoteOf)
    : group_(remoteOf.size(), kNoGroup) {
  std::unordered_map<SwitchIndex, std::uint32_t> groupOf;
  for (std::size_t p = 0; p < remoteOf.size(); ++p) {
    if (remoteOf[p] == kNoSwitch) continue;
    const auto [it, added] =
        groupOf.try_emplace(remoteOf[p], static_cast<std::uint32_t>(groupOf.size()));
    group_[p] = it->second;
  }
  for (auto& uses : use_) uses.assign(remoteOf.size(), 0);
  for (auto& uses : groupUse_) uses.assign(groupOf.size(), 0);
}

PortBalancer PortBalancer::forSwitch(const SwitchGraph& graph, SwitchIndex s) {
  std::vector<SwitchIndex> remoteOf;
  graph.forEachCable(s, [&](SwitchIndex target, const Cable& cable) {
    if (cable.port >= remoteOf.size()) remoteOf.resize(cable.port + 1u, kNoSwitch);
    remoteOf[cable.port] = target;
  });
  return PortBalancer(remoteOf);
}

PortBalancer::Use PortBalancer::groupUse(std::uint8_t port, LidKind kind) const {
  const auto group = groupOf(port);
  return group == kNoGroup ? use(port, kind) : groupUse_[index(kind)][group];
}

std::uint8_t PortBalancer::pick(std::span<const std::uint8_t> candidates,
                                std::span<const std::uint8_t> siblings, LidKind kind) const {
  const auto other = kind == LidKind::Ca ? LidKind::Switch : LidKind::Ca;
  const auto own = [&](std::uint8_t port) { return use(port, kind); };
  // (remote switch used by the range, port used by the range)
  const auto rangeUse = [&](std::uint8_t port) {
    bool remote = false;
    bool same = false;
    for (const std::uint8_t s : siblings) {
      same = same || s == port;
      remote = remote || s == port || (groupOf(s) != kNoGroup && groupOf(s) == groupOf(port));
    }
    return std::pair(remote, same);
  };
  const auto tieBreak = [&](std::uint8_t a, std::uint8_t b) {
    if (const auto c = groupUse(a, kind) <=> groupUse(b, kind); c != 0) return c < 0;
    if (const auto c = count(a, other) <=> count(b, other); c != 0) return c < 0;
    return a < b;
  };
  std::uint8_t best = candidates.front();
  if (!siblings.empty()) {
    for (const std::uint8_t port : candidates.subspan(1)) {
      const auto r = std::tuple(rangeUse(port), own(port));
      const auto rb = std::tuple(rangeUse(best), own(best));
      if (r < rb || (r == rb && tieBreak(port, best))) best = port;
    }
    return best;
  }
  // The hot path (millions of calls on large fabrics): the port's own use
  // decides almost always; the other keys only break ties.
  Use bestUse = own(best);
  for (const std::uint8_t port : candidates.subspan(1)) {
    const Use use = own(port);
    if (use < bestUse || (use == bestUse && tieBreak(port, best))) {
      best = port;
      bestUse = use;
    }
  }
  return best;
}

void PortBalancer::assign(std::uint8_t port, LidKind kind, std::uint32_t weight) {
  if (port >= group_.size()) {
    group_.resize(port + 1u, kNoGroup);
    for (auto& uses : use_) uses.resize(port + 1u, 0);
  }
  const auto add = [&](Use& use) {
    const Use oldWeight = use >> 32;
    const Use newWeight = std::min<Use>(oldWeight + weight, 0xFFFFFFFFu);
    use = (newWeight << 32) | ((use & 0xFFFFFFFFu) + 1);
  };
  add(use_[index(kind)][port]);
  if (group_[port] != kNoGroup) add(groupUse_[index(kind)][group_[port]]);
}

}  // namespace ibsm::routing
