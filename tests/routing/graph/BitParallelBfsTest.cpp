// The one breadth-first search the report's fewest hops and the multicast
// roots share, held to a textbook queue BFS from each source on its own:
// random graphs of several parts that cannot reach each other (and switches
// with no cable at all), batches that fill a word, miss it by one, pass it
// by one, and outgrow one search.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <random>
#include <set>
#include <span>
#include <tuple>
#include <vector>

#include "routing/graph/BitParallelBfs.h"

namespace ibsm::routing {
namespace {

using Adjacency = std::vector<std::vector<SwitchIndex>>;

// `parts` random connected-or-not parts over n switches (switch s in part
// s % parts), cables both ways, some parallel; the last part is one long
// path, so searches run for many levels; switch n-1 has no cable.
Adjacency randomGraph(std::size_t n, std::size_t parts, std::uint32_t seed) {
  std::mt19937 rng(seed);
  Adjacency adj(n);
  const auto cable = [&](SwitchIndex a, SwitchIndex b) {
    adj[a].push_back(b);
    adj[b].push_back(a);
  };
  for (std::size_t p = 0; p + 1 < parts; ++p) {
    std::vector<SwitchIndex> members;
    for (SwitchIndex s = static_cast<SwitchIndex>(p); s + 1 < n; s += parts) members.push_back(s);
    std::uniform_int_distribution<std::size_t> pick(0, members.size() - 1);
    for (std::size_t e = 0; e < members.size() * 3 / 2; ++e)
      cable(members[pick(rng)], members[pick(rng)]);
  }
  for (SwitchIndex s = static_cast<SwitchIndex>(parts - 1); s + parts + 1 < n; s += parts)
    cable(s, static_cast<SwitchIndex>(s + parts));
  for (auto& a : adj) std::ranges::shuffle(a, rng);
  return adj;
}

auto neighboursOf(const Adjacency& adj) {
  return [&adj](SwitchIndex s, auto&& f) {
    for (const SwitchIndex t : adj[s]) f(t);
  };
}

std::vector<std::uint16_t> plainBfs(const Adjacency& adj, SwitchIndex from) {
  std::vector<std::uint16_t> hops(adj.size(), kUnreachable);
  std::deque<SwitchIndex> queue{from};
  hops[from] = 0;
  while (!queue.empty()) {
    const SwitchIndex s = queue.front();
    queue.pop_front();
    for (const SwitchIndex t : adj[s])
      if (hops[t] == kUnreachable) {
        hops[t] = static_cast<std::uint16_t>(hops[s] + 1);
        queue.push_back(t);
      }
  }
  return hops;
}

// Hops from each source (a row each) by searches of Words words, as many as
// the sources need, on one object; every (switch, source) set exactly once.
template <std::size_t Words>
std::vector<std::vector<std::uint16_t>> bitParallelHops(const Adjacency& adj,
                                                        const std::vector<SwitchIndex>& sources) {
  using Search = BitParallelBfs<Words>;
  std::vector<std::vector<std::uint16_t>> rows(
      sources.size(), std::vector<std::uint16_t>(adj.size(), kUnreachable));
  Search search(adj.size());
  for (std::size_t first = 0; first < sources.size(); first += Search::kWidth) {
    const std::size_t count = std::min(Search::kWidth, sources.size() - first);
    search.run(std::span(sources).subspan(first, count), neighboursOf(adj),
               [&](SwitchIndex s, std::uint16_t level, const typename Search::Bits& bits) {
                 Search::forEachBit(bits, [&](std::size_t k) {
                   EXPECT_EQ(rows[first + k][s], kUnreachable) << "reached twice: " << s;
                   rows[first + k][s] = level;
                 });
               });
  }
  return rows;
}

std::vector<SwitchIndex> someSources(std::size_t count, std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<SwitchIndex> sources(count);
  for (auto& s : sources) s = static_cast<SwitchIndex>(rng() % n);
  return sources;
}

template <std::size_t Words>
void expectPlainBfsFromEverySource(const Adjacency& adj, std::size_t count, std::uint32_t seed) {
  const std::vector<SwitchIndex> sources = someSources(count, adj.size(), seed);
  const auto rows = bitParallelHops<Words>(adj, sources);
  for (std::size_t k = 0; k < sources.size(); ++k)
    EXPECT_EQ(rows[k], plainBfs(adj, sources[k]))
        << Words << " words, " << count << " sources, source " << k << " = " << sources[k];
}

class BitParallelBfsTest : public ::testing::TestWithParam<std::size_t> {};

TEST_P(BitParallelBfsTest, EqualsAPlainSearchFromEachSource) {
  const std::size_t count = GetParam();
  for (std::uint32_t seed = 1; seed <= 3; ++seed) {
    const Adjacency adj = randomGraph(400 + seed * 37, 2 + seed, seed);
    expectPlainBfsFromEverySource<1>(adj, count, seed);
    expectPlainBfsFromEverySource<2>(adj, count, seed);
    expectPlainBfsFromEverySource<4>(adj, count, seed);
    expectPlainBfsFromEverySource<5>(adj, count, seed);
  }
}

INSTANTIATE_TEST_SUITE_P(Batches, BitParallelBfsTest, ::testing::Values(1, 63, 64, 65, 300));

// One call per switch and level, levels ascending (the sources' level 0 in
// the order they are given, each later level's switches in index order), levelDone after each level
// that reached a switch and only then; a switch named twice among the sources is one call with both
// bits.
TEST(BitParallelBfs, ReportsEachLevelInOrderAndEachSwitchOnce) {
  const Adjacency adj = randomGraph(300, 3, 7);
  std::vector<SwitchIndex> sources = someSources(40, adj.size(), 7);
  sources.push_back(sources[3]);
  BitParallelBfs<1> search(adj.size());
  std::vector<std::tuple<std::uint16_t, SwitchIndex, std::uint64_t>> calls;
  std::vector<std::uint16_t> done;
  search.run(
      sources, neighboursOf(adj),
      [&](SwitchIndex s, std::uint16_t level, const BitParallelBfs<1>::Bits& bits) {
        EXPECT_EQ(done.size(), level) << "level " << level << " reported after its levelDone";
        calls.emplace_back(level, s, bits[0]);
      },
      [&](std::uint16_t level) { done.push_back(level); });
  EXPECT_TRUE(std::ranges::is_sorted(calls, {}, [](const auto& c) { return std::get<0>(c); }));
  const auto firstMoved =
      std::ranges::find_if(calls, [](const auto& c) { return std::get<0>(c) > 0; });
  EXPECT_TRUE(std::is_sorted(firstMoved, calls.end()));
  std::set<std::pair<std::uint16_t, SwitchIndex>> once;
  for (const auto& [level, s, bits] : calls) EXPECT_TRUE(once.emplace(level, s).second) << s;
  const std::uint16_t deepest = std::get<0>(calls.back());
  ASSERT_EQ(done.size(), deepest + 1u);
  for (std::uint16_t level = 0; level <= deepest; ++level) EXPECT_EQ(done[level], level);
  const auto twice = std::ranges::find_if(
      calls, [&](const auto& c) { return std::get<0>(c) == 0 && std::get<1>(c) == sources[3]; });
  ASSERT_NE(twice, calls.end());
  EXPECT_EQ(std::get<2>(*twice) & (std::uint64_t{1} << 3 | std::uint64_t{1} << 40),
            std::uint64_t{1} << 3 | std::uint64_t{1} << 40);
}

TEST(BitParallelBfs, NoSourcesReachNothing) {
  const Adjacency adj = randomGraph(100, 2, 1);
  BitParallelBfs<2> search(adj.size());
  int calls = 0;
  search.run(
      std::span<const SwitchIndex>{}, neighboursOf(adj),
      [&](SwitchIndex, std::uint16_t, const BitParallelBfs<2>::Bits&) { ++calls; },
      [&](std::uint16_t) { ++calls; });
  EXPECT_EQ(calls, 0);
}

// The one-source search, into buffers used search after search.
TEST(HopsFromOne, EqualsAPlainSearchWithBuffersReused) {
  const Adjacency adj = randomGraph(500, 4, 11);
  std::vector<std::uint16_t> hops;
  std::vector<SwitchIndex> queue;
  for (const SwitchIndex s : someSources(30, adj.size(), 11)) {
    hopsFromOne(adj.size(), s, neighboursOf(adj), hops, queue);
    EXPECT_EQ(hops, plainBfs(adj, s)) << "from " << s;
  }
  hopsFromOne(adj.size(), static_cast<SwitchIndex>(adj.size() - 1), neighboursOf(adj), hops, queue);
  EXPECT_EQ(std::ranges::count(hops, kUnreachable), static_cast<std::ptrdiff_t>(adj.size() - 1));
}

}  // namespace
}  // namespace ibsm::routing
