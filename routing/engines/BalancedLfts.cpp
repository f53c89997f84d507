#include "routing/engines/BalancedLfts.h"

#include <fmt/format.h>
#include <ibsm/Lids.h>

#include <algorithm>
#include <span>

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

// The engine's routes toward one destination switch, and the order in which
// switches decide: farthest first.
class RoutesToward {
 public:
  void load(const PathChoices& choices, SwitchIndex d, std::size_t switches) {
    length_.resize(switches);
    begin_.resize(switches + 1);
    ports_.clear();
    order_.clear();
    for (SwitchIndex s = 0; s < switches; ++s) {
      begin_[s] = static_cast<std::uint32_t>(ports_.size());
      length_[s] = s == d ? 0 : choices.length(s, d);
      if (s == d || length_[s] == kUnreachable) continue;
      choices.candidates(s, d, ports_);
      order_.push_back(s);
    }
    begin_[switches] = static_cast<std::uint32_t>(ports_.size());
    std::ranges::stable_sort(order_, std::greater{}, [&](SwitchIndex s) { return length_[s]; });
  }

  std::span<const std::uint8_t> candidates(SwitchIndex s) const {
    return std::span(ports_).subspan(begin_[s], begin_[s + 1] - begin_[s]);
  }
  std::span<const SwitchIndex> order() const { return order_; }

 private:
  std::vector<std::uint16_t> length_;
  std::vector<std::uint32_t> begin_;  // per switch, into ports_
  std::vector<std::uint8_t> ports_;
  std::vector<SwitchIndex> order_;
};

// Per switch, the switch behind each port (kNoSwitch for none).
std::vector<std::vector<SwitchIndex>> remotes(const SwitchGraph& graph) {
  std::vector<std::vector<SwitchIndex>> out(graph.size());
  for (SwitchIndex s = 0; s < graph.size(); ++s)
    graph.forEachCable(s, [&](SwitchIndex t, const Cable& cable) {
      if (cable.port >= out[s].size()) out[s].resize(cable.port + 1u, kNoSwitch);
      out[s][cable.port] = t;
    });
  return out;
}

constexpr std::size_t kMaxRange = 128;  // LIDs of an LMC 7 range

}  // namespace

BalancedLfts fillBalancedLfts(const Fabric& fabric, const SwitchGraph& graph,
                              const PathChoices& choices) {
  const std::size_t n = graph.size();
  const auto targets = lidTargets(fabric, graph);
  BalancedLfts out;
  out.lfts.resize(fabric.size());
  for (SwitchIndex s = 0; s < n; ++s)
    out.lfts[graph.nodeId(s)].port.assign(targets.size(), kNoRoute);

  std::vector<bool> unreachable(targets.size(), false);
  std::vector<std::vector<std::uint16_t>> lidsBehind(n);
  std::vector<SwitchIndex> destinations;
  for (std::size_t lid = 1; lid < targets.size(); ++lid) {
    const LidTarget& t = targets[lid];
    if (t.sw == kNoSwitch) {
      if (t.owned) {
        out.unroutedEntries += n;
        unreachable[lid] = n > 0;
      }
      continue;
    }
    out.lfts[graph.nodeId(t.sw)].port[lid] = t.switchPort;
    if (lidsBehind[t.sw].empty()) destinations.push_back(t.sw);
    lidsBehind[t.sw].push_back(static_cast<std::uint16_t>(lid));
  }

  std::vector<PortBalancer> balancers;
  for (SwitchIndex s = 0; s < n; ++s) balancers.push_back(PortBalancer::forSwitch(graph, s));
  const auto remoteOf = remotes(graph);
  std::vector<std::uint32_t> traffic(n, 0);  // host ports routing the LID through each switch
  std::vector<std::uint8_t> rangeChoices(n * kMaxRange);
  RoutesToward toward;

  for (const SwitchIndex d : destinations) {
    if (!choices.forLid) toward.load(choices, d, n);
    for (const std::uint16_t lid : lidsBehind[d]) {
      const LidTarget& t = targets[lid];
      if (choices.forLid) {
        choices.forLid(Lid{lid}, d, t.switchPort);
        toward.load(choices, d, n);
      }
      const std::size_t cut = n - 1 - toward.order().size();
      if (cut > 0) {
        out.unroutedEntries += cut;
        unreachable[lid] = true;
      }
      for (const SwitchIndex s : toward.order())
        traffic[s] = static_cast<std::uint32_t>(graph.caCount(s));
      traffic[d] = 0;
      for (const SwitchIndex s : toward.order()) {
        const auto ports = toward.candidates(s);
        if (ports.empty()) {  // the engine broke its contract; leave it visible
          ++out.unroutedEntries;
          unreachable[lid] = true;
          continue;
        }
        std::uint8_t* range = rangeChoices.data() + std::size_t{s} * kMaxRange;
        const auto offset = std::min<std::size_t>(t.rangeOffset, kMaxRange - 1);
        const auto port = balancers[s].pick(ports, std::span(range, offset), t.kind);
        balancers[s].assign(port, t.kind, traffic[s]);
        out.lfts[graph.nodeId(s)].port[lid] = port;
        range[offset] = port;
        if (port < remoteOf[s].size() && remoteOf[s][port] != kNoSwitch)
          traffic[remoteOf[s][port]] += traffic[s];
      }
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
