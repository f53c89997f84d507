// The later LIDs of an LMC range, switch by switch toward disjoint routes;
// see DragonflyLmc.h.
#include "routing/engines/dragonfly/DragonflyLmc.h"

#include <ibsm/ParallelFor.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace ibsm::routing::dragonfly {
namespace {

constexpr std::size_t kMaxHops = 15;
constexpr std::size_t kMaxEarlier = 15;  // the report judges a port's first 16 LIDs
constexpr int kMaxPasses = 4;
constexpr std::uint8_t kNoLen = 0xFF;
constexpr std::uint64_t kNoMove = std::uint64_t{1} << 40;  // a cost no move is taken at
constexpr std::size_t kBudget = 20'000'000;                // a8 p4 h4 at LMC 2: 3.3 million, 1 s

// One source switch's route toward the LID: its channels (s * stride +
// port), how many are global links.
struct Route {
  std::array<std::uint32_t, kMaxHops> channel{};
  std::array<std::uint8_t, kMaxHops> global{};
  std::uint8_t hops{0};
  std::uint8_t globals{0};
  bool reached{false};
  std::uint64_t bloom{0};  // a bit per channel mod 64, to skip the exact test
  std::uint8_t odd{0};     // hops out of the shapes oddTurns allows
};

// The cost of one source's route, lowest best: unreached, then how far it
// goes past the bounds on hops and global links, then (per CA behind the
// source) earlier routes it shares a channel with, then hops.
struct Cost {
  std::uint64_t broken{0};
  std::uint64_t conflicts{0};
  std::uint64_t hops{0};
  std::uint64_t load{0};  // routes of this layer's LIDs planned before on its channels
  auto operator<=>(const Cost&) const = default;
  Cost& operator+=(const Cost& o) {
    broken += o.broken, conflicts += o.conflicts, hops += o.hops, load += o.load;
    return *this;
  }
};

class AlternatePlanner {
 public:
  AlternatePlanner(const SwitchGraph& graph, const PortMap& ports, bool ownSl)
      : graph_(graph),
        ports_(ports),
        n_(graph.size()),
        ownSl_(ownSl),
        turnLevels_(n_ * ports.stride * ports.stride, 0),
        tree_(ownSl ? turnLevels_.size() : 0, 0),
        lastOn_(n_, 0),
        conflictsOn_(n_, 0),
        current_(n_),
        through_(n_) {}

  // The levels (global links crossed before) the routes toward LID `lid`
  // take each turn at, from every switch: a route's last turn apart (see
  // mixedTurns).
  void commit(const std::uint8_t* row, SwitchIndex d) {
    Route r;
    for (SwitchIndex s = 0; s < n_; ++s) {
      walk(row, d, s, r);
      unsigned level = r.global[0];
      for (std::size_t i = 1; i < r.hops; ++i) {
        turnLevels_[turn(r, i)] |= levelBit(level, i + 1 == r.hops);
        level += r.global[i];
      }
    }
  }

  // The LIDs base+1 .. base+count-1 of one port, in order. A port whose
  // base LID has the entries of the last port planned on its switch (its
  // hosts' LIDs mostly do) takes that port's later entries.
  void planPort(DragonflyTables& t, std::size_t base, std::size_t count) {
    const SwitchIndex home = t.targets[base].sw;
    if (samePlan(t, base, count)) {
      for (std::size_t k = 1; k < count; ++k) {
        const std::size_t from = (lastOn_[home] + k) * n_, to = (base + k) * n_;
        std::copy_n(t.out.data() + from, n_, t.out.data() + to);
        std::copy_n(t.len.data() + from, n_, t.len.data() + to);
        t.out[to + home] = t.targets[base + k].switchPort;
        addLoads(t.out.data() + to, home, k);
      }
      t.laterConflicts += conflictsOn_[home];
      return;
    }
    lastOn_[home] = base;
    conflictsOn_[home] = 0;
    earlier_.assign(1, std::vector<Route>(n_));
    walkAll(t.out.data() + base * n_, t.targets[base].sw, earlier_[0]);
    for (std::size_t k = 1; k < count; ++k) {
      const std::size_t lid = base + k;
      std::uint8_t* row = t.out.data() + lid * n_;
      const SwitchIndex d = t.targets[lid].sw;
      std::copy_n(t.out.data() + base * n_, n_, row);
      row[d] = t.targets[lid].switchPort;
      layer_ = std::min(k, kMaxEarlier);
      improve(row, d, static_cast<std::uint32_t>(lid));
      for (SwitchIndex s = 0; s < n_; ++s)
        if (s != d && current_[s].reached) conflictsOn_[home] += cost(s, current_[s]).conflicts;
      commit(row, d);
      addLoads(row, d, k);
      std::uint8_t* len = t.len.data() + lid * n_;
      for (SwitchIndex s = 0; s < n_; ++s) len[s] = current_[s].reached ? current_[s].hops : kNoLen;
      len[d] = 0;
      if (earlier_.size() <= kMaxEarlier)
        earlier_.push_back(current_);
      else
        std::ranges::rotate(earlier_, earlier_.begin() + 1), earlier_.back() = current_;
    }
    t.laterConflicts += conflictsOn_[home];
  }

 private:
  // The CA routes of layer k's LID through `row` onto the layer's loads.
  void addLoads(const std::uint8_t* row, SwitchIndex d, std::size_t k) {
    auto& load = loads_[std::min(k, kMaxEarlier)];
    if (load.empty()) load.assign(n_ * ports_.stride, 0);
    Route r;
    for (SwitchIndex s = 0; s < n_; ++s) {
      const auto ca = static_cast<std::uint32_t>(graph_.caCount(s));
      if (ca == 0 || s == d) continue;
      walk(row, d, s, r);
      if (r.reached)
        for (std::size_t i = 0; i < r.hops; ++i) load[r.channel[i]] += ca;
    }
  }

  bool samePlan(const DragonflyTables& t, std::size_t base, std::size_t count) const {
    const SwitchIndex d = t.targets[base].sw;
    const std::size_t last = lastOn_[d];
    if (last == 0 || last + count > t.targets.size() || t.targets[last + count - 1].sw != d ||
        t.targets[last + count - 1].rangeOffset != count - 1)
      return false;
    const std::uint8_t* a = t.out.data() + base * n_;
    const std::uint8_t* b = t.out.data() + last * n_;
    return std::equal(a, a + d, b) && std::equal(a + d + 1, a + n_, b + d + 1);
  }

  void walk(const std::uint8_t* row, SwitchIndex d, SwitchIndex s, Route& r) const {
    r.hops = r.globals = 0;
    r.bloom = 0;
    r.reached = false;
    SwitchIndex at = s;
    for (; at != d && r.hops < kMaxHops; ++r.hops) {
      const std::uint8_t p = row[at];
      if (p == kNoRoute || p >= ports_.stride) return;
      const std::size_t c = ports_.at(at, p);
      if (ports_.peer[c] == kNoSwitch) return;
      r.channel[r.hops] = static_cast<std::uint32_t>(c);
      r.bloom |= std::uint64_t{1} << (c % 64);
      r.global[r.hops] = ports_.global[c];
      r.globals += ports_.global[c];
      at = ports_.peer[c];
    }
    r.reached = at == d;
    r.odd = oddTurns(r);
  }

  // Hops out of the shapes whose VLs stay one level per global link
  // crossed: at most two global links, at most one local hop in each group
  // passed (two inside a group when the route leaves it not).
  std::uint8_t oddTurns(const Route& r) const {
    std::uint8_t odd = 0;
    unsigned globals = 0, locals = 0;
    for (std::size_t i = 0; i < r.hops; ++i) {
      if (r.global[i]) {
        if (++globals > 2) ++odd;
        locals = 0;
      } else if (++locals > 1 && !(r.globals == 0 && locals == 2)) {
        ++odd;
      }
    }
    return odd;
  }

  void walkAll(const std::uint8_t* row, SwitchIndex d, std::vector<Route>& into) const {
    for (SwitchIndex s = 0; s < n_; ++s) walk(row, d, s, into[s]);
  }

  // The turn hop i takes: (switch, in port, out port).
  std::size_t turn(const Route& r, std::size_t i) const {
    const std::size_t at = ports_.peer[r.channel[i - 1]];
    const std::size_t in = ports_.peerPort[r.channel[i - 1]];
    return (at * ports_.stride + in) * ports_.stride + (r.channel[i] - at * ports_.stride);
  }

  // A turn's bit for a level: the low four bits for turns a route goes on
  // from, the high four for a route's last turn.
  static std::uint8_t levelBit(unsigned level, bool last) {
    return static_cast<std::uint8_t>(1u << (std::min(level, 3u) + (last ? 4 : 0)));
  }

  // Hops whose turn would get another VL than the route's level: SL2VL
  // gives a turn one VL, the highest level of the routes through it, so a
  // route that goes on from a turn others take higher would climb, and the
  // climb could come round. A route's last turn may be taken at any level
  // (nothing goes on from it), but not above the routes going on from it.
  unsigned mixedTurns(const Route& r) const {
    unsigned mixed = 0, level = r.global[0];
    for (std::size_t i = 1; i < r.hops; ++i) {
      const std::size_t t = turn(r, i);
      const unsigned had = turnLevels_[t] | (ownSl_ ? tree_[t] : 0u);
      const unsigned on = had & 0xFu, last = had >> 4;
      const unsigned mine = 1u << std::min(level, 3u);
      if (i + 1 == r.hops ? (on != 0 && mine > on) : ((on | mine) != mine || last > mine)) ++mixed;
      level += r.global[i];
    }
    return mixed;
  }

  static bool shares(const Route& a, const Route& b) {
    if ((a.bloom & b.bloom) == 0) return false;
    for (std::size_t i = 0; i < a.hops; ++i)
      for (std::size_t j = 0; j < b.hops; ++j)
        if (a.channel[i] == b.channel[j]) return true;
    return false;
  }

  Cost cost(SwitchIndex s, const Route& r) const {
    const Route& base = earlier_[0][s];
    if (!r.reached) return {1u << 20, 0, 0};
    Cost c;
    c.broken =
        std::max(0, r.odd - base.odd) + std::max(0, r.hops - (base.hops + 2)) + mixedTurns(r);
    const std::uint64_t ca = graph_.caCount(s);
    for (const auto& earlier : earlier_)
      if (shares(r, earlier[s])) c.conflicts += ca;
    c.hops = ca * r.hops;
    if (const auto& load = loads_[layer_]; ca != 0 && !load.empty())
      for (std::size_t i = 0; i < r.hops; ++i) c.load += ca * load[r.channel[i]];
    return c;
  }

  // Sources through each switch (but d) along the current routes. On an SL
  // of their own the later LIDs have no base routes' levels to keep to, so
  // the LID's own routes are held to one level per turn among themselves:
  // their turns' levels, as commit() marks them, in tree_.
  void index(SwitchIndex d) {
    for (auto& list : through_) list.clear();
    for (const std::size_t t : treeTouched_) tree_[t] = 0;
    treeTouched_.clear();
    for (SwitchIndex s = 0; s < n_; ++s) {
      if (s == d || !current_[s].reached) continue;
      if (ownSl_) markTree(current_[s]);
      through_[s].push_back(s);
      for (std::size_t i = 0; i + 1 < current_[s].hops; ++i)
        through_[ports_.peer[current_[s].channel[i]]].push_back(s);
    }
  }

  void markTree(const Route& r) {
    unsigned level = r.global[0];
    for (std::size_t i = 1; i < r.hops; ++i) {
      const std::size_t t = turn(r, i);
      if (tree_[t] == 0) treeTouched_.push_back(t);
      tree_[t] |= levelBit(level, i + 1 == r.hops);
      level += r.global[i];
    }
  }

  bool outOfShape(SwitchIndex s, const Route& r) const {
    const Route& base = earlier_[0][s];
    return r.odd > base.odd || r.hops > base.hops + 2;
  }

  // The cost of the sources through u were u to take port p.
  Cost moved(std::uint8_t* row, SwitchIndex d, SwitchIndex u, std::uint8_t p) {
    const std::uint8_t was = row[u];
    row[u] = p;
    Cost after;
    for (const SwitchIndex s : through_[u]) {
      walk(row, d, s, scratch_);
      // On an SL of their own no turn holds a route to the base routes'
      // shapes: a route past them (a third global link, two local hops in
      // a group it passes, more than two hops over its base route) is no
      // candidate at all.
      if (ownSl_ && scratch_.reached && outOfShape(s, scratch_)) {
        after.broken = kNoMove;
        break;
      }
      after += cost(s, scratch_);
    }
    row[u] = was;
    return after;
  }

  void improve(std::uint8_t* row, SwitchIndex d, std::uint32_t salt) {
    walkAll(row, d, current_);
    index(d);
    for (int pass = 0; pass < kMaxPasses; ++pass) {
      bool changed = false;
      for (SwitchIndex u = 0; u < n_; ++u) {
        if (u == d || through_[u].empty()) continue;
        Cost now, best;
        for (const SwitchIndex s : through_[u]) now += cost(s, current_[s]);
        if (now.broken == 0 && now.conflicts == 0) continue;  // only hops to gain
        std::uint8_t bestPort = 0;
        for (std::size_t i = 1; i < ports_.stride; ++i) {
          const auto p = static_cast<std::uint8_t>(1 + (i - 1 + salt + u) % (ports_.stride - 1));
          if (p == row[u] || ports_.peer[ports_.at(u, p)] == kNoSwitch) continue;
          const Cost after = moved(row, d, u, p);
          if (after < now && (bestPort == 0 || after < best)) best = after, bestPort = p;
        }
        if (bestPort == 0) continue;
        row[u] = bestPort;
        for (const SwitchIndex s : through_[u]) walk(row, d, s, current_[s]);
        index(d);
        changed = true;
      }
      if (!changed) break;
    }
  }

  const SwitchGraph& graph_;
  const PortMap& ports_;
  std::size_t n_;
  bool ownSl_;
  std::vector<std::uint8_t> turnLevels_;  // [(s * stride + in) * stride + out]: level bits
  std::vector<std::uint8_t> tree_;        // the same, of the LID planned now (ownSl_)
  std::vector<std::size_t> treeTouched_;
  std::array<std::vector<std::uint32_t>, kMaxEarlier + 1> loads_;  // per layer, per channel
  std::size_t layer_{1};
  std::vector<std::size_t> lastOn_;          // per switch: the base LID of the last port planned
  std::vector<std::uint64_t> conflictsOn_;   // per switch: the last port planned's conflicts
  std::vector<std::vector<Route>> earlier_;  // [k][s]: the port's earlier LIDs, base first
  std::vector<Route> current_;
  std::vector<std::vector<SwitchIndex>> through_;
  Route scratch_;
};

}  // namespace

bool planAlternates(const SwitchGraph& graph, const PortMap& ports, DragonflyTables& tables,
                    bool ownSl) {
  const auto& targets = tables.targets;
  const auto ranges = lmcRanges(targets);  // base LID, LIDs in the range
  if (ranges.empty()) return true;
  // Each distinct later LID's plan walks every switch's route a few times
  // per port: past this many (switches^2 x later LIDs per port x degree),
  // seconds; the later LIDs keep the base routes.
  const std::size_t later = ranges.front().second - 1;
  if (graph.size() * graph.size() * later * ports.stride > kBudget) return false;
  // One table of turn levels, filled in LID order: one thread. On an SL
  // of their own the later LIDs share no VL with the base routes, so only
  // their own turns constrain them.
  AlternatePlanner planner(graph, ports, ownSl);
  const std::size_t n = graph.size();
  for (std::size_t lid = 1; lid < targets.size() && !ownSl; ++lid)
    if (targets[lid].sw != kNoSwitch &&
        (targets[lid].kind != LidKind::Ca || targets[lid].rangeOffset == 0))
      planner.commit(tables.out.data() + lid * n, targets[lid].sw);
  for (const auto& [base, count] : ranges) planner.planPort(tables, base, count);
  return true;
}

}  // namespace ibsm::routing::dragonfly
