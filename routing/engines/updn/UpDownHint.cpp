#include "routing/engines/updn/UpDownHint.h"

#include <algorithm>
#include <cstdint>
#include <tuple>

namespace ibsm::routing::updn {

std::vector<bool> previousBridges(const SwitchGraph& graph, std::span<const SwitchIndex> roots,
                                  PreviousChains& chains) {
  std::vector<bool> isRoot(graph.size(), false), out(graph.size(), false);
  for (const SwitchIndex r : roots) isRoot[r] = true;
  for (const SwitchIndex r : roots) {
    const Lid lid = graph.endpoints(r).front().base;
    if (lid.value == 0) continue;
    chains.judge(lid, r, 0);
    for (const SwitchIndex s : roots) {
      std::size_t steps = 0;
      for (SwitchIndex at = s == r ? kNoSwitch : chains.next(s);
           at != kNoSwitch && at != r && steps++ < graph.size(); at = chains.next(at))
        out[at] = out[at] || !isRoot[at];
    }
  }
  return out;
}

namespace {

// Per switch, its previous chains to and from the others that still hold,
// and how many of those are shortest.
struct ChainShares {
  std::vector<std::uint32_t> held, shortest;
  bool above(SwitchIndex a, SwitchIndex b) const {  // a's share beats b's
    return std::uint64_t{shortest[a]} * held[b] > std::uint64_t{shortest[b]} * held[a];
  }
};

ChainShares shares(const SwitchGraph& graph, std::span<const SwitchIndex> component,
                   PreviousChains& chains) {
  ChainShares out{std::vector<std::uint32_t>(graph.size(), 0),
                  std::vector<std::uint32_t>(graph.size(), 0)};
  for (const SwitchIndex t : component) {
    const Lid lid = graph.endpoints(t).front().base;
    if (lid.value == 0) continue;
    chains.judge(lid, t, 0);
    const auto hops = graph.hopsFrom(t);  // cables run both ways: hops to t
    for (const SwitchIndex s : component) {
      if (s == t || !chains.holds(s)) continue;
      const bool isShortest = chains.length(s) == hops[s];
      ++out.held[s];
      ++out.held[t];
      out.shortest[s] += isShortest;
      out.shortest[t] += isShortest;
    }
  }
  return out;
}

// Whether the chain from s climbs, then only descends, in the order of
// `rank` (hops from a root), ties by index (the graph's GUID order).
bool legalFrom(SwitchIndex s, SwitchIndex t, const PreviousChains& chains,
               const std::vector<std::uint16_t>& rank) {
  bool descending = false;
  for (SwitchIndex at = s; at != t; at = chains.next(at)) {
    const SwitchIndex next = chains.next(at);
    const bool up = std::tie(rank[next], next) < std::tie(rank[at], at);
    if (up && descending) return false;
    descending = descending || !up;
  }
  return true;
}

constexpr std::size_t kMaxCandidates = 8;

}  // namespace

std::optional<SwitchIndex> previousCentre(const SwitchGraph& graph,
                                          std::span<const SwitchIndex> component,
                                          SwitchIndex centre, PreviousChains& chains) {
  // Every chain from the previous root only descends and every chain to it
  // only climbs: all are shortest. The switches with the best share of
  // shortest chains are the candidates (a lost cable near the root breaks
  // some of its chains, not the share); the one whose order keeps the most
  // chains legal is the previous root.
  const ChainShares share = shares(graph, component, chains);
  std::vector<SwitchIndex> candidates{centre};
  SwitchIndex top = centre;
  for (const SwitchIndex s : component)
    if (share.above(s, top)) top = s;
  for (const SwitchIndex s : component)
    if (s != centre && !share.above(top, s) && candidates.size() < kMaxCandidates)
      candidates.push_back(s);
  if (candidates.size() == 1) return std::nullopt;
  std::vector<std::vector<std::uint16_t>> rank;
  for (const SwitchIndex c : candidates) rank.push_back(graph.hopsFrom(c));
  std::vector<std::uint64_t> legal(candidates.size(), 0);
  for (const SwitchIndex t : component) {
    const Lid lid = graph.endpoints(t).front().base;
    if (lid.value == 0) continue;
    chains.judge(lid, t, 0);
    for (const SwitchIndex s : component)
      if (s != t && chains.holds(s))
        for (std::size_t i = 0; i < candidates.size(); ++i)
          legal[i] += legalFrom(s, t, chains, rank[i]);
  }
  const auto best = std::ranges::max_element(legal) - legal.begin();  // the first: centre on a tie
  if (best == 0) return std::nullopt;
  return candidates[static_cast<std::size_t>(best)];
}

}  // namespace ibsm::routing::updn
