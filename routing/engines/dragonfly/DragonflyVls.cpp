#include "routing/engines/dragonfly/DragonflyVls.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace ibsm::routing::dragonfly {
namespace {

constexpr std::uint8_t kNoLen = 0xFF;
constexpr std::uint8_t kMaxLevel = 14;  // VL 15 is the management lane
constexpr int kMaxPasses = 16;
constexpr int kMaxClimbs = 64;  // turns made to climb before the plan gives up
// A turn's byte while the levels are planned.
constexpr std::uint8_t kLevel = 0x1F, kClimbs = 0x20, kRead = 0x80;

// Switches of one LID's routes, farthest first (counting sort on hops).
void farthestFirst(const std::uint8_t* len, std::size_t n, std::vector<SwitchIndex>& order,
                   std::vector<std::uint32_t>& count) {
  count.assign(256, 0);
  for (std::size_t s = 0; s < n; ++s)
    if (len[s] != kNoLen && len[s] > 0) ++count[len[s]];
  std::uint32_t at = 0;
  for (int l = 254; l >= 1; --l) {
    const std::uint32_t c = count[static_cast<std::size_t>(l)];
    count[static_cast<std::size_t>(l)] = at;
    at += c;
  }
  order.resize(at);
  for (std::size_t s = 0; s < n; ++s)
    if (len[s] != kNoLen && len[s] > 0) order[count[len[s]]++] = static_cast<SwitchIndex>(s);
}

// A same-level dependency between two local channels: channel * 16 + level.
struct Dependency {
  std::uint32_t from;
  std::uint32_t to;
  auto operator<=>(const Dependency&) const = default;
};

std::optional<std::vector<std::uint32_t>> findCycle(std::vector<Dependency>& deps,
                                                    std::size_t nodes) {
  std::ranges::sort(deps);
  deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
  std::vector<std::uint32_t> start(nodes + 1, 0);
  for (const auto& d : deps) ++start[d.from + 1];
  for (std::size_t i = 0; i < nodes; ++i) start[i + 1] += start[i];
  enum : std::uint8_t { kWhite, kGrey, kBlack };
  std::vector<std::uint8_t> colour(nodes, kWhite);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> stack;  // node, next edge
  for (const auto& root : deps) {
    if (colour[root.from] != kWhite) continue;
    colour[root.from] = kGrey;
    stack.emplace_back(root.from, start[root.from]);
    while (!stack.empty()) {
      auto& [node, edge] = stack.back();
      if (edge == start[node + 1]) {
        colour[node] = kBlack;
        stack.pop_back();
        continue;
      }
      const std::uint32_t next = deps[edge++].to;
      if (colour[next] == kGrey) {
        std::vector<std::uint32_t> cycle;
        auto it = std::ranges::find(stack, next, &std::pair<std::uint32_t, std::uint32_t>::first);
        for (; it != stack.end(); ++it) cycle.push_back(it->first);
        return cycle;
      }
      if (colour[next] == kWhite) {
        colour[next] = kGrey;
        stack.emplace_back(next, start[next]);
      }
    }
  }
  return std::nullopt;
}

// Entries and hops of one LID as words, mixed into one hash.
std::uint64_t rowHash(const std::uint8_t* out, const std::uint8_t* len, std::size_t n) {
  std::uint64_t h = 0x9E3779B97F4A7C15ull;
  auto mix = [&](const std::uint8_t* row) {
    for (std::size_t i = 0; i < n; i += 8) {
      std::uint64_t word = 0;
      std::memcpy(&word, row + i, std::min<std::size_t>(8, n - i));
      h = (h ^ word) * 0xFF51AFD7ED558CCDull;
      h ^= h >> 29;
    }
  };
  mix(out);
  mix(len);
  return h;
}

// The LIDs to walk, in LID order: the first of every set of LIDs with the
// same entries (a host port's LIDs, often every LID of one switch), which
// make the same tree. Walking a tree twice in a pass only passes on sooner
// what the next pass would: the levels settle on the same least solution of
// the constraints, and the last pass, which raises nothing, sees every tree
// at its final levels (see levelTurns).
std::vector<std::size_t> distinctTrees(const DragonflyTables& tables, std::size_t n) {
  std::vector<std::pair<std::uint64_t, std::size_t>> keyed;  // hash, LID
  for (std::size_t lid = 1; lid < tables.targets.size(); ++lid)
    if (tables.targets[lid].sw != kNoSwitch)
      keyed.emplace_back(rowHash(tables.out.data() + lid * n, tables.len.data() + lid * n, n), lid);
  std::ranges::sort(keyed);
  auto same = [&](std::size_t a, std::size_t b) {
    return std::memcmp(tables.out.data() + a * n, tables.out.data() + b * n, n) == 0 &&
           std::memcmp(tables.len.data() + a * n, tables.len.data() + b * n, n) == 0;
  };
  std::vector<std::size_t> trees;
  for (std::size_t run = 0, end = 0; run < keyed.size(); run = end) {
    for (end = run; end < keyed.size() && keyed[end].first == keyed[run].first;) ++end;
    // Within a run of one hash (LID order), each LID not equal to an
    // earlier first is a first itself.
    const std::size_t before = trees.size();
    for (std::size_t i = run; i < end; ++i) {
      const std::size_t lid = keyed[i].second;
      if (std::none_of(trees.begin() + static_cast<std::ptrdiff_t>(before), trees.end(),
                       [&](std::size_t first) { return same(first, lid); }))
        trees.push_back(lid);
    }
  }
  std::ranges::sort(trees);
  return trees;
}

// One planning of the levels with some turns made to climb; the cycle of
// same-level local dependencies left, if any.
struct Levels {
  VlPlan plan;
  std::optional<std::vector<std::uint32_t>> cycle;
};

Levels levelTurns(const SwitchGraph& graph, const PortMap& ports, const DragonflyTables& tables,
                  const std::vector<std::size_t>& trees, const std::vector<std::uint8_t>& climb) {
  VlPlan plan;
  const std::size_t n = graph.size();
  // Per turn, in one byte so that a tree's walk meets one cache line per
  // turn: its level, whether it climbs, whether some tree went through it.
  std::vector<std::uint8_t> cell(climb.size());
  for (std::size_t i = 0; i < cell.size(); ++i) cell[i] = climb[i] ? kClimbs : 0;
  std::vector<std::uint8_t> arrive(n);
  std::vector<std::uint16_t> carried(n);
  std::vector<SwitchIndex> order;
  std::vector<std::uint32_t> count;
  std::vector<Dependency> same;
  bool changed = true;
  int passes = 0;
  while (changed && passes < kMaxPasses) {
    changed = false;
    ++passes;
    same.clear();
    for (const std::size_t lid : trees) {
      const std::uint8_t* out = tables.out.data() + lid * n;
      const std::uint8_t* len = tables.len.data() + lid * n;
      farthestFirst(len, n, order, count);
      std::ranges::fill(arrive, 0);
      std::ranges::fill(carried, 1);  // traffic that starts at a switch is on level 0
      for (const SwitchIndex s : order) {
        const std::size_t c1 = ports.at(s, out[s]);
        const SwitchIndex p = ports.peer[c1];
        const std::uint8_t in = ports.peerPort[c1];
        const std::uint8_t onward = out[p];
        std::uint8_t& turn = cell[(std::size_t{p} * ports.stride + in) * ports.stride + onward];
        const auto need =
            static_cast<std::uint8_t>(arrive[s] + ports.global[c1] + ((turn & kClimbs) ? 1 : 0));
        if ((turn & kLevel) < need) {
          turn = static_cast<std::uint8_t>(
              (turn & ~kLevel) | std::min(need, static_cast<std::uint8_t>(kMaxLevel + 1)));
          // Only a turn some earlier tree already went through needs that
          // tree walked again: the next pass.
          changed |= (turn & kRead) != 0;
        }
        turn |= kRead;
        const std::uint8_t level = turn & kLevel;
        arrive[p] = std::max(arrive[p], level);
        carried[p] |= static_cast<std::uint16_t>(1u << std::min<int>(level, 15));
        const std::size_t c2 = ports.at(p, onward);
        if (!ports.global[c1] && onward != 0 && ports.peer[c2] != kNoSwitch && !ports.global[c2] &&
            ((carried[s] >> level) & 1u))
          same.push_back({static_cast<std::uint32_t>(c1 * 16 + level),
                          static_cast<std::uint32_t>(c2 * 16 + level)});
      }
      if (same.size() > (std::size_t{1} << 26)) {
        std::ranges::sort(same);
        same.erase(std::unique(same.begin(), same.end()), same.end());
      }
    }
  }
  plan.turn.resize(cell.size());
  std::uint8_t top = 0;
  for (std::size_t i = 0; i < cell.size(); ++i) {
    plan.turn[i] = cell[i] & kLevel;
    top = std::max(top, plan.turn[i]);
  }
  plan.levels = static_cast<std::uint8_t>(top + 1);
  if (changed || top > kMaxLevel) {
    plan.problem = fmt::format(
        "VL levels did not settle after {} passes: the routes climb without end, a credit loop "
        "through global links",
        passes);
    return {std::move(plan), std::nullopt};
  }
  return {std::move(plan), findCycle(same, n * ports.stride * 16)};
}

// The turn where the dependency from one cycle node to the next is made.
std::size_t turnOf(const PortMap& ports, std::uint32_t from, std::uint32_t to) {
  const std::size_t c1 = from / 16, c2 = to / 16;
  return (std::size_t{ports.peer[c1]} * ports.stride + ports.peerPort[c1]) * ports.stride +
         c2 % ports.stride;
}

}  // namespace

VlPlan planVls(const SwitchGraph& graph, const PortMap& ports, const DragonflyTables& tables) {
  const std::size_t stride = ports.stride;
  std::vector<std::uint8_t> climb(graph.size() * stride * stride, 0);
  const std::vector<std::size_t> trees = distinctTrees(tables, graph.size());
  for (int step = 0;; ++step) {
    Levels levels = levelTurns(graph, ports, tables, trees, climb);
    levels.plan.climbs = static_cast<std::uint32_t>(step);
    if (!levels.cycle) return std::move(levels.plan);
    const auto& cycle = *levels.cycle;
    if (step == kMaxClimbs) {
      std::vector<std::string> names;
      for (const std::uint32_t node : cycle) {
        const std::size_t c = node / 16;
        names.push_back(fmt::format("switch {} port {} VL{}", c / stride, c % stride, node % 16));
      }
      levels.plan.problem =
          fmt::format("local links wait for each other on one VL after {} turns climbed: {}", step,
                      fmt::join(names, " -> "));
      return std::move(levels.plan);
    }
    // The cycle runs among local links on one level (detours inside a
    // group): its first turn climbs a level, which breaks it; the next
    // planning shows whether that closed another.
    climb[turnOf(ports, cycle[0], cycle[1 % cycle.size()])] = 1;
  }
}

std::vector<Sl2VlEntry> sl2vlEntries(const Fabric& fabric, const SwitchGraph& graph,
                                     const PortMap& ports, const VlPlan& plan) {
  std::vector<Sl2VlEntry> out;
  const std::size_t stride = ports.stride;
  for (SwitchIndex s = 0; s < graph.size(); ++s) {
    const Node& sw = fabric.node(graph.nodeId(s));
    for (std::size_t in = 1; in < sw.ports.size(); ++in) {
      if (!sw.ports[in].remote) continue;
      for (std::size_t o = 1; o < sw.ports.size(); ++o) {
        if (o == in || !sw.ports[o].remote) continue;
        Sl2VlEntry e{
            graph.nodeId(s), static_cast<std::uint8_t>(in), static_cast<std::uint8_t>(o), {}};
        e.vl.fill(plan.turn[(std::size_t{s} * stride + in) * stride + o]);
        out.push_back(e);
      }
    }
  }
  return out;
}

}  // namespace ibsm::routing::dragonfly
