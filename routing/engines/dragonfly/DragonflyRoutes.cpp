#include "routing/engines/dragonfly/DragonflyRoutes.h"

#include <algorithm>
#include <limits>

#include "routing/engines/dragonfly/DragonflyGroupIndex.h"

namespace ibsm::routing::dragonfly {
namespace {

constexpr std::uint8_t kNoLen = 0xFF;

// One destination's routes and the loads they leave on every switch port.
class Router {
 public:
  Router(const SwitchGraph& graph, const DragonflyShape& shape, const PortMap& ports)
      : graph_(graph),
        ports_(ports),
        plus_(shape.kind == DragonflyKind::DragonflyPlus),
        gi_(indexGroups(graph, shape, ports)),
        load_(graph.size() * ports.stride, 0),
        weight_(graph.size()),
        isLeafOrRouter_(graph.size()),
        holderPick_(graph.size(), 0) {
    for (SwitchIndex s = 0; s < graph.size(); ++s) {
      weight_[s] = static_cast<std::uint32_t>(graph.caCount(s));  // CA sources only
      isLeafOrRouter_[s] = shape.roleOf[graph.nodeId(s)] != DragonflyRole::Spine;
    }
  }

  // Fills out/len (n each) for a LID delivered by switch d at port q; marks
  // detour[s] for switches routed by the breadth-first extension.
  // `alternate`: a CA's second or later LID (LMC), routed through a third
  // group where a switch can (see towardGroup).
  void route(SwitchIndex d, std::uint8_t q, bool caLid, bool alternate, std::uint32_t salt,
             std::uint8_t* out, std::uint8_t* len, std::vector<std::uint8_t>& detour) {
    countingLoad_ = caLid;
    alternate_ = alternate;
    const std::size_t n = graph_.size();
    std::fill(out, out + n, kNoRoute);
    std::fill(detour.begin(), detour.end(), 0);
    out[d] = q;
    const std::uint32_t gd = gi_.group[d];
    for (const SwitchIndex r : gi_.members[gd]) {
      if (r == d) continue;
      out[r] = towardInGroup(r, d, salt);
      // A dragonfly router without a cable to d goes around the missing one.
      if (!plus_ && out[r] != kNoRoute && gi_.local(r, d) == 0) detour[r] = 1;
    }
    for (std::uint32_t gs = 0; gs < gi_.groups; ++gs)
      if (gs != gd) towardGroup(gs, gd, salt, out);
    extend(d, out, len, detour);
  }

 private:
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

  void towardGroup(std::uint32_t gs, std::uint32_t gd, std::uint32_t salt, std::uint8_t* out) {
    const auto cables = gi_.between(gs, gd);
    if (cables.empty()) {
      // No global link between the groups (cut): through a third group, as
      // an LMC range's later LIDs go; the extension finds the rest.
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
    if (alternate_) throughThirdGroups(gs, gd, salt, out);
    // The others feed the holder whose chosen global cable carries least.
    feedLeastLoaded(gs, out, cables.size(), [&](SwitchIndex s, std::size_t i) {
      return cables[(i + salt + s) % cables.size()].from;
    });
    // Switches cabled to no holder (dragonfly+ spines without this group's
    // global links, routers whose cables to the holders are cut) carry only
    // their own traffic toward gd. A spine first tries a global link to a
    // spine that holds one to gd (one more global hop, one more VL, no local
    // ring); then, as a router does, one local hop to a member that feeds a
    // holder; a spine last tries a global link to a spine that goes down.
    for (const SwitchIndex s : gi_.members[gs]) {
      if (out[s] != kNoRoute) continue;
      const bool spine = !isLeafOrRouter_[s];
      std::uint8_t port = spine ? throughThirdGroup(s, gd, out, true) : 0;
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

  // The non-minimal routes of an LMC range's later LIDs: a switch without a
  // global link to gd takes one to a third group, landing on a switch that
  // holds one to gd (which forwards there: holders always take their own);
  // leaves and routers without such a link go one local hop to a member that
  // has one. Local, global, global, local: the global-to-global turn is one
  // VL up, the destination group one more.
  void throughThirdGroups(std::uint32_t gs, std::uint32_t gd, std::uint32_t salt,
                          std::uint8_t* out) {
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
  void feedLeastLoaded(std::uint32_t gs, std::uint8_t* out, std::size_t n, Feeder feeder) {
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
  std::uint8_t throughMember(SwitchIndex s, const std::uint8_t* out, bool ordered, bool share) {
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

  // A global link of s to a spine w of a third group whose entry toward gd
  // is its own global link (`holder`), or else already leads down to a leaf
  // of its group (w was routed before s and never back to s's group).
  std::uint8_t throughThirdGroup(SwitchIndex s, std::uint32_t gd, const std::uint8_t* out,
                                 bool holder) const {
    for (std::size_t p = 1; p < ports_.stride; ++p) {
      const std::size_t at = ports_.at(s, static_cast<std::uint8_t>(p));
      const SwitchIndex w = ports_.peer[at];
      if (w == kNoSwitch || !ports_.global[at] || gi_.group[w] == gd) continue;
      if (out[w] == kNoRoute) continue;
      const std::size_t next = ports_.at(w, out[w]);
      if (ports_.peer[next] == kNoSwitch) continue;
      const bool viaGlobal = ports_.global[next] != 0;
      if (holder ? viaGlobal && gi_.group[ports_.peer[next]] == gd
                 : !viaGlobal && gi_.group[w] < gi_.group[s])
        return static_cast<std::uint8_t>(p);
    }
    return 0;
  }

  // Switch hops along the chosen entries; kNoLen where the chain meets a
  // switch without one. Then every switch still unrouted joins the routes
  // breadth first from the routed ones, nearest first. A chain can still
  // end nowhere after that: a holder whose global link lands on a router
  // that lost every local cable, while that router's only way out is
  // through the holder. Such switches are then routed afresh, once.
  void extend(SwitchIndex d, std::uint8_t* out, std::uint8_t* len,
              std::vector<std::uint8_t>& detour) {
    const std::size_t n = graph_.size();
    for (int round = 0; round < 2; ++round) {
      std::fill(len, len + n, kNoLen);
      len[d] = 0;
      measure(d, out, len);
      // On a full fabric every switch is routed: no search.
      if (std::find(len, len + n, kNoLen) == len + n) return;
      if (round > 0)
        for (SwitchIndex s = 0; s < n; ++s)
          if (len[s] == kNoLen) out[s] = kNoRoute;
      joinNearest(d, out, len, detour);
    }
    measure(d, out, len);
  }

  void joinNearest(SwitchIndex d, std::uint8_t* out, std::uint8_t* len,
                   std::vector<std::uint8_t>& detour) {
    std::vector<std::vector<SwitchIndex>>& buckets = buckets_;
    for (auto& b : buckets) b.clear();
    for (SwitchIndex s = 0; s < graph_.size(); ++s)
      if (len[s] != kNoLen) bucket(len[s]).push_back(s);
    for (std::size_t l = 0; l < buckets.size(); ++l) {
      for (std::size_t i = 0; i < buckets[l].size(); ++i) {
        const SwitchIndex t = buckets[l][i];
        graph_.forEachCable(t, [&](SwitchIndex u, const Cable& c) {
          if (out[u] != kNoRoute || u == d) return;
          out[u] = c.remotePort;
          len[u] = static_cast<std::uint8_t>(l + 1);
          detour[u] = 1;
          bucket(l + 1).push_back(u);
        });
      }
    }
  }

  std::vector<SwitchIndex>& bucket(std::size_t l) {
    if (buckets_.size() <= l) buckets_.resize(l + 1);
    return buckets_[l];
  }

  void measure(SwitchIndex d, const std::uint8_t* out, std::uint8_t* len) {
    const std::size_t n = graph_.size();
    for (SwitchIndex s = 0; s < n; ++s) {
      if (len[s] != kNoLen || out[s] == kNoRoute) continue;
      chain_.clear();
      SwitchIndex t = s;
      while (len[t] == kNoLen && out[t] != kNoRoute && t != d && chain_.size() <= n) {
        chain_.push_back(t);
        t = ports_.peer[ports_.at(t, out[t])];
        if (t == kNoSwitch) break;
      }
      if (t == kNoSwitch || len[t] == kNoLen || chain_.size() > n) continue;
      std::uint32_t l = len[t];
      for (auto it = chain_.rbegin(); it != chain_.rend(); ++it)
        len[*it] = static_cast<std::uint8_t>(std::min<std::uint32_t>(++l, kNoLen - 1));
    }
  }

  const SwitchGraph& graph_;
  const PortMap& ports_;
  bool plus_;
  bool countingLoad_{true};
  bool alternate_{false};
  GroupIndex gi_;
  std::vector<std::uint32_t> load_;
  std::vector<std::uint32_t> weight_;
  std::vector<std::uint8_t> isLeafOrRouter_;
  std::vector<std::uint8_t> holderPick_;
  std::vector<SwitchIndex> chain_;
  std::vector<std::vector<SwitchIndex>> buckets_;
};

}  // namespace
DragonflyTables routeDragonfly(const Fabric& fabric, const SwitchGraph& graph,
                               const DragonflyShape& shape, const PortMap& ports) {
  (void)fabric;
  DragonflyTables t;
  const std::size_t n = graph.size();
  t.switches = n;
  t.targets = lidTargets(fabric, graph);
  t.out.assign(t.targets.size() * n, kNoRoute);
  t.len.assign(t.targets.size() * n, kNoLen);
  Router router(graph, shape, ports);
  std::vector<std::uint8_t> detour(n, 0);
  std::vector<std::uint8_t> longer(n, 0);
  std::vector<SwitchIndex> order;
  std::uint64_t caSources = 0;
  for (SwitchIndex s = 0; s < n; ++s) caSources += graph.caCount(s);
  for (std::size_t lid = 1; lid < t.targets.size(); ++lid) {
    const LidTarget& target = t.targets[lid];
    if (target.sw == kNoSwitch) continue;
    std::uint8_t* out = t.out.data() + lid * n;
    std::uint8_t* len = t.len.data() + lid * n;
    const bool ca = target.kind == LidKind::Ca;
    router.route(target.sw, target.switchPort, ca, ca && target.rangeOffset > 0,
                 static_cast<std::uint32_t>(lid), out, len, detour);
    if (target.kind != LidKind::Ca) continue;
    t.caRoutes += caSources;
    if (std::ranges::find(detour, std::uint8_t{1}) == detour.end()) continue;
    // A route is longer than the pattern's when its chain passes a detour;
    // nearest switches first, so that the next hop is settled.
    order.clear();
    for (std::uint8_t l = 0; order.size() < n && l < kNoLen; ++l) {
      const std::size_t before = order.size();
      for (SwitchIndex s = 0; s < n; ++s)
        if (len[s] == l) order.push_back(s);
      if (order.size() == before) break;
    }
    for (const SwitchIndex s : order) {
      const SwitchIndex next = len[s] == 0 ? kNoSwitch : ports.peer[ports.at(s, out[s])];
      longer[s] = detour[s] || (next != kNoSwitch && longer[next]);
      if (longer[s] && graph.caCount(s) > 0) {
        t.detourRoutes += graph.caCount(s);
        if (t.detourExamples.size() < 5)
          t.detourExamples.emplace_back(s, Lid{static_cast<std::uint16_t>(lid)});
      }
    }
  }
  return t;
}

}  // namespace ibsm::routing::dragonfly
