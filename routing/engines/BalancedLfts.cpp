#include "BalancedLfts.h"

#include <fmt/format.h>
#include <ibsm/Lids.h>

#include <algorithm>

namespace ibsm::routing {

std::vector<LidTarget> lidTargets(const Fabric& fabric, const SwitchGraph& graph) {
  const LidIndex index(fabric);
  std::vector<LidTarget> targets(std::size_t{index.maxLid().value} + 1);
  for (std::size_t lid = 1; lid < targets.size(); ++lid)
    targets[lid].owned = index.owner(Lid{static_cast<std::uint16_t>(lid)}).has_value();
  for (SwitchIndex s = 0; s < graph.size(); ++s) {
    for (const Endpoint& e : graph.endpoints(s)) {
      if (!e.base.value) continue;
      const std::size_t count = std::size_t{1} << e.lmc;
      for (std::size_t i = 0; i < count && e.base.value + i < targets.size(); ++i) {
        LidTarget& t = targets[e.base.value + i];
        if (t.sw != kNoSwitch) continue;  // a LID claimed twice: the first claim wins
        t = LidTarget{s, e.switchPort, static_cast<std::uint8_t>(i),
                      e.switchPort == 0 ? LidKind::Switch : LidKind::Ca, true};
      }
    }
  }
  return targets;
}

namespace {

// The candidate lists of one source switch, asked for once per destination
// switch and kept while that switch's LIDs are walked.
class CandidateCache {
 public:
  CandidateCache(std::size_t switches, const CandidatePorts& candidates)
      : begin_(switches), end_(switches), candidates_(candidates) {}

  void reset(SwitchIndex s) {
    source_ = s;
    std::ranges::fill(begin_, kUnset);
    ports_.clear();
  }

  std::span<const std::uint8_t> of(SwitchIndex d) {
    if (begin_[d] == kUnset) {
      begin_[d] = static_cast<std::uint32_t>(ports_.size());
      candidates_(source_, d, ports_);
      end_[d] = static_cast<std::uint32_t>(ports_.size());
    }
    return std::span(ports_).subspan(begin_[d], end_[d] - begin_[d]);
  }

 private:
  static constexpr std::uint32_t kUnset = ~std::uint32_t{0};
  SwitchIndex source_{0};
  std::vector<std::uint32_t> begin_;  // per destination switch, into ports_
  std::vector<std::uint32_t> end_;
  std::vector<std::uint8_t> ports_;
  const CandidatePorts& candidates_;
};

}  // namespace

BalancedLfts fillBalancedLfts(const Fabric& fabric, const SwitchGraph& graph,
                              const CandidatePorts& candidates) {
  const auto targets = lidTargets(fabric, graph);
  BalancedLfts out;
  out.lfts.resize(fabric.size());
  std::vector<bool> unreachable(targets.size(), false);
  CandidateCache cache(graph.size(), candidates);
  std::vector<std::uint8_t> siblings;

  for (SwitchIndex s = 0; s < graph.size(); ++s) {
    cache.reset(s);
    auto balancer = PortBalancer::forSwitch(graph, s);
    auto& lft = out.lfts[graph.nodeId(s)].port;
    lft.assign(targets.size(), kNoRoute);
    for (std::size_t lid = 1; lid < targets.size(); ++lid) {
      const LidTarget& t = targets[lid];
      if (t.rangeOffset == 0) siblings.clear();
      if (t.sw == s) {
        lft[lid] = t.switchPort;
        continue;
      }
      const auto ports = t.sw == kNoSwitch ? std::span<const std::uint8_t>{} : cache.of(t.sw);
      if (ports.empty()) {
        if (t.owned) {
          ++out.unroutedEntries;
          unreachable[lid] = true;
        }
        continue;
      }
      const auto port = balancer.pick(ports, siblings, t.kind);
      balancer.assign(port, t.kind);
      siblings.push_back(port);
      lft[lid] = port;
    }
  }
  out.unreachableLids = static_cast<std::size_t>(std::ranges::count(unreachable, true));
  return out;
}

std::optional<std::string> unroutedNote(const BalancedLfts& tables) {
  if (tables.unroutedEntries == 0) return std::nullopt;
  return fmt::format(
      "{} LIDs are unreachable from at least one switch ({} switch/LID entries left unrouted)",
      tables.unreachableLids, tables.unroutedEntries);
}

}  // namespace ibsm::routing
