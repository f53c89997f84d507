// Phase two of the dragonfly routes (DragonflyPlan.h): hops, the
// breadth-first extension where a missing cable broke the pattern, and the
// detour count, one LID at a time; and routeDragonfly, which runs both.
#include <ibsm/ParallelFor.h>

#include <algorithm>
#include <optional>
#include <utility>

#include "routing/engines/dragonfly/DragonflyLmc.h"
#include "routing/engines/dragonfly/DragonflyPlan.h"
#include "routing/engines/dragonfly/DragonflyValiant.h"

namespace ibsm::routing::dragonfly {
namespace {

constexpr std::uint8_t kNoLen = 0xFF;

// One worker's scratch and the detours it counted.
class Extender {
 public:
  Extender(const SwitchGraph& graph, const DragonflyShape& shape, const PortMap& ports,
           const GroupIndex& gi)
      : graph_(graph),
        ports_(ports),
        gi_(gi),
        plus_(shape.kind == DragonflyKind::DragonflyPlus),
        detour_(graph.size(), 0),
        longer_(graph.size(), 0),
        clean_(graph.size(), 0) {}

  std::uint64_t detourRoutes{0};
  std::vector<std::pair<SwitchIndex, Lid>> examples;  // the first five this worker met

  void finish(std::size_t lid, DragonflyTables& t) {
    const std::size_t n = graph_.size();
    const LidTarget& target = t.targets[lid];
    const SwitchIndex d = target.sw;
    std::uint8_t* out = t.out.data() + lid * n;
    std::uint8_t* len = t.len.data() + lid * n;
    for (const SwitchIndex s : marked_) detour_[s] = 0;
    marked_.clear();
    // The LIDs one switch delivers mostly share their entries: a LID whose
    // entries (but d's own, which no hop count reads) equal those of an
    // earlier clean LID of d has its hops, and nothing to extend or count.
    if (const std::size_t like = clean_[d]; like != 0) {
      const std::uint8_t* was = t.out.data() + like * n;
      if (std::equal(out, out + d, was) && std::equal(out + d + 1, out + n, was + d + 1)) {
        std::copy_n(t.len.data() + like * n, n, len);
        return;
      }
    }
    // A dragonfly router without a cable to d goes around the missing one.
    if (!plus_)
      for (const SwitchIndex r : gi_.members[gi_.group[d]])
        if (r != d && out[r] != kNoRoute && gi_.local(r, d) == 0) mark(r);
    const bool whole = extend(d, out, len);
    if (whole && marked_.empty()) clean_[d] = lid;
    if (target.kind == LidKind::Ca && !marked_.empty())
      countDetours(static_cast<std::uint16_t>(lid), out, len);
  }

 private:
  void mark(SwitchIndex s) {
    if (!detour_[s]) marked_.push_back(s);
    detour_[s] = 1;
  }

  // A route is longer than the pattern's when its chain passes a detour;
  // nearest switches first (by hops, then index), so that the next hop is
  // settled.
  void countDetours(std::uint16_t lid, const std::uint8_t* out, const std::uint8_t* len) {
    const std::size_t n = graph_.size();
    byLen_.assign(256, 0);
    for (SwitchIndex s = 0; s < n; ++s) ++byLen_[len[s]];
    std::uint32_t at = 0;
    for (std::size_t l = 0; l < kNoLen; ++l) at += std::exchange(byLen_[l], at);
    order_.resize(at);
    for (SwitchIndex s = 0; s < n; ++s)
      if (len[s] != kNoLen) order_[byLen_[len[s]]++] = s;
    for (const SwitchIndex s : order_) {
      const SwitchIndex next = len[s] == 0 ? kNoSwitch : ports_.peer[ports_.at(s, out[s])];
      longer_[s] = detour_[s] || (next != kNoSwitch && longer_[next]);
      if (longer_[s] && graph_.caCount(s) > 0) {
        detourRoutes += graph_.caCount(s);
        if (examples.size() < 5) examples.emplace_back(s, Lid{lid});
      }
    }
  }

  // Switch hops along the chosen entries; kNoLen where the chain meets a
  // switch without one. Then every switch still unrouted joins the routes
  // breadth first from the routed ones, nearest first. A chain can still
  // end nowhere after that: a holder whose global link lands on a router
  // that lost every local cable, while that router's only way out is
  // through the holder. Such switches are then routed afresh, once.
  // True when the entries as planned reach d from every switch (nothing
  // extended, the entries unchanged).
  bool extend(SwitchIndex d, std::uint8_t* out, std::uint8_t* len) {
    const std::size_t n = graph_.size();
    for (int round = 0; round < 2; ++round) {
      std::fill(len, len + n, kNoLen);
      len[d] = 0;
      measure(d, out, len);
      // On a full fabric every switch is routed: no search.
      if (std::find(len, len + n, kNoLen) == len + n) return round == 0;
      if (round > 0)
        for (SwitchIndex s = 0; s < n; ++s)
          if (len[s] == kNoLen) out[s] = kNoRoute;
      joinNearest(d, out, len);
    }
    measure(d, out, len);
    return false;
  }

  void joinNearest(SwitchIndex d, std::uint8_t* out, std::uint8_t* len) {
    for (auto& b : buckets_) b.clear();
    for (SwitchIndex s = 0; s < graph_.size(); ++s)
      if (len[s] != kNoLen) bucket(len[s]).push_back(s);
    for (std::size_t l = 0; l < buckets_.size(); ++l) {
      for (std::size_t i = 0; i < buckets_[l].size(); ++i) {
        const SwitchIndex t = buckets_[l][i];
        graph_.forEachCable(t, [&](SwitchIndex u, const Cable& c) {
          if (out[u] != kNoRoute || u == d) return;
          out[u] = c.remotePort;
          len[u] = static_cast<std::uint8_t>(l + 1);
          mark(u);
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
  const GroupIndex& gi_;
  bool plus_;
  std::vector<std::uint8_t> detour_;
  std::vector<SwitchIndex> marked_;
  std::vector<std::uint8_t> longer_;
  std::vector<SwitchIndex> chain_;
  std::vector<std::vector<SwitchIndex>> buckets_;
  std::vector<std::uint32_t> byLen_;
  std::vector<SwitchIndex> order_;
  std::vector<std::size_t> clean_;  // per switch: a LID of it routed whole, or 0
};

}  // namespace

void extendRoutes(const SwitchGraph& graph, const DragonflyShape& shape, const PortMap& ports,
                  const GroupIndex& gi, DragonflyTables& tables, unsigned threads) {
  const unsigned workers = threadCount(threads);
  std::vector<std::optional<Extender>> extenders(workers);
  parallelFor(workers, tables.targets.size(), 64,
              [&](std::size_t begin, std::size_t end, unsigned w) {
                if (!extenders[w]) extenders[w].emplace(graph, shape, ports, gi);
                for (std::size_t lid = std::max<std::size_t>(begin, 1); lid < end; ++lid)
                  if (tables.targets[lid].sw != kNoSwitch) extenders[w]->finish(lid, tables);
              });
  // Each worker met its LIDs in increasing order: the first five of all are
  // among the first five of each, in LID order.
  std::vector<std::pair<SwitchIndex, Lid>> examples;
  for (const auto& e : extenders) {
    if (!e) continue;
    tables.detourRoutes += e->detourRoutes;
    examples.insert(examples.end(), e->examples.begin(), e->examples.end());
  }
  std::ranges::stable_sort(examples, {}, [](const auto& e) { return e.second.value; });
  if (examples.size() > 5) examples.resize(5);
  tables.detourExamples = std::move(examples);
}

DragonflyTables routeDragonfly(const Fabric& fabric, const SwitchGraph& graph,
                               const DragonflyShape& shape, const PortMap& ports, unsigned threads,
                               bool multipath, bool ownSl, std::uint8_t laterSls) {
  DragonflyTables t;
  const std::size_t n = graph.size();
  t.switches = n;
  t.targets = lidTargets(fabric, graph);
  t.out.assign(t.targets.size() * n, kNoRoute);
  t.len.assign(t.targets.size() * n, kNoLen);
  std::uint64_t caSources = 0;
  for (SwitchIndex s = 0; s < n; ++s) caSources += graph.caCount(s);
  for (std::size_t lid = 1; lid < t.targets.size(); ++lid)
    if (t.targets[lid].sw != kNoSwitch && t.targets[lid].kind == LidKind::Ca)
      t.caRoutes += caSources;
  const GroupIndex gi = indexGroups(graph, shape, ports);
  planGroups(graph, shape, ports, gi, t, threads);
  extendRoutes(graph, shape, ports, gi, t, threads);
  if (multipath && ownSl && shape.kind == DragonflyKind::Dragonfly && t.detourRoutes == 0) {
    // Minimal base routes on a dragonfly: the later LIDs through
    // intermediate groups, planned a LID at a time (DragonflyValiant.h).
    planValiant(graph, ports, gi, t, laterSls);
    t.laterOwnSl = true;
  } else if (multipath) {
    t.multipathSkipped = !planAlternates(graph, ports, t, ownSl);
    t.laterOwnSl = ownSl && !t.multipathSkipped;
  }
  return t;
}

}  // namespace ibsm::routing::dragonfly
