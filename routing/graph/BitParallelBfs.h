// Breadth-first search over the switch graph, two ways.
//
// BitParallelBfs: from up to 64 x Words sources at once, a bit per source:
// each switch holds a word per 64 sources, bit k set once source k's search
// has reached it. A switch is reached at level L by the sources that reached
// one of its neighbours at level L-1 and had not reached it yet, so a level
// costs one pass over every cable for the whole batch instead of one per
// source. What the report's fewest hops (analysis::ShortestHops) and the
// multicast roots' eccentricities (McRoots) are made of.
//
// hopsFromOne: from one source, a queue that crosses each cable once; a
// batch of one would pass over every cable once per level.
//
// The graph is given as a callable neighbours(s, f) that calls f(t) for
// every switch t cabled to s (the cables run both ways: t's neighbours
// include s), so each caller walks its own adjacency arrays inline.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstdint>
#include <span>
#include <vector>

#include "routing/graph/SwitchGraph.h"

namespace ibsm::routing {

template <std::size_t Words>
class BitParallelBfs {
 public:
  static_assert(Words > 0);
  using Bits = std::array<std::uint64_t, Words>;
  static constexpr std::size_t kWidth = 64 * Words;  // sources per search

  // Buffers for a graph of `switches` switches, kept from search to search.
  explicit BitParallelBfs(std::size_t switches)
      : seen_(switches), frontier_(switches), next_(switches) {}

  // Searches from sources[k] (bit k; at most kWidth, repeats allowed).
  // Calls reached(s, level, bits) once for every switch s and level at which
  // some sources first reach it, with those sources' bits: level 0 for the
  // sources themselves (in the order given), then level by level, each
  // level's switches in index order. Calls levelDone(level) after each
  // level that reached any switch.
  template <typename Neighbours, typename Reached, typename LevelDone>
  void run(std::span<const SwitchIndex> sources, Neighbours&& neighbours, Reached&& reached,
           LevelDone&& levelDone);
  template <typename Neighbours, typename Reached>
  void run(std::span<const SwitchIndex> sources, Neighbours&& neighbours, Reached&& reached) {
    run(sources, neighbours, reached, [](std::uint16_t) {});
  }

  // Calls f(k) for each bit k set in bits, lowest first.
  template <typename F>
  static void forEachBit(const Bits& bits, F&& f) {
    for (std::size_t w = 0; w < Words; ++w)
      for (std::uint64_t m = bits[w]; m != 0; m &= m - 1)
        f(64 * w + static_cast<std::size_t>(std::countr_zero(m)));
  }

 private:
  std::vector<Bits> seen_;
  std::vector<Bits> frontier_;
  std::vector<Bits> next_;
};

template <std::size_t Words>
template <typename Neighbours, typename Reached, typename LevelDone>
void BitParallelBfs<Words>::run(std::span<const SwitchIndex> sources, Neighbours&& neighbours,
                                Reached&& reached, LevelDone&& levelDone) {
  assert(sources.size() <= kWidth);
  const std::size_t n = seen_.size();
  std::fill(seen_.begin(), seen_.end(), Bits{});
  std::fill(frontier_.begin(), frontier_.end(), Bits{});
  for (std::size_t k = 0; k < sources.size(); ++k)
    frontier_[sources[k]][k / 64] |= std::uint64_t{1} << (k % 64);
  for (std::size_t k = 0; k < sources.size(); ++k) {
    const Bits& bits = frontier_[sources[k]];
    seen_[sources[k]] = bits;
    // Once per switch: at the first source that names it (its lowest bit).
    std::size_t w = 0;
    while (bits[w] == 0) ++w;
    if (64 * w + static_cast<std::size_t>(std::countr_zero(bits[w])) == k)
      reached(sources[k], std::uint16_t{0}, bits);
  }
  if (!sources.empty()) levelDone(std::uint16_t{0});
  for (std::uint16_t level = 1;; ++level) {
    bool grew = false;
    const Bits* const frontier = frontier_.data();  // locals: kept in registers
    Bits* const seen = seen_.data();
    Bits* const next = next_.data();
    for (SwitchIndex s = 0; s < n; ++s) {
      Bits in{};
      neighbours(s, [&in, frontier](SwitchIndex t) {
        for (std::size_t w = 0; w < Words; ++w) in[w] |= frontier[t][w];
      });
      std::uint64_t any = 0;
      for (std::size_t w = 0; w < Words; ++w) {
        in[w] &= ~seen[s][w];
        seen[s][w] |= in[w];
        any |= in[w];
      }
      next[s] = in;
      if (any == 0) continue;
      grew = true;
      reached(s, level, in);
    }
    if (!grew) return;
    levelDone(level);
    frontier_.swap(next_);
  }
}

// Switch hops from `source` to each of the `switches` switches into hops
// (kUnreachable where none); queue is scratch. Both are resized here, so
// one pair serves search after search without allocating.
template <typename Neighbours>
void hopsFromOne(std::size_t switches, SwitchIndex source, Neighbours&& neighbours,
                 std::vector<std::uint16_t>& hops, std::vector<SwitchIndex>& queue) {
  hops.assign(switches, kUnreachable);
  queue.assign(1, source);
  hops[source] = 0;
  for (std::size_t i = 0; i < queue.size(); ++i) {
    const SwitchIndex s = queue[i];
    const auto next = static_cast<std::uint16_t>(hops[s] + 1);
    neighbours(s, [&](SwitchIndex t) {
      if (hops[t] != kUnreachable) return;
      hops[t] = next;
      queue.push_back(t);
    });
  }
}

}  // namespace ibsm::routing
