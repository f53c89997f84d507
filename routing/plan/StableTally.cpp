#include "routing/plan/StableTally.h"

#include <ibsm/MadAttributes.h>
#include <ibsm/ParallelFor.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <tuple>

namespace ibsm::stable {
namespace {

// Kept and fresh entries of a taker's tables sized for every LID present,
// a row of 64 switches at a time: kept where the chain holds and the entry
// did not change.
bool tallyRows(const std::vector<Target>& present, const HeldChains& held,
               const PreviousHolds& changed, const std::vector<std::size_t>& sized,
               StableRoutesStats& stats) {
  // Every table holds every LID present: each below the shortest table
  // (one look, not one per switch and LID).
  const std::size_t shortest = sized.empty() ? SIZE_MAX : std::ranges::min(sized);
  for (const Target& t : present)
    if (t.lid.value >= shortest) return false;
  for (const Target& t : present) {
    const std::uint64_t* holds = held.holds.bits.data() + t.lid.value * held.holds.words;
    const std::uint64_t* moved =
        t.lid.value < changed.lids ? changed.bits.data() + t.lid.value * changed.words : nullptr;
    std::uint64_t kept = 0;
    for (std::size_t w = 0; w < held.holds.words; ++w)
      kept += static_cast<unsigned>(std::popcount(holds[w] & ~(moved ? moved[w] : 0u)));
    stats.kept += kept;
    stats.fromFresh += sized.size() - kept;
  }
  return true;
}

}  // namespace

std::vector<Target> targets(const routing::SwitchGraph& graph) {
  std::vector<Target> out;
  for (routing::SwitchIndex s = 0; s < graph.size(); ++s)
    for (const routing::Endpoint& e : graph.endpoints(s)) {
      if (e.base.value == 0) continue;
      for (std::uint32_t k = 0; k < (1u << e.lmc) && e.base.value + k <= kMaxUnicastLid; ++k)
        out.push_back({Lid{static_cast<std::uint16_t>(e.base.value + k)}, s, e.switchPort});
    }
  return out;
}

// Entries toward LIDs no port holds now keep their previous value: a host
// that comes back finds its routes where they were.
void keepAbsentLids(const std::vector<Target>& present, const std::vector<Lft>& previous,
                    RoutingResult& out) {
  std::vector<bool> live;
  for (const Target& t : present) {
    if (live.size() <= t.lid.value) live.resize(t.lid.value + 1u, false);
    live[t.lid.value] = true;
  }
  // The absent LIDs once, rather than a look-up per entry of every table.
  std::size_t longest = 0;
  for (const Lft& t : previous) longest = std::max(longest, t.port.size());
  std::vector<std::size_t> absent;
  for (std::size_t lid = 1; lid < longest; ++lid)
    if (lid >= live.size() || !live[lid]) absent.push_back(lid);
  for (NodeId s = 0; s < out.lfts.size() && s < previous.size(); ++s) {
    auto& port = out.lfts[s].port;
    const auto& before = previous[s].port;
    if (port.empty() || before.empty()) continue;
    if (port.size() < before.size()) port.resize(before.size(), kNoRoute);
    for (const std::size_t lid : absent) {
      if (lid >= before.size()) break;
      if (before[lid] != kNoRoute) port[lid] = before[lid];
    }
  }
}

// Bits by (LID, switch), a row of whole words per LID (PreviousHolds's
// layout): a LID's row is written by the one worker that judges it.
PreviousHolds lidBits(std::size_t lids, std::size_t switches) {
  PreviousHolds out{lids, (switches + 63) / 64, {}, {}, nullptr};
  out.bits.assign(lids * out.words, 0);
  return out;
}

// The (LID, switch) entries where a taker's tables differ from the previous
// ones, found table by table: the tally then reads no entry of the result
// LID by LID (a cache miss each on a large fabric). 64 switches a chunk, so
// that each worker writes words of its own.
PreviousHolds changedEntries(const routing::SwitchGraph& graph, const std::vector<Lft>& previous,
                             const RoutingResult& result, unsigned threads) {
  const auto compared = [&](routing::SwitchIndex s) -> std::size_t {
    const NodeId id = graph.nodeId(s);
    if (id >= previous.size()) return 0;
    return std::min(result.lfts[id].port.size(), previous[id].port.size());
  };
  std::size_t lids = 0;
  for (routing::SwitchIndex s = 0; s < graph.size(); ++s) lids = std::max(lids, compared(s));
  PreviousHolds out = lidBits(lids, graph.size());
  parallelFor(threads, out.words, 1, [&](std::size_t begin, std::size_t end, unsigned) {
    const auto last = static_cast<routing::SwitchIndex>(std::min(graph.size(), end * 64));
    for (auto s = static_cast<routing::SwitchIndex>(begin * 64); s < last; ++s) {
      const std::size_t n = compared(s);
      if (n == 0) continue;
      const auto now = result.lfts[graph.nodeId(s)].port.begin();
      const auto stop = now + static_cast<std::ptrdiff_t>(n);
      for (auto [a, b] = std::mismatch(now, stop, previous[graph.nodeId(s)].port.begin());
           a != stop; std::tie(a, b) = std::mismatch(a + 1, stop, b + 1))
        out.set(static_cast<std::size_t>(a - now), s);
    }
  });
  return out;
}

// Counts the mix on the result: for an engine that took the hint
// (`changed`: its entries that differ from the previous ones), kept is what
// it kept of the chains that hold; into the fresh tables of one that did
// not, every such entry is written (and kept).
void tallyKept(const routing::SwitchGraph& graph, const std::vector<Target>& present,
               const std::vector<Lft>& previous, const HeldChains& held,
               const PreviousHolds* changed, RoutingResult& candidate, StableRoutesStats& stats) {
  stats.broken = held.broken;
  stats.wholeLids = held.wholeLids;
  stats.brokenBlocks = held.brokenBlocks.size();
  std::vector<std::size_t> sized(graph.size());
  for (routing::SwitchIndex s = 0; s < graph.size(); ++s)
    sized[s] = candidate.lfts[graph.nodeId(s)].port.size();
  if (changed && tallyRows(present, held, *changed, sized, stats)) return;
  for (const Target& t : present)
    for (routing::SwitchIndex s = 0; s < graph.size(); ++s) {
      if (t.lid.value >= sized[s]) continue;  // an engine that sized it short
      bool kept = held.holds.at(t.lid.value, s);
      if (changed)
        kept = kept && !changed->at(t.lid.value, s);
      else if (kept)
        candidate.lfts[graph.nodeId(s)].port[t.lid.value] =
            previous[graph.nodeId(s)].port[t.lid.value];
      stats.kept += kept;
      stats.fromFresh += !kept;
    }
}

}  // namespace ibsm::stable
