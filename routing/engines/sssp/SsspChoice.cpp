#include "routing/engines/sssp/SsspChoice.h"

#include <ibsm/ParallelFor.h>

#include <algorithm>
#include <array>

namespace ibsm::routing::sssp {
namespace {

constexpr std::array kBalances{
    Balance{.roundRobin = false, .hostWeight = 0},   Balance{.roundRobin = true, .hostWeight = 0},
    Balance{.roundRobin = false, .hostWeight = 0.5}, Balance{.roundRobin = true, .hostWeight = 0.5},
    Balance{.roundRobin = false, .hostWeight = 1},   Balance{.roundRobin = true, .hostWeight = 1},
    Balance{.roundRobin = false, .hostWeight = 2},   Balance{.roundRobin = true, .hostWeight = 2},
};

// Switch x LID routes up to which every way is tried: the Lassen-like tree
// (174 switches, about 1,900 LIDs) takes about 0.15 CPU s a way. Past it
// (large irregular fabrics, up to auto's 8 million) sssp routes LID order
// alone, as before.
constexpr std::size_t kManyWaysUpTo = 1'000'000;

// Busiest link over all pairs, host pairs and pairs with an aggregation node.
std::array<std::uint64_t, 3> figures(const SsspTables& t) {
  std::array<std::uint64_t, 3> out{};
  for (std::size_t c = 0; c < t.load.size(); ++c) {
    out[0] = std::max(out[0], t.load[c]);
    out[1] = std::max(out[1], t.hostLoad[c]);
    out[2] = std::max(out[2], t.load[c] - t.hostLoad[c]);
  }
  return out;
}

}  // namespace

Choice routeBestOf(const Fabric& fabric, const SwitchGraph& graph, const Channels& channels,
                   unsigned passes, unsigned threads) {
  // The first way alone past kManyWaysUpTo; the others on up to `threads`
  // threads, each on one: the same tables on any number.
  std::vector<SsspTables> tables(kBalances.size());
  std::vector<std::array<std::uint64_t, 3>> figs(kBalances.size());
  tables[0] = routeBalanced(fabric, graph, channels, passes, threads, kBalances[0]);
  figs[0] = figures(tables[0]);
  const std::size_t routes = graph.size() * tables[0].targets.size();
  const std::size_t ways = routes <= kManyWaysUpTo ? kBalances.size() : 1;
  tables.resize(ways);
  figs.resize(ways);
  parallelFor(threads, ways - 1, 1, [&](std::size_t begin, std::size_t end, unsigned) {
    for (std::size_t i = begin + 1; i < end + 1; ++i) {
      tables[i] = routeBalanced(fabric, graph, channels, passes, 1, kBalances[i]);
      figs[i] = figures(tables[i]);
    }
  });
  std::array<std::uint64_t, 3> lowest{};
  lowest.fill(~std::uint64_t{0});
  for (const auto& f : figs)
    for (std::size_t k = 0; k < 3; ++k) lowest[k] = std::min(lowest[k], f[k]);
  // The worst ratio to the lowest, compared exactly: a/b < c/d as a*d < c*b.
  const auto worse = [&](std::size_t i, std::size_t j) {  // i's worst ratio above j's
    const auto ratio = [&](std::size_t c, std::size_t k) {
      return std::pair<std::uint64_t, std::uint64_t>{figs[c][k] + 1, lowest[k] + 1};
    };
    const auto worst = [&](std::size_t c) {
      auto w = ratio(c, 0);
      for (std::size_t k = 1; k < 3; ++k) {
        const auto r = ratio(c, k);
        if (r.first * w.second > w.first * r.second) w = r;
      }
      return w;
    };
    const auto a = worst(i), b = worst(j);
    return a.first * b.second > b.first * a.second;
  };
  std::size_t best = 0;
  for (std::size_t i = 1; i < tables.size(); ++i)
    if (worse(best, i)) best = i;
  return Choice{.tables = std::move(tables[best]),
                .balance = kBalances[best],
                .busiestAll = figs[best][0],
                .busiestHosts = figs[best][1],
                .busiestAggregation = figs[best][2]};
}

}  // namespace ibsm::routing::sssp
