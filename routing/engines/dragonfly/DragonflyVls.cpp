#include "routing/engines/dragonfly/DragonflyVls.h"

#include <fmt/format.h>
#include <ibsm/ParallelFor.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <optional>

namespace ibsm::routing::dragonfly {
namespace {

constexpr std::uint8_t kNoLen = 0xFF;
constexpr std::uint8_t kMaxLevel = 14;  // VL 15 is the management lane
constexpr int kMaxPasses = 16;
constexpr int kMaxClimbs = 64;  // turns made to climb before the plan gives up
// A turn's byte while the levels are planned.
constexpr std::uint8_t kLevel = 0x1F, kClimbs = 0x20, kRead = 0x80;

// Switches of one LID's routes, farthest first, in switch order within a
// distance: one branch-free sweep per distance (routes are a few hops long),
// where a counting sort waited on its counters from one switch to the next.
void farthestFirst(const std::uint8_t* len, std::size_t n, std::vector<SwitchIndex>& order) {
  std::uint8_t top = 0;
  for (std::size_t s = 0; s < n; ++s)
    if (len[s] != kNoLen) top = std::max(top, len[s]);
  order.resize(n + 1);
  std::size_t at = 0;
  for (std::uint8_t l = top; l >= 1; --l)
    for (std::size_t s = 0; s < n; ++s) {
      order[at] = static_cast<SwitchIndex>(s);
      at += len[s] == l;
    }
  order.resize(at);
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

// The trees to walk. The LIDs one switch delivers (its own, its hosts')
// often share every entry but the last, the port at that switch: their
// trees differ only in the turns into that port, which end the route. So a
// tree is walked once for all of them, in LID order of its first, and the
// others' last turns follow from the same walk. Walking a tree less often
// in a pass only passes on later what the next pass would: the levels
// settle on the same least solution of the constraints, and the last pass,
// which raises nothing, sees every tree at its final levels.
struct Trees {
  std::vector<std::size_t> first;  // LID order
  std::vector<std::size_t> start;  // others of first[k]: also[start[k], start[k + 1])
  std::vector<std::size_t> also;
};

// Entries (but the delivering switch's) and hops of one LID, mixed.
std::uint64_t rowHash(const std::uint8_t* out, const std::uint8_t* len, std::size_t n,
                      SwitchIndex d) {
  std::uint64_t h = 0x9E3779B97F4A7C15ull ^ d;
  auto mix = [&](const std::uint8_t* row, bool skipD) {
    for (std::size_t i = 0; i < n; i += 8) {
      std::uint64_t word = 0;
      std::memcpy(&word, row + i, std::min<std::size_t>(8, n - i));
      if (skipD && d >= i && d < i + 8) word &= ~(std::uint64_t{0xFF} << (8 * (d - i)));
      h = (h ^ word) * 0xFF51AFD7ED558CCDull;
      h ^= h >> 29;
    }
  };
  mix(out, true);
  mix(len, false);
  return h;
}

Trees distinctTrees(const DragonflyTables& tables, std::size_t n, unsigned threads) {
  const auto& targets = tables.targets;
  // Hashed on threads, each LID into its own slot.
  std::vector<std::uint64_t> hash(targets.size(), 0);
  parallelFor(threads, targets.size(), 256, [&](std::size_t begin, std::size_t end, unsigned) {
    for (std::size_t lid = std::max<std::size_t>(begin, 1); lid < end; ++lid)
      if (targets[lid].sw != kNoSwitch)
        hash[lid] =
            rowHash(tables.out.data() + lid * n, tables.len.data() + lid * n, n, targets[lid].sw);
  });
  std::vector<std::pair<std::uint64_t, std::size_t>> keyed;  // hash, LID
  for (std::size_t lid = 1; lid < targets.size(); ++lid)
    if (targets[lid].sw != kNoSwitch) keyed.emplace_back(hash[lid], lid);
  std::ranges::sort(keyed);
  auto same = [&](std::size_t a, std::size_t b) {
    const SwitchIndex d = targets[a].sw;
    const std::uint8_t* x = tables.out.data() + a * n;
    const std::uint8_t* y = tables.out.data() + b * n;
    return d == targets[b].sw && std::memcmp(x, y, d) == 0 &&
           std::memcmp(x + d + 1, y + d + 1, n - d - 1) == 0 &&
           std::memcmp(tables.len.data() + a * n, tables.len.data() + b * n, n) == 0;
  };
  std::vector<std::size_t> firstOf(targets.size(), 0);  // per LID: the first of its tree
  for (std::size_t run = 0, end = 0; run < keyed.size(); run = end) {
    for (end = run; end < keyed.size() && keyed[end].first == keyed[run].first;) ++end;
    // Within a run of one hash (in LID order), a LID like none before it
    // is a first.
    for (std::size_t i = run; i < end; ++i) {
      const std::size_t lid = keyed[i].second;
      firstOf[lid] = lid;
      for (std::size_t j = run; j < i; ++j)
        if (firstOf[keyed[j].second] == keyed[j].second && same(keyed[j].second, lid)) {
          firstOf[lid] = keyed[j].second;
          break;
        }
    }
  }
  Trees trees;
  std::vector<std::size_t> index(targets.size(), 0);
  for (std::size_t lid = 1; lid < targets.size(); ++lid)
    if (targets[lid].sw != kNoSwitch && firstOf[lid] == lid) {
      index[lid] = trees.first.size();
      trees.first.push_back(lid);
    }
  trees.start.assign(trees.first.size() + 1, 0);
  for (std::size_t lid = 1; lid < targets.size(); ++lid)
    if (targets[lid].sw != kNoSwitch && firstOf[lid] != lid) ++trees.start[index[firstOf[lid]] + 1];
  for (std::size_t k = 0; k < trees.first.size(); ++k) trees.start[k + 1] += trees.start[k];
  trees.also.resize(trees.start.back());
  std::vector<std::size_t> at(trees.start.begin(), trees.start.end() - 1);
  for (std::size_t lid = 1; lid < targets.size(); ++lid)
    if (targets[lid].sw != kNoSwitch && firstOf[lid] != lid)
      trees.also[at[index[firstOf[lid]]]++] = lid;
  return trees;
}

// The turn at the far end of channel c1 (switch, port) onto port `onward`.
std::size_t turnAt(const PortMap& ports, std::size_t c1, std::uint8_t onward) {
  return (std::size_t{ports.peer[c1]} * ports.stride + ports.peerPort[c1]) * ports.stride + onward;
}

// Raises a turn to the level of the traffic that arrives on it (`arriving`
// levels, plus one where it climbs); a raise of a turn some tree already
// went through means that tree must be walked again: the next pass.
std::uint8_t raise(std::uint8_t& turn, int arriving, bool& changed) {
  const int need = arriving + ((turn & kClimbs) ? 1 : 0);
  if ((turn & kLevel) < need) {
    turn = static_cast<std::uint8_t>((turn & ~kLevel) | std::min(need, int{kMaxLevel} + 1));
    changed |= (turn & kRead) != 0;
  }
  turn |= kRead;
  return turn & kLevel;
}

// One planning of the levels with some turns made to climb; the cycle of
// same-level local dependencies left, if any.
struct Levels {
  VlPlan plan;
  std::optional<std::vector<std::uint32_t>> cycle;
};

// One worker's tree walks: scratch, and the same-level dependencies between
// local channels the walks met.
class Walker {
 public:
  explicit Walker(std::size_t n) : arrive_(n), carried_(n) {}

  std::vector<Dependency> same;

  // Walks tree k, raising its turns to the levels their traffic arrives on.
  // With kLook, only looks: false as soon as a turn would have to rise.
  template <bool kLook>
  bool walk(const PortMap& ports, const DragonflyTables& tables, const Trees& trees, std::size_t k,
            std::uint8_t* cell, bool& changed) {
    const std::size_t n = arrive_.size();
    const std::size_t lid = trees.first[k];
    const std::uint8_t* out = tables.out.data() + lid * n;
    const std::uint8_t* len = tables.len.data() + lid * n;
    auto level = [&](std::size_t turn, int arriving, std::uint8_t& at) {
      if constexpr (kLook) {
        at = cell[turn] & kLevel;
        return at >= arriving + ((cell[turn] & kClimbs) ? 1 : 0);
      }
      at = raise(cell[turn], arriving, changed);
      return true;
    };
    farthestFirst(len, n, order_);
    std::ranges::fill(arrive_, 0);
    std::ranges::fill(carried_, 1);  // traffic that starts at a switch is on level 0
    for (const SwitchIndex s : order_) {
      const std::size_t c1 = ports.at(s, out[s]);
      const SwitchIndex p = ports.peer[c1];
      const std::uint8_t onward = out[p];
      std::uint8_t at = 0;
      if (!level(turnAt(ports, c1, onward), arrive_[s] + ports.global[c1], at)) return false;
      arrive_[p] = std::max(arrive_[p], at);
      carried_[p] |= static_cast<std::uint16_t>(1u << std::min<int>(at, 15));
      const std::size_t c2 = ports.at(p, onward);
      if (!ports.global[c1] && onward != 0 && ports.peer[c2] != kNoSwitch && !ports.global[c2] &&
          ((carried_[s] >> at) & 1u))
        same.push_back(
            {static_cast<std::uint32_t>(c1 * 16 + at), static_cast<std::uint32_t>(c2 * 16 + at)});
    }
    // The tree's other LIDs: their last turns, from the switches one hop
    // from the delivering one (last in the order) into their own port there.
    for (std::size_t j = trees.start[k]; j < trees.start[k + 1]; ++j) {
      const std::uint8_t port = tables.out[trees.also[j] * n + tables.targets[lid].sw];
      for (auto it = order_.rbegin(); it != order_.rend() && len[*it] == 1; ++it) {
        const std::size_t c1 = ports.at(*it, out[*it]);
        std::uint8_t at = 0;
        if (!level(turnAt(ports, c1, port), arrive_[*it] + ports.global[c1], at)) return false;
      }
    }
    if (same.size() > (std::size_t{1} << 26)) {
      std::ranges::sort(same);
      same.erase(std::unique(same.begin(), same.end()), same.end());
    }
    return true;
  }

 private:
  std::vector<std::uint8_t> arrive_;
  std::vector<std::uint16_t> carried_;
  std::vector<SwitchIndex> order_;
};

// A pass that would raise no turn only reads, so its trees go to threads:
// true, with the dependencies of every tree (in some order: findCycle sorts
// them), when no turn would rise; false, having changed nothing, otherwise.
bool settled(const PortMap& ports, const DragonflyTables& tables, const Trees& trees,
             std::uint8_t* cell, unsigned threads, std::vector<Dependency>& same) {
  const unsigned workers = threadCount(threads);
  std::vector<std::optional<Walker>> walkers(workers);
  std::atomic<bool> rises{false};
  parallelFor(workers, trees.first.size(), 64, [&](std::size_t begin, std::size_t end, unsigned w) {
    if (!walkers[w]) walkers[w].emplace(tables.switches);
    bool unused = false;
    for (std::size_t k = begin; k < end && !rises.load(std::memory_order_relaxed); ++k)
      if (!walkers[w]->walk<true>(ports, tables, trees, k, cell, unused)) rises = true;
  });
  if (rises) return false;
  same.clear();
  for (auto& w : walkers)
    if (w) same.insert(same.end(), w->same.begin(), w->same.end());
  return true;
}

Levels levelTurns(const SwitchGraph& graph, const PortMap& ports, const DragonflyTables& tables,
                  const Trees& trees, const std::vector<std::uint8_t>& climb, unsigned threads) {
  VlPlan plan;
  // Per turn, in one byte so that a tree's walk meets one cache line per
  // turn: its level, whether it climbs, whether some tree went through it.
  std::vector<std::uint8_t> cell(climb.size());
  for (std::size_t i = 0; i < cell.size(); ++i) cell[i] = climb[i] ? kClimbs : 0;
  Walker walker(graph.size());
  std::vector<Dependency> same;
  bool changed = true;
  int passes = 0;
  while (changed && passes < kMaxPasses) {
    // The pass that ends it raises nothing: first look, on threads.
    if (passes > 0 && settled(ports, tables, trees, cell.data(), threads, same)) {
      ++passes;
      changed = false;
      break;
    }
    changed = false;
    ++passes;
    walker.same.clear();
    for (std::size_t k = 0; k < trees.first.size(); ++k)
      walker.walk<false>(ports, tables, trees, k, cell.data(), changed);
    same = std::move(walker.same);
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
  return {std::move(plan), findCycle(same, graph.size() * ports.stride * 16)};
}

// The turn where the dependency from one cycle node to the next is made.
std::size_t turnOf(const PortMap& ports, std::uint32_t from, std::uint32_t to) {
  const std::size_t c1 = from / 16, c2 = to / 16;
  return (std::size_t{ports.peer[c1]} * ports.stride + ports.peerPort[c1]) * ports.stride +
         c2 % ports.stride;
}

}  // namespace

VlPlan planVls(const SwitchGraph& graph, const PortMap& ports, const DragonflyTables& tables,
               unsigned threads) {
  const std::size_t stride = ports.stride;
  std::vector<std::uint8_t> climb(graph.size() * stride * stride, 0);
  const Trees trees = distinctTrees(tables, graph.size(), threads);
  for (int step = 0;; ++step) {
    Levels levels = levelTurns(graph, ports, tables, trees, climb, threads);
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
                                     const PortMap& ports, const VlPlan& plan, unsigned threads) {
  const std::size_t n = graph.size(), stride = ports.stride;
  // Each switch's entries start where the switches before it end: counted
  // first, then written on threads.
  std::vector<std::size_t> start(n + 1, 0);
  for (SwitchIndex s = 0; s < n; ++s) {
    const auto& sw = fabric.node(graph.nodeId(s)).ports;
    std::size_t cabled = 0;
    for (std::size_t p = 1; p < sw.size(); ++p) cabled += sw[p].remote.has_value();
    start[s + 1] = start[s] + cabled * (cabled > 0 ? cabled - 1 : 0);
  }
  std::vector<Sl2VlEntry> out(start[n]);
  parallelFor(threads, n, 64, [&](std::size_t begin, std::size_t end, unsigned) {
    for (std::size_t s = begin; s < end; ++s) {
      const NodeId id = graph.nodeId(static_cast<SwitchIndex>(s));
      const Node& sw = fabric.node(id);
      Sl2VlEntry* at = out.data() + start[s];
      for (std::size_t in = 1; in < sw.ports.size(); ++in) {
        if (!sw.ports[in].remote) continue;
        const std::uint8_t* turns = plan.turn.data() + (s * stride + in) * stride;
        for (std::size_t o = 1; o < sw.ports.size(); ++o) {
          if (o == in || !sw.ports[o].remote) continue;
          at->sw = id;
          at->inPort = static_cast<std::uint8_t>(in);
          at->outPort = static_cast<std::uint8_t>(o);
          at->vl.fill(turns[o]);
          ++at;
        }
      }
    }
  });
  return out;
}

}  // namespace ibsm::routing::dragonfly
