// The later LIDs of an LMC range through intermediate groups; see
// DragonflyValiant.h.
#include "routing/engines/dragonfly/DragonflyValiant.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <optional>
#include <vector>

#include "routing/engines/dragonfly/DragonflyValiantRoutes.h"

namespace ibsm::routing::dragonfly {
namespace {

constexpr std::uint8_t kNoLen = 0xFF;
constexpr std::size_t kMaxLaterHops = 8;  // two global links and a local hop around each
constexpr std::size_t kMaxGlobals = 2;    // the levels DragonflyValiant.h counts on
constexpr std::size_t kMaxLids = 16;      // the report judges a port's first 16 LIDs
// Groups whose launches for one LID may share an intermediate group's cable
// to the destination: without a cap, landing where relays already are costs
// no host a path, and a third of the groups piled onto one cable.
constexpr std::uint8_t kMaxPerExit = 3;
enum Role : std::uint8_t { kFree, kRelay, kLauncher };
constexpr std::uint8_t kNoSl = 0xFF;

// A turn's bit for the level a later route takes it at.
std::uint8_t levelBit(unsigned level) {
  return static_cast<std::uint8_t>(1u << level);
}

// SL2VL gives a turn one VL per SL, and each level its own VL: on one SL
// every route through a turn takes it at one level.
bool consistent(std::uint8_t bits) {
  return std::popcount(bits) <= 1;
}

// One turn of a later route: where, at which level.
struct Turn {
  std::size_t index{0};
  std::uint8_t level{0};
};

// Where a switch's base route leaves its group and enters the destination's.
struct BaseWay {
  SwitchIndex exit{kNoSwitch};
  SwitchIndex arrival{kNoSwitch};
};

// Group J's way out for one later LID: router t's global port, and the
// router of the intermediate group it lands on.
struct Launch {
  SwitchIndex t{kNoSwitch};
  std::uint8_t port{0};
  SwitchIndex landing{kNoSwitch};
};

// A launch's cost, lowest best: the hosts whose LID it puts on their base
// route (weighted by the range's LIDs they lost before), its hops, the later
// routes already on its global cables.
struct Cost {
  std::uint64_t loss{0};
  std::uint64_t hops{0};
  std::uint64_t load{0};
  auto operator<=>(const Cost&) const = default;
};

class ValiantPlanner {
 public:
  ValiantPlanner(const SwitchGraph& graph, const PortMap& ports, const GroupIndex& gi,
                 std::uint8_t sls)
      : graph_(graph),
        ports_(ports),
        gi_(gi),
        n_(graph.size()),
        way_(n_),
        role_(n_, kFree),
        launched_(n_, 0),
        lost_(n_, 0),
        entered_(gi.groups),
        enteredHere_(n_, 0),
        launch_(gi.groups),
        load_(n_ * ports.stride, 0),
        turns_(sls, std::vector<std::uint8_t>(n_ * ports.stride * ports.stride, 0)),
        exitUses_(n_ * ports.stride, 0),
        sl_(n_, kNoSl) {}

  // Each later SL's level per turn (0 where no later route takes it).
  std::vector<std::vector<std::uint8_t>> levels() const {
    std::vector<std::vector<std::uint8_t>> out;
    for (const auto& turns : turns_) {
      auto& level = out.emplace_back(turns.size(), 0);
      for (std::size_t i = 0; i < turns.size(); ++i)
        level[i] = turns[i] == 0 ? 0 : static_cast<std::uint8_t>(std::bit_width(turns[i]) - 1u);
    }
    return out;
  }

  void planRange(DragonflyTables& t, std::size_t base, std::size_t count) {
    const SwitchIndex d = t.targets[base].sw;
    const std::uint8_t* baseRow = t.out.data() + base * n_;
    startRange(baseRow, d);
    for (std::size_t k = 1; k < count; ++k) {
      std::ranges::fill(role_, kFree);
      std::ranges::fill(exitUses_, 0);
      std::ranges::fill(launch_, Launch{});
      std::ranges::fill(sl_, kNoSl);
      const std::uint32_t D = gi_.group[d];
      for (std::uint32_t i = 0; i < gi_.groups; ++i) {
        const auto J = static_cast<std::uint32_t>((i + base + k) % gi_.groups);
        if (J != D) choose(J, d, baseRow);
      }
      std::uint8_t* row = t.out.data() + (base + k) * n_;
      std::uint8_t* sls = t.laterSl.data() + (base + k) * n_;
      writeRow(baseRow, d, row);
      row[d] = t.targets[base + k].switchPort;
      detourInGroup(baseRow, d, row);
      if (!lengths(row, d, t.len.data() + (base + k) * n_) || !markSls(baseRow, row, d, sls)) {
        // A route past two global links, or off the turns planned: the
        // LID keeps the base routes (on SL 0).
        std::copy_n(baseRow, n_, row);
        row[d] = t.targets[base + k].switchPort;
        std::copy_n(t.len.data() + base * n_, n_, t.len.data() + (base + k) * n_);
        std::fill_n(sls, n_, 0);
      }
      addRouteLoads(graph_, ports_, row, d, load_);
    }
    t.laterConflicts += rangeConflicts(graph_, ports_, t, base, count);
  }

 private:
  void startRange(const std::uint8_t* baseRow, SwitchIndex d) {
    inGroupRelays_.clear();
    std::ranges::fill(launched_, 0);
    std::ranges::fill(lost_, 0);
    for (auto& e : entered_) e.clear();
    for (SwitchIndex s = 0; s < n_; ++s) {
      way_[s] = BaseWay{};
      SwitchIndex at = s;
      for (std::size_t hop = 0; hop < kMaxLaterHops && at != d; ++hop) {
        const std::size_t c = ports_.at(at, baseRow[at]);
        if (baseRow[at] >= ports_.stride || ports_.peer[c] == kNoSwitch) break;
        if (ports_.global[c] && gi_.group[ports_.peer[c]] == gi_.group[d]) {
          way_[s] = {at, ports_.peer[c]};
          break;
        }
        at = ports_.peer[c];
      }
      if (way_[s].arrival != kNoSwitch) entered_[gi_.group[s]].push_back(way_[s].arrival);
    }
  }

  // The routers of x's base route inside x's group: x up to the one that
  // leaves it. Empty when the route does not leave it as DragonflyValiant.h
  // needs (an exit in another group).
  void relayPath(SwitchIndex x, const std::uint8_t* baseRow, std::vector<SwitchIndex>& out) const {
    out.clear();
    const SwitchIndex exit = way_[x].exit;
    if (exit == kNoSwitch || gi_.group[exit] != gi_.group[x]) return;
    for (SwitchIndex at = x; out.size() < kMaxLaterHops;
         at = ports_.peer[ports_.at(at, baseRow[at])]) {
      out.push_back(at);
      if (at == exit) return;
    }
    out.clear();
  }

  bool isExit(SwitchIndex t, std::uint32_t J) const {
    for (const SwitchIndex s : gi_.members[J])
      if (way_[s].exit == t) return true;
    return false;
  }

  // Group J's launch toward d for the LID being planned, if any router may.
  void choose(std::uint32_t J, SwitchIndex d, const std::uint8_t* baseRow) {
    Cost best{~std::uint64_t{0}, 0, 0};
    Launch pick;
    for (const SwitchIndex t : gi_.members[J]) {
      if (role_[t] != kFree || launched_[t] || isExit(t, J)) continue;
      for (std::size_t p = 1; p < ports_.stride; ++p) {
        const std::size_t c = ports_.at(t, static_cast<std::uint8_t>(p));
        const SwitchIndex x = ports_.peer[c];
        if (x == kNoSwitch || !ports_.global[c] || gi_.group[x] == gi_.group[d]) continue;
        const auto cost = launchCost(J, c, d, baseRow);
        if (cost && *cost < best && launchFits(J, t, c, d, baseRow))
          best = *cost, pick = {t, static_cast<std::uint8_t>(p), x};
      }
    }
    if (pick.t == kNoSwitch) return;
    relayPath(pick.landing, baseRow, path_);
    launchFits(J, pick.t, ports_.at(pick.t, pick.port), d, baseRow);
    launch_[J] = pick;
    role_[pick.t] = kLauncher;
    launched_[pick.t] = 1;
    claim(J, pick.t, pick.port);
    for (const SwitchIndex r : path_)
      if (role_[r] == kFree) role_[r] = kRelay, ++lost_[r];
    ++exitUses_[ports_.at(path_.back(), baseRow[path_.back()])];
    entered_[J].push_back(way_[pick.landing].arrival);
  }

  std::size_t turnAfter(std::size_t c, std::uint8_t onward) const {
    return (std::size_t{ports_.peer[c]} * ports_.stride + ports_.peerPort[c]) * ports_.stride +
           onward;
  }

  bool fits(std::uint8_t sl, const Turn& turn) const {
    return consistent(static_cast<std::uint8_t>(turns_[sl][turn.index] | levelBit(turn.level)));
  }

  // The turn a source s of J takes onto launcher t's global port.
  Turn launchTurn(SwitchIndex s, SwitchIndex t, std::uint8_t port) const {
    return {turnAfter(ports_.at(s, gi_.local(s, t)), port), 0};
  }

  // Whether every free router of J has a later SL (sl_[s]) on which its
  // route through launch channel c and the relay path (path_) takes each
  // turn at the level DragonflyValiant.h gives it (consistent()): the turns
  // after the launch, shared by J's routes, in scratch_.
  bool launchFits(std::uint32_t J, SwitchIndex t, std::size_t c, SwitchIndex d,
                  const std::uint8_t* baseRow) {
    scratch_.clear();
    std::size_t in = c;
    for (const SwitchIndex r : path_) {
      const std::size_t out = ports_.at(r, baseRow[r]);
      scratch_.push_back({turnAfter(in, baseRow[r]), 1});
      in = out;
    }
    if (const SwitchIndex arrival = ports_.peer[in]; arrival != d)
      scratch_.push_back({turnAfter(in, baseRow[arrival]), 2});
    std::uint32_t open = 0;  // bit per SL: the shared turns fit it
    for (std::uint8_t sl = 0; sl < turns_.size(); ++sl)
      if (std::ranges::all_of(scratch_, [&](const Turn& turn) { return fits(sl, turn); }))
        open |= 1u << sl;
    const auto port = static_cast<std::uint8_t>(c % ports_.stride);
    for (const SwitchIndex s : gi_.members[J]) {
      if (role_[s] != kFree || (s != t && gi_.local(s, t) == 0)) continue;
      sl_[s] = kNoSl;
      for (std::uint8_t sl = 0; sl < turns_.size() && sl_[s] == kNoSl; ++sl)
        if ((open >> sl & 1u) && (s == t || fits(sl, launchTurn(s, t, port)))) sl_[s] = sl;
      if (sl_[s] == kNoSl) return false;
    }
    return true;
  }

  // Marks the turns of J's routes as launchFits planned them.
  void claim(std::uint32_t J, SwitchIndex t, std::uint8_t port) {
    std::uint32_t used = 0;
    for (const SwitchIndex s : gi_.members[J]) {
      if (role_[s] == kRelay || (s != t && gi_.local(s, t) == 0)) continue;
      used |= 1u << sl_[s];
      if (s != t) {
        const Turn turn = launchTurn(s, t, port);
        turns_[sl_[s]][turn.index] |= levelBit(turn.level);
      }
    }
    for (std::uint8_t sl = 0; sl < turns_.size(); ++sl)
      if (used >> sl & 1u)
        for (const Turn& turn : scratch_) turns_[sl][turn.index] |= levelBit(turn.level);
  }

  // The cost of launching J's LID on channel c, or nothing where the relays
  // it needs launch, or it enters the destination group where J's earlier
  // LIDs do (but at d itself).
  std::optional<Cost> launchCost(std::uint32_t J, std::size_t c, SwitchIndex d,
                                 const std::uint8_t* baseRow) {
    const SwitchIndex x = ports_.peer[c];
    relayPath(x, baseRow, path_);
    if (path_.empty()) return std::nullopt;
    const SwitchIndex arrival = way_[x].arrival;
    if (arrival != d && std::ranges::find(entered_[J], arrival) != entered_[J].end())
      return std::nullopt;
    Cost cost;
    for (const SwitchIndex r : path_) {
      if (role_[r] == kLauncher) return std::nullopt;
      if (role_[r] == kFree) cost.loss += graph_.caCount(r) * (1 + 2 * std::uint64_t{lost_[r]});
    }
    const SwitchIndex exit = path_.back();
    if (exitUses_[ports_.at(exit, baseRow[exit])] >= kMaxPerExit) return std::nullopt;
    cost.hops = 1 + path_.size() + (arrival != d);
    cost.load = load_[c] + load_[ports_.at(exit, baseRow[exit])];
    return cost;
  }

  // Whether s's base route toward d is the one local hop to it.
  bool hopsStraightTo(const std::uint8_t* baseRow, SwitchIndex d, SwitchIndex s) const {
    if (baseRow[s] >= ports_.stride) return false;
    const std::size_t c = ports_.at(s, baseRow[s]);
    return ports_.peer[c] == d && !ports_.global[c];
  }

  // The destination group's own pairs (DragonflyValiant.h): the routers of
  // d's group that no route from another group enters go one local hop to
  // a relay m and on to d, m's base hop. m's turn, from a local channel onto
  // a local one, is no other route's, taken at level 2: the VL of the last
  // hops, which ends routes. m differs from the range's earlier LIDs'
  // relays, so a source's LIDs share no cable; an entered router is chosen
  // first (its hosts could not detour anyway), then the least loaded hop.
  void detourInGroup(const std::uint8_t* baseRow, SwitchIndex d, std::uint8_t* row) {
    markEntered(ports_, gi_.group, row, d, enteredHere_);
    const auto& members = gi_.members[gi_.group[d]];
    SwitchIndex relay = kNoSwitch;
    std::pair<std::uint8_t, std::uint64_t> best{2, 0};
    for (const SwitchIndex m : members) {
      if (m == d || !hopsStraightTo(baseRow, d, m) ||
          std::ranges::find(inGroupRelays_, m) != inGroupRelays_.end())
        continue;
      const std::pair<std::uint8_t, std::uint64_t> key{enteredHere_[m] ? 0 : 1,
                                                       load_[ports_.at(m, baseRow[m])]};
      if (key < best) best = key, relay = m;
    }
    if (relay == kNoSwitch) return;
    bool used = false;
    for (const SwitchIndex s : members) {
      const std::uint8_t port = gi_.local(s, relay);
      if (s == d || s == relay || enteredHere_[s] || port == 0 || !hopsStraightTo(baseRow, d, s))
        continue;
      const Turn turn{turnAfter(ports_.at(s, port), baseRow[relay]), 2};
      for (std::uint8_t sl = 0; sl < turns_.size() && sl_[s] == kNoSl; ++sl)
        if (fits(sl, turn)) sl_[s] = sl;
      if (sl_[s] == kNoSl) continue;
      turns_[sl_[s]][turn.index] |= levelBit(turn.level);
      row[s] = port;
      used = true;
    }
    if (used) inGroupRelays_.push_back(relay);
  }

  void writeRow(const std::uint8_t* baseRow, SwitchIndex d, std::uint8_t* row) const {
    for (SwitchIndex s = 0; s < n_; ++s) {
      const std::uint32_t J = gi_.group[s];
      const Launch& l = launch_[J];
      row[s] = baseRow[s];
      if (J == gi_.group[d] || role_[s] == kRelay || l.t == kNoSwitch) continue;
      if (s == l.t) {
        row[s] = l.port;
      } else if (const std::uint8_t p = gi_.local(s, l.t); p != 0) {
        row[s] = p;
      }
    }
  }

  // Every switch's hops toward d into len; false when some switch that the
  // base routes bring there goes astray or past two global links.
  bool lengths(const std::uint8_t* row, SwitchIndex d, std::uint8_t* len) const {
    LaterRoute r;
    for (SwitchIndex s = 0; s < n_; ++s) {
      walkRoute(ports_, row, d, s, r);
      if (!r.reached || r.globals > kMaxGlobals) {
        if (way_[s].arrival != kNoSwitch || gi_.group[s] == gi_.group[d]) return false;
        len[s] = kNoLen;
        continue;
      }
      len[s] = r.hops;
    }
    return true;
  }

  // Per switch: 0 where its route through row is its route through
  // baseRow, else 1 + the later SL launchFits gave it; false when a route
  // leaves its base route without one (a router with no cable to its
  // group's launcher, whose base route then meets it).
  bool markSls(const std::uint8_t* baseRow, const std::uint8_t* row, SwitchIndex d,
               std::uint8_t* sl) const {
    LaterRoute a, b;
    for (SwitchIndex s = 0; s < n_; ++s) {
      walkRoute(ports_, row, d, s, a);
      walkRoute(ports_, baseRow, d, s, b);
      if (sameRoute(a, b)) {
        sl[s] = 0;
      } else if (sl_[s] == kNoSl) {
        return false;
      } else {
        sl[s] = static_cast<std::uint8_t>(1 + sl_[s]);
      }
    }
    return true;
  }

  const SwitchGraph& graph_;
  const PortMap& ports_;
  const GroupIndex& gi_;
  std::size_t n_;
  std::vector<BaseWay> way_;            // per switch, toward the range's switch
  std::vector<std::uint8_t> role_;      // per switch, for the LID planned now
  std::vector<std::uint8_t> launched_;  // per switch: launched an earlier LID of the range
  std::vector<std::uint8_t> lost_;      // per switch: the range's LIDs it relayed
  std::vector<std::vector<SwitchIndex>> entered_;  // per group: where its routes enter
  std::vector<std::uint8_t> enteredHere_;          // per switch: entered, the LID planned now
  std::vector<SwitchIndex> inGroupRelays_;         // the range's relays in d's group
  std::vector<Launch> launch_;                     // per group, for the LID planned now
  std::vector<std::uint64_t> load_;                // per channel: later routes' CAs
  std::vector<std::vector<std::uint8_t>> turns_;   // per later SL, per turn: levelBit()s
  std::vector<std::uint8_t> exitUses_;             // per channel: launches of this LID through it
  std::vector<SwitchIndex> path_;                  // scratch: a relay path
  std::vector<Turn> scratch_;                      // scratch: a launch's turns after it
  std::vector<std::uint8_t> sl_;                   // per switch: its later SL (from 0), this LID
};

}  // namespace

void planValiant(const SwitchGraph& graph, const PortMap& ports, const GroupIndex& groups,
                 DragonflyTables& tables, std::uint8_t laterSls) {
  tables.laterSl.assign(tables.out.size(), 0);
  ValiantPlanner planner(graph, ports, groups, std::max<std::uint8_t>(laterSls, 1));
  for (const auto& [lid, count] : lmcRanges(tables.targets)) planner.planRange(tables, lid, count);
  tables.laterTurns = planner.levels();
}

}  // namespace ibsm::routing::dragonfly
