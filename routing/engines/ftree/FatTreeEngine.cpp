// ftree: fat-tree routing. The fabric is read as a fat tree (FatTreeLayout,
// refused with the reason when it is not one); CA LIDs are routed D-mod-K on
// a complete, regular tree (FatTreeDmodk) and load-balanced otherwise
// (FatTreeBalanced), switch LIDs by shortest legal paths; every destination
// then passes the hub-order check (FatTreeLegalise), which also routes the
// pairs that have no common ancestor. Every LID is routed from every switch
// and the tables are free of credit loops on one VL.
#include <fmt/format.h>
#include <ibsm/Engines.h>
#include <ibsm/ParallelFor.h>

#include <algorithm>
#include <numeric>
#include <tuple>

#include "routing/engines/ftree/FatTreeBalanced.h"
#include "routing/engines/ftree/FatTreeDegraded.h"
#include "routing/engines/ftree/FatTreeDestinations.h"
#include "routing/engines/ftree/FatTreeDmodk.h"
#include "routing/engines/ftree/FatTreeHint.h"
#include "routing/engines/ftree/FatTreeHub.h"
#include "routing/engines/ftree/FatTreeLayout.h"
#include "routing/engines/ftree/FatTreeLegalise.h"
#include "routing/engines/ftree/FatTreeReach.h"
#include "routing/engines/ftree/FatTreeRecognition.h"
#include "routing/graph/SwitchGraph.h"

namespace ibsm {
namespace {

using routing::Endpoint;
using routing::kNoSwitch;
using routing::SwitchGraph;
using routing::SwitchIndex;
using namespace routing::ftree;

// Switch LIDs, aggregation nodes and upper CAs carry little of the compute
// traffic, so they need no balance beyond taking turns: shortest legal path,
// least used cable among equals (counters of their own, so they never shift
// the compute routes).
class ShortestRoutes {
 public:
  // `turn`: where each switch starts looking among equally used cables, so
  // that routes started afresh (a block of targets, below) do not all begin
  // on the first cable.
  ShortestRoutes(const FatTreeLayout& layout, const FatTreeReach& reach, std::size_t turn)
      : layout_(layout), reach_(reach), used_(layout.cables(), 0), turn_(turn) {}

  void column(SwitchIndex target, std::vector<CableId>& next) {
    legalDistances(layout_, reach_, target, dist_);
    for (SwitchIndex s = 0; s < layout_.switches(); ++s) {
      next[s] = s == target ? kDeliver : kNoCable;
      if (s == target || dist_[s] == kFar) continue;
      const auto cables = reach_.under(s, target) ? layout_.downCables(s) : layout_.upCables(s);
      for (std::size_t k = 0; k < cables.size(); ++k) {
        const CableId c = cables[(k + turn_) % cables.size()];
        if (dist_[layout_.to[c]] + 1 != dist_[s]) continue;
        if (next[s] == kNoCable || used_[c] < used_[next[s]]) next[s] = c;
      }
      if (next[s] != kNoCable) ++used_[next[s]];
    }
  }

 private:
  const FatTreeLayout& layout_;
  const FatTreeReach& reach_;
  std::vector<std::uint32_t> used_;
  std::size_t turn_;
  std::vector<std::uint16_t> dist_;
};

struct Tally {
  std::size_t hubRoutedCa{0};         // (switch, CA LID) entries the hub order routed
  std::size_t hubRoutedSwitch{0};     // (switch, switch LID) entries
  std::size_t hubRoutedOther{0};      // (switch, aggregation node or upper CA LID) entries
  std::uint64_t keptFromPrevious{0};  // entries the hint's still-valid chains kept
  std::size_t unrouted{0};
  std::uint64_t caRoutes{0};     // CA->CA (source port, destination LID) routes
  std::uint64_t longer{0};       // of those, longer than the fewest switch hops
  std::size_t byDmodk{0};        // CA LIDs of a degraded tree given D-mod-K's column
  std::size_t shortSwitches{0};  // switches of that tree that lost a cable

  // What routing in blocks (each its own tally) adds up to.
  Tally& operator+=(const Tally& o) {
    hubRoutedCa += o.hubRoutedCa;
    hubRoutedSwitch += o.hubRoutedSwitch;
    hubRoutedOther += o.hubRoutedOther;
    keptFromPrevious += o.keptFromPrevious;
    unrouted += o.unrouted;
    caRoutes += o.caRoutes;
    longer += o.longer;
    byDmodk += o.byDmodk;
    return *this;
  }
};

// Writes one destination's next hops into every switch's table. Columns are
// gathered 64 at a time and written out switch by switch: one write per
// switch per LID straight into 1620 tables of 13 KB would miss the cache on
// nearly every byte.
class TableWriter {
 public:
  TableWriter(const SwitchGraph& graph, const FatTreeLayout& layout, RoutingResult& result)
      : layout_(layout), rows_(layout.switches()), tile_(kTile * layout.switches()) {
    for (SwitchIndex s = 0; s < layout.switches(); ++s)
      rows_[s] = result.lfts[graph.nodeId(s)].port.data();
  }
  void write(Lid lid, std::uint8_t deliverPort, const std::vector<CableId>& next, Tally& tally) {
    std::uint8_t* out = column(lid);
    for (SwitchIndex s = 0; s < layout_.switches(); ++s) {
      const CableId c = next[s];
      out[s] = c == kDeliver ? deliverPort : c == kNoCable ? kNoRoute : layout_.port[c];
      tally.unrouted += c == kNoCable;
    }
  }

  // Room for the out port of every switch toward `lid`, to be filled now.
  std::uint8_t* column(Lid lid) {
    if (lids_.size() == kTile) flush();
    lids_.push_back(lid.value);
    return tile_.data() + (lids_.size() - 1) * layout_.switches();
  }

  void flush() {
    const std::size_t n = layout_.switches();
    for (SwitchIndex s = 0; s < n; ++s)
      for (std::size_t j = 0; j < lids_.size(); ++j) rows_[s][lids_[j]] = tile_[j * n + s];
    lids_.clear();
  }

 private:
  static constexpr std::size_t kTile = 64;
  const FatTreeLayout& layout_;
  std::vector<std::uint8_t*> rows_;  // per switch: its table
  std::vector<std::uint8_t> tile_;   // kTile columns of one port per switch
  std::vector<std::uint16_t> lids_;
};

class FatTreeEngine final : public RoutingEngine {
 public:
  std::string_view name() const override { return "ftree"; }

  Result<RoutingResult> route(const Fabric& fabric, const RoutingOptions& options) const override {
    const SwitchGraph graph(fabric);
    auto layout = layoutFatTree(fabric, graph, options.rootGuids);
    if (!layout) return std::unexpected(layout.error());
    const FatTreeReach reach(*layout);
    HintColumns hint(graph, *layout, options.previous);
    const HubOrder hub = hubOrder(*layout, reach, hint.previousHub(graph));
    const auto destinations = caDestinations(*layout, graph, fabric);

    RoutingResult result;
    result.engine = "ftree";
    sizeTables(fabric, graph, result);
    for (auto& note : recognitionNotes(fabric, graph, *layout))
      result.notes.push_back(std::move(note));

    Legaliser legaliser(*layout, hub);
    TableWriter writer(graph, *layout, result);
    Tally tally;
    std::vector<CableId> next(layout->switches(), kNoCable);
    if (completeAndRegular(*layout, reach)) {
      result.notes.push_back(
          "complete and regular: CA LIDs dealt D-mod-K over the up cables, one down path each "
          "(destination order: leaves by subtree then GUID, on a leaf by server then HCA index "
          "where "
          "every CA is so named, else by leaf port, LMC LIDs "
          "layer by layer)");
      const bool nested = nestedLevels(*layout, reach);
      routeDmodk(*layout, reach, destinations, nested && hint.empty() ? nullptr : &legaliser, hint,
                 writer, next, tally, options.threads);
    } else {
      result.notes.push_back(
          "not complete or not regular (cables missing or uneven): CA LIDs routed by load, each "
          "switch climbing on the legal up cable whose path onward is least loaded");
      routeBalanced(*layout, reach, destinations, legaliser, hint, writer, next, tally);
      result.notes.push_back(fmt::format(
          "{} of {} CA->CA routes are longer than the fewest switch hops (up*/down* detours "
          "around missing cables)",
          tally.longer, tally.caRoutes));
      if (tally.shortSwitches > 0)
        result.notes.push_back(fmt::format(
            "{} of {} CA LIDs kept D-mod-K's closed form (their down path avoids the {} switches "
            "that lost a cable; those switches climb by load); {} placed by load",
            tally.byDmodk, destinations.size(), tally.shortSwitches,
            destinations.size() - tally.byDmodk));
    }
    const auto others = otherDestinations(*layout, graph);
    writer.flush();
    routeSwitchTargets(graph, *layout, reach, others, legaliser, hint, result, tally,
                       options.threads);
    for (const Destination& d : others)
      if (d.layer == 0) result.apart.push_back(*fabric.port({graph.nodeId(d.leaf), d.port}).remote);
    std::ranges::sort(result.apart);
    addOrderNotes(fabric, graph, hub, tally, result);
    if (!hint.empty()) {
      result.followedPrevious = true;
      result.notes.push_back(fmt::format(
          "previous tables as the hint: {} (switch, LID) entries kept where their previous path "
          "still holds; the legaliser rerouted what the mix would have left illegal in the hub "
          "order",
          tally.keptFromPrevious));
    }
    return result;
  }

 private:
  static void sizeTables(const Fabric& fabric, const SwitchGraph& graph, RoutingResult& result) {
    std::uint32_t maxLid = 0;
    for (SwitchIndex s = 0; s < graph.size(); ++s)
      for (const Endpoint& e : graph.endpoints(s))
        if (e.base.value != 0) maxLid = std::max(maxLid, e.base.value + (1u << e.lmc) - 1u);
    result.lfts.resize(fabric.size());
    for (SwitchIndex s = 0; s < graph.size(); ++s)
      result.lfts[graph.nodeId(s)].port.assign(maxLid + 1u, kNoRoute);
  }

  // Switch LIDs, then aggregation nodes and upper CAs, on the column of
  // the switch they hang off: shortest legal paths, taking turns on cable
  // counters of their own, so they never shift the compute routes. Targets
  // in canonical order, not NodeId order: the counters carry over from one
  // target to the next, and the tables must not depend on the order in which
  // discovery met the switches (the dry run reads a file). The targets go in
  // blocks of a fixed size, each with counters (and a legaliser) of its own,
  // so that blocks can run on several threads and the tables do not depend
  // on how many; with a hint the blocks run one after the other, as the
  // hint's chains are walked by one thread.
  static void routeSwitchTargets(const SwitchGraph& graph, const FatTreeLayout& layout,
                                 const FatTreeReach& reach, const std::vector<Destination>& others,
                                 const Legaliser& legaliser, HintColumns& hint,
                                 RoutingResult& result, Tally& tally, unsigned threads) {
    std::vector<std::vector<const Destination*>> onSwitch(layout.switches());
    for (const Destination& d : others) onSwitch[d.leaf].push_back(&d);
    std::vector<SwitchIndex> targets;
    for (const auto& level : layout.byHeight)
      for (const SwitchIndex s : level)
        if (graph.endpoints(s).front().base.value != 0 || !onSwitch[s].empty())
          targets.push_back(s);
    constexpr std::size_t kBlock = 64;
    const std::size_t blocks = (targets.size() + kBlock - 1) / kBlock;
    std::vector<Tally> tallies(blocks);
    const auto runBlock = [&](std::size_t b) {
      ShortestRoutes routes(layout, reach, b);
      Legaliser own = legaliser;
      TableWriter writer(graph, layout, result);
      std::vector<CableId> next(layout.switches(), kNoCable);
      for (std::size_t k = b * kBlock; k < std::min(targets.size(), (b + 1) * kBlock); ++k)
        routeSwitchTarget(graph, targets[k], onSwitch[targets[k]], routes, own, hint, writer, next,
                          tallies[b]);
      writer.flush();
    };
    parallelFor(hint.empty() ? threads : 1u, blocks, 1,
                [&](std::size_t b, std::size_t e, unsigned) {
                  for (; b < e; ++b) runBlock(b);
                });
    for (const Tally& t : tallies) tally += t;
  }

  static void routeSwitchTarget(const SwitchGraph& graph, SwitchIndex s,
                                const std::vector<const Destination*>& onSwitch,
                                ShortestRoutes& routes, Legaliser& legaliser, HintColumns& hint,
                                TableWriter& writer, std::vector<CableId>& next, Tally& tally) {
    const Lid lid = graph.endpoints(s).front().base;
    routes.column(s, next);
    if (lid.value != 0) tally.keptFromPrevious += hint.apply(lid, s, 0, next);
    const std::size_t fixed = legaliser.legalise(next, s);
    if (lid.value != 0) {
      tally.hubRoutedSwitch += fixed;
      writer.write(lid, 0, next, tally);
    }
    for (const Destination* d : onSwitch) {
      if (!hint.empty()) {  // each LID its own previous column
        routes.column(s, next);
        tally.keptFromPrevious += hint.apply(d->lid, s, d->port, next);
        tally.hubRoutedOther += legaliser.legalise(next, s);
      } else {
        tally.hubRoutedOther += fixed;
      }
      writer.write(d->lid, d->port, next, tally);
    }
  }

  // Without a legaliser (nested levels: legal by construction) the ports go
  // straight into the tables.
  static void routeDmodk(const FatTreeLayout& layout, const FatTreeReach& reach,
                         const std::vector<Destination>& destinations, Legaliser* legaliser,
                         HintColumns& hint, TableWriter& writer, std::vector<CableId>& next,
                         Tally& tally, unsigned threads) {
    const DmodkRoutes dmodk(layout, reach, destinations);
    // By LID, so that the writes of one tile into a table lie close together.
    std::vector<std::size_t> byLid(destinations.size());
    std::iota(byLid.begin(), byLid.end(), std::size_t{0});
    std::ranges::sort(byLid, {}, [&](std::size_t i) { return destinations[i].lid; });
    if (!legaliser) {
      // Columns of their own: any number of threads, each filling tiles of
      // its own writer (copies of the unused `writer`), write the same bytes.
      const unsigned workers = threadCount(threads);
      std::vector<TableWriter> writers(workers, writer);
      parallelFor(workers, byLid.size(), 512, [&](std::size_t b, std::size_t e, unsigned w) {
        for (; b < e; ++b) dmodk.ports(byLid[b], writers[w].column(destinations[byLid[b]].lid));
      });
      for (TableWriter& w : writers) w.flush();
      return;
    }
    for (const std::size_t i : byLid) {
      dmodk.column(i, next);
      tally.keptFromPrevious +=
          hint.apply(destinations[i].lid, destinations[i].leaf, destinations[i].port, next);
      tally.hubRoutedCa += legaliser->legalise(next, destinations[i].leaf);
      writer.write(destinations[i].lid, destinations[i].port, next, tally);
    }
  }

  // The CA->CA routes toward one destination and how many of them are
  // longer than the fewest switch hops, once its column is legalised.
  class Lengths {
   public:
    explicit Lengths(const FatTreeLayout& layout) : layout_(layout) {}
    void count(const Destination& d, const std::vector<CableId>& next, const Legaliser& legaliser,
               Tally& tally) {
      if (shortestFrom_ != d.leaf) hopsFrom(d.leaf);
      for (const SwitchIndex leaf : layout_.leaves) {
        const std::uint64_t sources = layout_.computeCas[leaf] - (leaf == d.leaf ? 1 : 0);
        tally.caRoutes += sources;
        if (next[leaf] != kNoCable && legaliser.hops(leaf) > shortest_[leaf])
          tally.longer += sources;
      }
    }

   private:
    // Breadth first over every cable, into buffers kept from leaf to leaf.
    void hopsFrom(SwitchIndex from) {
      shortestFrom_ = from;
      shortest_.assign(layout_.switches(), kFar);
      queue_.assign(1, from);
      shortest_[from] = 0;
      for (std::size_t k = 0; k < queue_.size(); ++k) {
        const SwitchIndex s = queue_[k];
        for (CableId c = layout_.cableBegin(s); c < layout_.cableEnd(s); ++c)
          if (shortest_[layout_.to[c]] == kFar) {
            shortest_[layout_.to[c]] = static_cast<std::uint16_t>(shortest_[s] + 1);
            queue_.push_back(layout_.to[c]);
          }
      }
    }

    const FatTreeLayout& layout_;
    SwitchIndex shortestFrom_{kNoSwitch};
    std::vector<std::uint16_t> shortest_;
    std::vector<SwitchIndex> queue_;
  };

  static void routeBalanced(const FatTreeLayout& layout, const FatTreeReach& reach,
                            const std::vector<Destination>& destinations, Legaliser& legaliser,
                            HintColumns& hint, TableWriter& writer, std::vector<CableId>& next,
                            Tally& tally) {
    BalancedRoutes balanced(layout, reach);
    Lengths lengths(layout);
    // A CA's LIDs one after the other, so that they can climb apart.
    std::vector<std::size_t> order(destinations.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::ranges::stable_sort(order, {}, [&](std::size_t i) {
      return std::tuple(layout.canon[destinations[i].leaf], destinations[i].port);
    });
    // D-mod-K first wherever it holds, so that the placement by load of the
    // rest sees the flows of every destination it routed, kept or not.
    if (const auto degraded = DegradedDmodk::make(layout, reach, destinations)) {
      order = routeMostByDmodk(layout, reach, destinations, *degraded, order, balanced, legaliser,
                               hint, writer, tally, lengths);
      tally.byDmodk = destinations.size() - order.size();
      tally.shortSwitches = degraded->shortSwitches();
    }
    if (!hint.empty())
      for (const std::size_t i : order) balanced.preload(destinations[i], hint, next);
    for (const std::size_t i : order) {
      const Destination& d = destinations[i];
      std::size_t kept = 0;
      balanced.column(d, i, next, hint.empty() ? nullptr : &hint, &kept);
      tally.keptFromPrevious += kept;
      tally.hubRoutedCa += legaliser.legalise(next, d.leaf);
      writer.write(d.lid, d.port, next, tally);
      lengths.count(d, next, legaliser, tally);
    }
  }

  // Routes the destinations of `order` that DegradedDmodk takes; returns
  // the others, in order, for the placement by load. A CA's LIDs (one run
  // of `order`) all take D-mod-K's columns or none does, so that those
  // placed by load see each other's columns and climb apart.
  static std::vector<std::size_t> routeMostByDmodk(
      const FatTreeLayout& layout, const FatTreeReach& reach,
      const std::vector<Destination>& destinations, const DegradedDmodk& degraded,
      const std::vector<std::size_t>& order, BalancedRoutes& balanced, Legaliser& legaliser,
      HintColumns& hint, TableWriter& writer, Tally& tally, Lengths& lengths) {
    std::vector<std::size_t> left;
    std::vector<std::uint16_t> dist;
    std::vector<std::vector<CableId>> columns;  // of one CA's LIDs
    const auto sameCa = [&](std::size_t a, std::size_t b) {
      return destinations[a].leaf == destinations[b].leaf &&
             destinations[a].port == destinations[b].port;
    };
    for (std::size_t first = 0, end = 0; first < order.size(); first = end) {
      end = first + 1;
      while (end < order.size() && sameCa(order[first], order[end])) ++end;
      if (columns.size() < end - first) columns.resize(end - first);
      legalDistances(layout, reach, destinations[order[first]].leaf, dist);
      bool takes = true;
      for (std::size_t k = first; k < end && takes; ++k)
        takes = degraded.plainColumn(order[k], dist, columns[k - first]);
      for (std::size_t k = first; k < end; ++k) {
        const std::size_t i = order[k];
        const Destination& d = destinations[i];
        auto& column = columns[k - first];
        if (!takes || !degraded.climbShort(i, dist, balanced, column)) {
          left.push_back(i);
          continue;
        }
        // Where the previous chain holds it wins, as over a D-mod-K column
        // of a complete tree.
        if (!hint.empty()) tally.keptFromPrevious += hint.apply(d.lid, d.leaf, d.port, column);
        balanced.take(d, column);
        tally.hubRoutedCa += legaliser.legalise(column, d.leaf);
        writer.write(d.lid, d.port, column, tally);
        lengths.count(d, column, legaliser, tally);
      }
    }
    return left;
  }

  static void addOrderNotes(const Fabric& fabric, const SwitchGraph& graph, const HubOrder& hub,
                            const Tally& tally, RoutingResult& result) {
    if (tally.hubRoutedCa + tally.hubRoutedSwitch + tally.hubRoutedOther > 0)
      result.notes.push_back(fmt::format(
          "{} switch entries toward compute CA LIDs, {} toward aggregation nodes and upper CAs "
          "and {} toward switch LIDs have no climb-then-descend "
          "path in the tree's levels (mostly: no common ancestor) and were routed Up*/Down* in "
          "the switch order grown from hub leaf {}, the order every route of these tables "
          "follows, which keeps them free of credit loops on one VL",
          tally.hubRoutedCa, tally.hubRoutedOther, tally.hubRoutedSwitch,
          routing::ftree::switchName(fabric, graph, hub.hub)));
    if (tally.unrouted > 0)
      result.notes.push_back(fmt::format("{} switch entries left unrouted", tally.unrouted));
  }
};

}  // namespace

std::unique_ptr<RoutingEngine> makeFatTreeEngine() {
  return std::make_unique<FatTreeEngine>();
}

}  // namespace ibsm
