// Phase one of the dragonfly routes (DragonflyRoutes.h): every group's own
// entries toward every LID, a group at a time; see DragonflyPlan.h.
#include <ibsm/ParallelFor.h>

#include <algorithm>
#include <limits>
#include <optional>

#include "routing/engines/dragonfly/DragonflyGroupIndex.h"
#include "routing/engines/dragonfly/DragonflyPlan.h"

namespace ibsm::routing::dragonfly {
namespace {

// One LID's entries of one group's switches, held by rank in the group:
// indexed by SwitchIndex, valid for that group's switches only.
class GroupRow {
 public:
  GroupRow(std::uint8_t* row, const std::uint32_t* rank) : row_(row), rank_(rank) {}
  std::uint8_t& operator[](SwitchIndex s) const { return row_[rank_[s]]; }
  std::uint8_t* data() const { return row_; }

 private:
  std::uint8_t* row_;
  const std::uint32_t* rank_;
};

// One group's entries toward every LID, LID by LID, and the loads they
// leave on the group's own switch ports: every choice the planner makes for
// a switch reads only loads and entries of that switch's group, so groups
// are planned independently of each other (and in parallel).
class GroupPlanner {
 public:
  GroupPlanner(const SwitchGraph& graph, const DragonflyShape& shape, const PortMap& ports,
               const GroupIndex& gi)
      : ports_(ports),
        plus_(shape.kind == DragonflyKind::DragonflyPlus),
        gi_(gi),
        load_(graph.size() * ports.stride, 0),
        weight_(graph.size()),
        isLeafOrRouter_(graph.size()),
        holderPick_(graph.size(), 0) {
    for (SwitchIndex s = 0; s < graph.size(); ++s) {
      weight_[s] = static_cast<std::uint32_t>(graph.caCount(s));  // CA sources only
      isLeafOrRouter_[s] = shape.roleOf[graph.nodeId(s)] != DragonflyRole::Spine;
    }
  }

  // Group g's entries toward every LID in LID order (the loads one LID
  // leaves decide the next one's choices) into rows[lid * width + rank],
  // which holds kNoRoute. A CA's second or later LID (LMC) gets its base
  // LID's entries here and no load: planAlternates (DragonflyLmc.h) moves
  // them apart once every base route is known.
  void plan(std::uint32_t g, const std::vector<LidTarget>& targets, std::uint8_t* rows,
            std::size_t width) {
    prepareSingles(g);
    const bool unread = loadsUnread(g);
    for (std::size_t lid = 1; lid < targets.size(); ++lid) {
      const LidTarget& target = targets[lid];
      if (target.sw == kNoSwitch) continue;
      const GroupRow out(rows + lid * width, gi_.rank.data());
      const std::uint32_t gd = gi_.group[target.sw];
      if (target.kind == LidKind::Ca && target.rangeOffset > 0 && lid > target.rangeOffset) {
        copyRow(rows + (lid - target.rangeOffset) * width, gi_.size, out.data());
        if (gd == g) out[target.sw] = target.switchPort;
        continue;
      }
      countingLoad_ = target.kind == LidKind::Ca && !unread;
      const auto salt = static_cast<std::uint32_t>(lid);
      if (gd != g) {
        if (!single_[gd].usable || load_[single_[gd].holderLoad] == kFull)
          towardGroup(g, gd, salt, out);
        else
          towardGroupBySingle(g, gd, out);
        continue;
      }
      out[target.sw] = target.switchPort;
      for (const SwitchIndex r : gi_.members[g])
        if (r != target.sw) out[r] = towardInGroup(r, target.sw, salt);
    }
  }

 private:
  static constexpr std::uint32_t kFull = std::numeric_limits<std::uint32_t>::max();

  // Toward a group gd that group g reaches by one global cable (every group
  // pair of a full dragonfly), the holder takes it and the members feed it
  // whatever the loads are: towardGroup's choices for the holder and the
  // feeders, worked out once per group pair. What they add to the loads is
  // added per LID; members left without a route go on as in towardGroup.
  struct Single {
    bool usable{false};
    bool rest{false};                      // some member left without a route
    std::uint32_t holderLoad{0};           // index into load_ of the holder's cable
    std::uint32_t holderAdd{0};            // its sources and the feeders'
    std::uint32_t fedBegin{0}, fedEnd{0};  // into fed_: (load index, sources)
  };

  void prepareSingles(std::uint32_t g) {
    const std::size_t size = gi_.size;
    single_.assign(gi_.groups, Single{});
    singleRow_.assign(std::size_t{gi_.groups} * size, kNoRoute);
    fed_.clear();
    for (std::uint32_t gd = 0; gd < gi_.groups; ++gd) {
      const auto cables = gi_.between(g, gd);
      if (gd == g || cables.size() != 1) continue;
      Single& one = single_[gd];
      std::uint8_t* row = singleRow_.data() + std::size_t{gd} * size;
      const SwitchIndex h = cables[0].from;
      row[gi_.rank[h]] = cables[0].port;
      one.usable = true;
      one.holderLoad = static_cast<std::uint32_t>(ports_.at(h, cables[0].port));
      one.holderAdd = weight_[h];
      one.fedBegin = static_cast<std::uint32_t>(fed_.size());
      for (const SwitchIndex s : gi_.members[g]) {
        if (s == h || !isLeafOrRouter_[s]) continue;
        const std::uint8_t p = gi_.local(s, h);
        if (!p) continue;
        row[gi_.rank[s]] = p;
        fed_.emplace_back(static_cast<std::uint32_t>(ports_.at(s, p)), weight_[s]);
        one.holderAdd += weight_[s];
      }
      one.fedEnd = static_cast<std::uint32_t>(fed_.size());
      one.rest = std::ranges::find(row, row + size, kNoRoute) != row + size;
    }
  }

  // Whether no choice in group g reads a load: a dragonfly (no leaf picks
  // a spine) whose every other group is one cable away and fed by every
  // member. Then the loads need no counting (planning one group never reads
  // another's; an LMC range's later LIDs count none here).
  bool loadsUnread(std::uint32_t g) const {
    if (plus_) return false;
    for (std::uint32_t gd = 0; gd < gi_.groups; ++gd)
      if (gd != g && (!single_[gd].usable || single_[gd].rest)) return false;
    return true;
  }

  void towardGroupBySingle(std::uint32_t gs, std::uint32_t gd, const GroupRow& out) {
    const Single& one = single_[gd];
    copyRow(singleRow_.data() + std::size_t{gd} * gi_.size, gi_.size, out.data());
    if (countingLoad_) {
      load_[one.holderLoad] += one.holderAdd;
      for (std::uint32_t i = one.fedBegin; i < one.fedEnd; ++i)
        load_[fed_[i].first] += fed_[i].second;
    }
    if (one.rest) routeTheRest(gs, gd, out);
  }

  std::uint32_t& load(SwitchIndex s, std::uint8_t port) { return load_[ports_.at(s, port)]; }
  // Adds the CA sources of `source` to the load of (s, port), for CA LIDs:
  // traffic to switch LIDs is management traffic and would skew the count.
  void count(SwitchIndex s, std::uint8_t port, SwitchIndex source) {
    if (countingLoad_) load(s, port) += weight_[source];
  }

  // The member a switch without a cable to d goes through to reach d inside
  // the group: always the same one, so that the turn it makes there carries
  // only traffic that ends in this group (see towardGroup).
  SwitchIndex detourVia(SwitchIndex r, SwitchIndex d) const {
    for (const SwitchIndex t : gi_.members[gi_.group[r]])
      if (t != r && t != d && gi_.local(r, t) && gi_.local(t, d)) return t;
    return kNoSwitch;
  }

  std::uint8_t towardInGroup(SwitchIndex r, SwitchIndex d, std::uint32_t salt) {
    std::uint8_t p = gi_.local(r, d);
    if (!p && plus_ && isLeafOrRouter_[r] && isLeafOrRouter_[d]) {
      // Leaf to leaf: up to the least loaded spine cabled to both. Only
      // traffic that starts in this group turns at a spine from leaf to leaf.
      const auto& members = gi_.members[gi_.group[r]];
      std::uint32_t bestLoad = std::numeric_limits<std::uint32_t>::max();
      for (std::size_t i = 0; i < members.size(); ++i) {
        const SwitchIndex t = members[(i + salt) % members.size()];
        const std::uint8_t up = gi_.local(r, t);
        if (up && gi_.local(t, d) && load(r, up) < bestLoad) bestLoad = load(r, up), p = up;
      }
    } else if (!p && (isLeafOrRouter_[r] || !isLeafOrRouter_[d])) {
      // A leaf reaches another leaf (a spine another spine) through the
      // layer between; a dragonfly router whose local cable is missing
      // through another router.
      if (const SwitchIndex t = detourVia(r, d); t != kNoSwitch) p = gi_.local(r, t);
    }
    if (p) count(r, p, r);
    return p ? p : kNoRoute;
  }

  void towardGroup(std::uint32_t gs, std::uint32_t gd, std::uint32_t salt, const GroupRow& out) {
    const auto cables = gi_.between(gs, gd);
    if (cables.empty()) {
      // No global link between the groups (cut): through a third group;
      // the extension finds the rest.
      throughThirdGroups(gs, gd, salt, out);
      return;
    }
    // Holders first: each takes the least loaded of its own global cables.
    for (std::size_t i = 0; i < cables.size(); ++i) {
      const auto& c = cables[(i + salt) % cables.size()];
      if (out[c.from] == kNoRoute || load(c.from, c.port) < load(c.from, out[c.from]))
        out[c.from] = c.port;
    }
    for (const auto& c : cables) holderPick_[c.from] = 1;
    for (const auto& c : cables) {
      if (!holderPick_[c.from]) continue;
      count(c.from, out[c.from], c.from);
      holderPick_[c.from] = 0;
    }
    // The others feed the holder whose chosen global cable carries least.
    feedLeastLoaded(gs, out, cables.size(), [&](SwitchIndex s, std::size_t i) {
      // One cable (a full dragonfly's every group pair): no division.
      return cables.size() == 1 ? cables[0].from : cables[(i + salt + s) % cables.size()].from;
    });
    routeTheRest(gs, gd, out);
  }

  // Switches cabled to no holder (dragonfly+ spines without this group's
  // global links, routers whose cables to the holders are cut) carry only
  // their own traffic toward gd. A spine first tries a global link to a
  // spine that holds one to gd (one more global hop, one more VL, no local
  // ring); then, as a router does, one local hop to a member that feeds a
  // holder; a spine last tries a global link to a spine that goes down.
  void routeTheRest(std::uint32_t gs, std::uint32_t gd, const GroupRow& out) {
    for (const SwitchIndex s : gi_.members[gs]) {
      if (out[s] != kNoRoute) continue;
      const bool spine = !isLeafOrRouter_[s];
      std::uint8_t port = spine ? throughThirdGroup(s, gd) : 0;
      if (!port) port = throughMember(s, out, spine, false);
      if (!port && spine) port = throughMember(s, out, false, false);
      // A router whose only way to a holder is the turn traffic entering
      // the group takes toward it shares that turn: one VL more for its
      // own traffic, still one global link and a shortest local path.
      if (!port && !spine) port = throughMember(s, out, false, true);
      if (port) {
        out[s] = port;
        count(s, port, s);
      }
    }
  }

  // Around a cut group pair: a switch without a global link to gd takes one to a third group,
  // landing on a switch that holds one to gd (which forwards there: holders always take their own);
  // leaves and routers without such a link go one local hop to a member that
  // has one. Local, global, global, local: the global-to-global turn is one
  // VL up, the destination group one more.
  void throughThirdGroups(std::uint32_t gs, std::uint32_t gd, std::uint32_t salt,
                          const GroupRow& out) {
    std::vector<SwitchIndex> valiant;
    for (const SwitchIndex s : gi_.members[gs]) {
      if (out[s] != kNoRoute) continue;
      std::uint8_t best = 0;
      std::uint32_t bestLoad = std::numeric_limits<std::uint32_t>::max();
      for (std::size_t i = 1; i < ports_.stride; ++i) {
        const auto p = static_cast<std::uint8_t>(1 + (i - 1 + salt) % (ports_.stride - 1));
        const std::size_t at = ports_.at(s, p);
        const SwitchIndex w = ports_.peer[at];
        if (w == kNoSwitch || !ports_.global[at] || gi_.group[w] == gd || !holdsTo(w, gd)) continue;
        if (load(s, p) < bestLoad) bestLoad = load(s, p), best = p;
      }
      if (!best) continue;
      out[s] = best;
      count(s, best, s);
      valiant.push_back(s);
    }
    feedLeastLoaded(gs, out, valiant.size(),
                    [&](SwitchIndex, std::size_t i) { return valiant[i]; });
  }

  // Every leaf or router of group gs without a route yet goes one local hop
  // to the feeder (a member that has one) whose chosen link, then the local
  // cable to it, carries least; feeder(s, i) is s's i-th candidate of n, in
  // the order ties go to.
  template <typename Feeder>
  void feedLeastLoaded(std::uint32_t gs, const GroupRow& out, std::size_t n, Feeder feeder) {
    for (const SwitchIndex s : gi_.members[gs]) {
      if (out[s] != kNoRoute || !isLeafOrRouter_[s]) continue;
      SwitchIndex best = kNoSwitch;
      std::uint8_t bestPort = 0;
      std::uint64_t bestKey = std::numeric_limits<std::uint64_t>::max();
      for (std::size_t i = 0; i < n; ++i) {
        const SwitchIndex r = feeder(s, i);
        const std::uint8_t p = gi_.local(s, r);
        if (!p) continue;
        const std::uint64_t key = (std::uint64_t{load(r, out[r])} << 32) | load(s, p);
        if (key < bestKey) bestKey = key, best = r, bestPort = p;
      }
      if (best == kNoSwitch) continue;
      out[s] = bestPort;
      count(s, bestPort, s);
      count(best, out[best], s);
    }
  }

  bool holdsTo(SwitchIndex w, std::uint32_t gd) const {
    for (const auto& c : gi_.between(gi_.group[w], gd))
      if (c.from == w) return true;
    return false;
  }

  // One local hop to a member t that forwards to a holder h, never through
  // the member detourVia names for h: traffic arriving from another group
  // turns there, and a turn shared by both would carry the VL climb of one
  // group into the next. With `ordered`, a spine goes down and up again
  // only toward a later spine, so such turns cannot chain into a ring of
  // local links on one VL. With `share`, the member detourVia names is
  // taken too.
  std::uint8_t throughMember(SwitchIndex s, const GroupRow& out, bool ordered, bool share) {
    std::uint8_t bestPort = 0;
    std::uint32_t bestLoad = std::numeric_limits<std::uint32_t>::max();
    for (const SwitchIndex t : gi_.members[gi_.group[s]]) {
      const std::uint8_t p = gi_.local(s, t);
      if (!p || out[t] == kNoRoute || ports_.global[ports_.at(t, out[t])]) continue;
      const SwitchIndex h = ports_.peer[ports_.at(t, out[t])];
      if (h == kNoSwitch || h == s || (!share && detourVia(s, h) == t)) continue;
      // A dragonfly router's two local hops end at a holder: a third would
      // make the route longer than the cabling needs.
      if (!plus_ && (out[h] == kNoRoute || !ports_.global[ports_.at(h, out[h])])) continue;
      if (ordered && gi_.rank[h] < gi_.rank[s]) continue;
      if (load(s, p) < bestLoad) bestLoad = load(s, p), bestPort = p;
    }
    return bestPort;
  }

  // A global link of s to a spine w of a third group that holds a global
  // link to gd, which is its entry toward gd (holders take their own). Only
  // toward groups planned before s's in the order the groups were once
  // planned one after another (lower group numbers), so that the tables
  // stay those of that order.
  std::uint8_t throughThirdGroup(SwitchIndex s, std::uint32_t gd) const {
    for (std::size_t p = 1; p < ports_.stride; ++p) {
      const std::size_t at = ports_.at(s, static_cast<std::uint8_t>(p));
      const SwitchIndex w = ports_.peer[at];
      if (w == kNoSwitch || !ports_.global[at] || gi_.group[w] == gd) continue;
      if (gi_.group[w] < gi_.group[s] && holdsTo(w, gd)) return static_cast<std::uint8_t>(p);
    }
    return 0;
  }

  const PortMap& ports_;
  bool plus_;
  bool countingLoad_{true};
  const GroupIndex& gi_;
  std::vector<std::uint32_t> load_;
  std::vector<std::uint32_t> weight_;
  std::vector<std::uint8_t> isLeafOrRouter_;
  std::vector<std::uint8_t> holderPick_;
  std::vector<Single> single_;           // by destination group, for the group planned
  std::vector<std::uint8_t> singleRow_;  // [gd * size + rank]
  std::vector<std::pair<std::uint32_t, std::uint32_t>> fed_;
};

}  // namespace

void planGroups(const SwitchGraph& graph, const DragonflyShape& shape, const PortMap& ports,
                const GroupIndex& gi, DragonflyTables& tables, unsigned threads) {
  const std::size_t n = graph.size();
  const std::size_t lids = tables.targets.size();
  const unsigned workers = threadCount(threads);
  // Per worker: a planner (its loads are those of the groups it plans, which
  // no other worker touches) and a chunk of groups' rows, copied out when
  // planned: a chunk's switches fill about a cache line of each LID's row.
  const std::size_t perChunk = std::max<std::size_t>(1, 64 / std::max<std::size_t>(gi.size, 1));
  std::vector<std::optional<GroupPlanner>> planners(workers);
  std::vector<std::vector<std::uint8_t>> rows(workers);
  std::vector<std::vector<SwitchIndex>> switches(workers);  // of the chunk, by rank
  parallelFor(workers, gi.groups, perChunk, [&](std::size_t begin, std::size_t end, unsigned w) {
    if (!planners[w]) planners[w].emplace(graph, shape, ports, gi);
    const std::size_t width = (end - begin) * gi.size;
    rows[w].assign(lids * width, kNoRoute);
    switches[w].assign(width, kNoSwitch);
    for (std::size_t g = begin; g < end; ++g) {
      const std::size_t offset = (g - begin) * gi.size;
      // Rows of `width` bytes, this group at `offset`.
      planners[w]->plan(static_cast<std::uint32_t>(g), tables.targets, rows[w].data() + offset,
                        width);
      std::ranges::copy(gi.members[g], switches[w].begin() + static_cast<std::ptrdiff_t>(offset));
    }
    const SwitchIndex* to = switches[w].data();
    // Groups numbered along the switches (as generated fabrics are): the
    // chunk's row is one run of each LID's row.
    bool run = true;
    for (std::size_t i = 0; i < width && run; ++i) run = to[i] == to[0] + i;
    for (std::size_t lid = 1; lid < lids; ++lid) {
      const std::uint8_t* row = rows[w].data() + lid * width;
      std::uint8_t* out = tables.out.data() + lid * n;
      if (run) {
        copyRow(row, width, out + to[0]);
        continue;
      }
      for (std::size_t i = 0; i < width; ++i)
        if (to[i] != kNoSwitch) out[to[i]] = row[i];
    }
  });
}

std::vector<std::pair<std::size_t, std::size_t>> lmcRanges(const std::vector<LidTarget>& targets) {
  std::vector<std::pair<std::size_t, std::size_t>> ranges;
  for (std::size_t lid = 1; lid < targets.size(); ++lid) {
    const LidTarget& t = targets[lid];
    if (t.sw == kNoSwitch || t.kind != LidKind::Ca || t.rangeOffset != 0) continue;
    std::size_t count = 1;
    while (lid + count < targets.size() && targets[lid + count].sw == t.sw &&
           targets[lid + count].rangeOffset == count && targets[lid + count].kind == LidKind::Ca)
      ++count;
    if (count > 1) ranges.emplace_back(lid, count);
  }
  return ranges;
}

}  // namespace ibsm::routing::dragonfly
