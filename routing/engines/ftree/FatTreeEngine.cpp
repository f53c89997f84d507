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
#include <memory>
#include <numeric>
#include <optional>
#include <tuple>

#include "routing/engines/ftree/FatTreeApartVl.h"
#include "routing/engines/ftree/FatTreeBalanced.h"
#include "routing/engines/ftree/FatTreeColumns.h"
#include "routing/engines/ftree/FatTreeDegraded.h"
#include "routing/engines/ftree/FatTreeDegradedRoute.h"
#include "routing/engines/ftree/FatTreeDestinations.h"
#include "routing/engines/ftree/FatTreeDmodk.h"
#include "routing/engines/ftree/FatTreeHeldColumns.h"
#include "routing/engines/ftree/FatTreeHint.h"
#include "routing/engines/ftree/FatTreeHintPass.h"
#include "routing/engines/ftree/FatTreeHub.h"
#include "routing/engines/ftree/FatTreeLayout.h"
#include "routing/engines/ftree/FatTreeLegalise.h"
#include "routing/engines/ftree/FatTreeReach.h"
#include "routing/engines/ftree/FatTreeRecognition.h"
#include "routing/engines/ftree/FatTreeSwitchColumns.h"
#include "routing/graph/SwitchGraph.h"

namespace ibsm {
namespace {

using routing::Endpoint;
using routing::kNoSwitch;
using routing::SwitchGraph;
using routing::SwitchIndex;
using namespace routing::ftree;

class FatTreeEngine final : public RoutingEngine {
 public:
  // Both names route alike (issue 33): the apart pairs on a second VL
  // where the ports and routing.max_vls allow two data VLs, the one-VL
  // tables otherwise (max_vls 1 is how an operator keeps them). "ftree-vl"
  // stays so that configurations naming it keep working. A multicast tree
  // that must turn down->up to reach a host above the leaves travels on
  // the SL2VL's multicast SL, which no turn drops (routing/multicast/McSl.h).
  explicit FatTreeEngine(std::string_view name) : name_(name) {}
  std::string_view name() const override { return name_; }

  Result<RoutingResult> route(const Fabric& fabric, const RoutingOptions& options) const override {
    const SwitchGraph graph(fabric);
    // Under change the judge of the previous tables read the tree already.
    std::shared_ptr<const FatTreeFrame> frame;
    if (options.previousHolds && !options.previous.empty())
      frame = std::static_pointer_cast<const FatTreeFrame>(options.previousHolds->frame);
    if (frame && !frame->fits(fabric, options.rootGuids)) frame = nullptr;
    std::shared_ptr<FatTreeFrame> own;
    if (!frame) {
      auto read = layoutFatTree(fabric, graph, options.rootGuids);
      if (!read) return std::unexpected(read.error());
      own = std::make_shared<FatTreeFrame>(&fabric, options.rootGuids, std::move(*read));
      frame = own;
    }
    const FatTreeLayout* layout = &frame->layout;
    const FatTreeReach& reach = frame->reach;
    HintColumns hint(graph, *layout, options.previous, options.previousHolds);
    if (own) own->hub = hubOrder(own->layout, own->reach, hint.previousHub(graph));
    const HubOrder& hub = frame->hub;
    const auto destinations = caDestinations(*layout, graph, fabric);

    RoutingResult result;
    result.engine = std::string(name());
    result.legalByConstruction = true;  // every column legalised in the hub order
    sizeTables(fabric, graph, result);
    for (auto& note : recognitionNotes(fabric, graph, *layout))
      result.notes.push_back(std::move(note));

    Legaliser legaliser(*layout, hub);
    TableWriter writer(graph, *layout, result);
    Tally tally;
    std::vector<CableId> next(layout->switches(), kNoCable);
    const bool complete = completeAndRegular(*layout, reach);
    const bool nested = complete && nestedLevels(*layout, reach);
    const bool uneven = !complete && dmodkOnUnevenLeaves(*layout, reach);
    if (uneven)
      result.notes.push_back(
          "regular with leaves of uneven height (director chips taking hosts): CA LIDs dealt "
          "D-mod-K from each leaf's own height, the switches below it climbing into its column; "
          "pairs without a common ancestor left to the hub order");
    if (complete || uneven) {
      if (complete)
        result.notes.push_back(
            "complete and regular: CA LIDs dealt D-mod-K over the up cables, one down path each "
            "(destination order: leaves by subtree then GUID, on a leaf by server then HCA index "
            "where "
            "every CA is so named, else by leaf port, LMC LIDs "
            "layer by layer)");
      routeDmodk(*layout, reach, destinations, nested && hint.empty() ? nullptr : &legaliser, hint,
                 writer, next, tally, options.threads);
    } else {
      result.notes.push_back(
          "not complete or not regular (cables missing or uneven): CA LIDs routed by load, each "
          "switch climbing on the legal up cable whose path onward is least loaded");
      routeBalanced(*layout, reach, hub, destinations, legaliser, hint, writer, next, tally,
                    options.threads);
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
    for (const Destination& d : others)
      if (d.layer == 0) result.apart.push_back(*fabric.port({graph.nodeId(d.leaf), d.port}).remote);
    std::ranges::sort(result.apart);
    // Issue 33: with two data VLs the apart pairs on the fewest hops (a
    // tree of compute CAs alone keeps its one-VL tables). The second VL
    // routes every switch LID and apart column itself, so the hub order's
    // columns are routed first only where it may not apply: under a hint,
    // or when it gives up or keeps some column as it was.
    std::optional<ApartVlNote> vls;
    if (!others.empty() && hint.empty() && apartVlsAllowed(fabric, options.maxVls))
      vls = applyFirst(fabric, graph, *layout, hub, result, options.maxVls);
    if (!vls) {
      routeSwitchTargets(graph, *layout, reach, others, legaliser, hub, complete, hint, result,
                         tally, options.threads);
      if (!others.empty()) vls = applyApartVls(fabric, graph, *layout, hub, result, options.maxVls);
    }
    addOrderNotes(fabric, graph, hub, tally, result);
    // One VL, every route climbing then descending in the hub order: the
    // multicast trees are kept to it too (apart VLs give them a VL instead).
    if (result.legalByConstruction)
      result.upDownOrder = graph.byNodeId(hub.position, fabric.size());
    if (vls && !vls->note.empty()) result.notes.push_back(vls->note);
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
  std::string_view name_;

  // The second VL on tables whose switch and apart columns are not routed
  // yet: its result when it routed every one of them, else nullopt and
  // `result` as it was.
  static std::optional<ApartVlNote> applyFirst(const Fabric& fabric, const SwitchGraph& graph,
                                               const FatTreeLayout& layout, const HubOrder& hub,
                                               RoutingResult& result, std::uint8_t maxVls) {
    RoutingResult before = result;
    auto vls = applyApartVls(fabric, graph, layout, hub, result, maxVls);
    if (vls.applied && vls.kept == 0) return vls;
    result = std::move(before);
    return std::nullopt;
  }

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
  // the switch they hang off: SwitchColumns' closed form, shortest legal
  // paths that depend on their target alone (so fresh tables of a tree that
  // lost a cable keep the whole tree's routes where they hold), and never on
  // the compute routes' counters. The legaliser checks every column and
  // routes what is left open or broken, on hub-order counters of its own per
  // block of targets (canonical order, not NodeId order: the tables must not
  // depend on the order in which discovery met the switches), so that blocks
  // can run on several threads and the tables do not depend on how many.
  // With a hint its still-valid chains are laid over the closed form first;
  // the blocks run on several threads when the hint's verdicts were judged
  // before (RoutingOptions::previousHolds), else one after the other, as a
  // hint that walks its chains itself does so on one thread.
  static void routeSwitchTargets(const SwitchGraph& graph, const FatTreeLayout& layout,
                                 const FatTreeReach& reach, const std::vector<Destination>& others,
                                 const Legaliser& legaliser, const HubOrder& hub, bool complete,
                                 HintColumns& hint, RoutingResult& result, Tally& tally,
                                 unsigned threads) {
    const SwitchClimbs climbs(layout, reach, hub, complete, hint.empty());
    std::vector<std::vector<const Destination*>> onSwitch(layout.switches());
    for (const Destination& d : others) onSwitch[d.leaf].push_back(&d);
    std::vector<SwitchIndex> targets;
    for (const auto& level : layout.byHeight)
      for (const SwitchIndex s : level)
        if (graph.endpoints(s).front().base.value != 0 || !onSwitch[s].empty())
          targets.push_back(s);
    // Larger blocks save copies of the legaliser.
    constexpr std::size_t block = 256;
    const std::size_t blocks = (targets.size() + block - 1) / block;
    std::vector<Tally> tallies(blocks);
    std::vector<std::vector<std::uint16_t>> whole(blocks);  // per block: LIDs held whole
    const auto runBlock = [&](std::size_t b) {
      Legaliser own = legaliser;
      // The spread columns of aggregation nodes and upper CAs on counters of
      // their own, so that the switch LIDs' columns are what they were.
      Legaliser apart = legaliser;
      TableWriter writer(graph, layout, result);
      std::vector<CableId> next(layout.switches(), kNoCable);
      const std::size_t end = std::min(targets.size(), (b + 1) * block);
      SwitchColumns closed(layout, reach, climbs);
      for (std::size_t k = b * block; k < end; ++k)
        if (hint.empty())
          routeClosedForm(graph, targets[k], onSwitch[targets[k]], closed, {own, apart}, writer,
                          next, tallies[b]);
        else
          routeSwitchTarget(graph, targets[k], onSwitch[targets[k]], closed, own, hint, writer,
                            next, tallies[b], whole[b]);
      writer.flush();
    };
    parallelFor(hint.concurrent() ? threads : 1u, blocks, 1,
                [&](std::size_t b, std::size_t e, unsigned) {
                  for (; b < e; ++b) runBlock(b);
                });
    for (const Tally& t : tallies) tally += t;
    copyWholeColumns(graph, layout, hint, whole, result, threads);
  }

  // The switch LIDs whose previous column holds whole (`whole`, per block),
  // copied into the tables switch by switch: what the hint and the
  // legaliser would write for them one column at a time (every switch keeps
  // its previous hop, the legaliser finds nothing to change), without a
  // read of 1,620 previous tables per column.
  static void copyWholeColumns(const SwitchGraph& graph, const FatTreeLayout& layout,
                               const HintColumns& hint,
                               const std::vector<std::vector<std::uint16_t>>& whole,
                               RoutingResult& result, unsigned threads) {
    std::vector<std::uint16_t> lids;
    for (const auto& block : whole) lids.insert(lids.end(), block.begin(), block.end());
    if (lids.empty()) return;
    std::ranges::sort(lids);
    const TableWriter writer(graph, layout, result);
    parallelFor(threadCount(threads), layout.switches(), 64,
                [&](std::size_t b, std::size_t e, unsigned) {
                  writer.copy(
                      lids, [&](SwitchIndex s) { return hint.previousTable(s); },
                      static_cast<SwitchIndex>(b), static_cast<SwitchIndex>(e));
                });
  }

  static void routeSwitchTarget(const SwitchGraph& graph, SwitchIndex s,
                                const std::vector<const Destination*>& onSwitch,
                                SwitchColumns& routes, Legaliser& legaliser, HintColumns& hint,
                                TableWriter& writer, std::vector<CableId>& next, Tally& tally,
                                std::vector<std::uint16_t>& whole) {
    const Lid lid = graph.endpoints(s).front().base;
    // Hub-routed: those the closed form sends toward the hub, and whatever
    // the legaliser routes (nothing, where the previous column holds whole:
    // copied after, copyWholeColumns).
    std::size_t fixed = routes.column(s, next);
    if (lid.value != 0 && hint.whole(lid)) {
      tally.keptFromPrevious += hint.keptWhole(lid);
      tally.hubRoutedSwitch += fixed;
      whole.push_back(lid.value);
    } else {
      if (lid.value != 0) tally.keptFromPrevious += hint.apply(lid, s, 0, next);
      fixed += legaliser.legalise(next, s);
      if (lid.value != 0) {
        tally.hubRoutedSwitch += fixed;
        writer.write(lid, 0, next, tally);
      }
    }
    for (std::size_t k = 0; k < onSwitch.size(); ++k) {
      const Destination* d = onSwitch[k];
      if (!hint.empty()) {  // each LID its own previous column
        tally.hubRoutedOther += routes.column(s, next, true, caRank(onSwitch, k));
        tally.keptFromPrevious += hint.apply(d->lid, s, d->port, next);
        tally.hubRoutedOther += legaliser.legalise(next, s);
      } else {
        tally.hubRoutedOther += fixed;
      }
      writer.write(d->lid, d->port, next, tally);
    }
  }

  struct Legalisers {
    Legaliser& switches;  // switch LIDs
    Legaliser& apart;     // aggregation nodes and upper CAs
  };

  static void routeClosedForm(const SwitchGraph& graph, SwitchIndex s,
                              const std::vector<const Destination*>& onSwitch,
                              SwitchColumns& columns, Legalisers legalisers, TableWriter& writer,
                              std::vector<CableId>& next, Tally& tally) {
    const Lid lid = graph.endpoints(s).front().base;
    const std::size_t hubRouted = columns.column(s, next) + legalisers.switches.legalise(next, s);
    if (lid.value != 0) {
      tally.hubRoutedSwitch += hubRouted;
      writer.write(lid, 0, next, tally);
    }
    // Aggregation nodes and upper CAs: sources everywhere, spread by source,
    // and the CAs of one switch by their rank on it: one column per rank.
    std::size_t apart = 0, built = 0;
    for (std::size_t rank = 0; built < onSwitch.size(); ++rank) {
      bool routed = false;
      for (std::size_t k = 0; k < onSwitch.size(); ++k) {
        if (caRank(onSwitch, k) != rank) continue;
        if (!routed)
          apart = columns.column(s, next, true, rank) + legalisers.apart.legalise(next, s);
        routed = true;
        ++built;
        tally.hubRoutedOther += apart;
        writer.write(onSwitch[k]->lid, onSwitch[k]->port, next, tally);
      }
    }
  }

  // The rank of onSwitch[k]'s CA port among those of its role (aggregation
  // node or upper CA) on its switch; its LMC LIDs, which follow its base
  // LID, share it. An upper CA beside the switch's aggregation node keeps
  // the column it had alone.
  static std::size_t caRank(const std::vector<const Destination*>& onSwitch, std::size_t k) {
    std::size_t rank = 0;
    for (std::size_t j = 0; j < k; ++j) {
      const Destination& d = *onSwitch[j];
      rank += d.port != onSwitch[k]->port && d.role == onSwitch[k]->role &&
              (j == 0 || d.port != onSwitch[j - 1]->port);
    }
    return rank;
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

  static void routeBalanced(const FatTreeLayout& layout, const FatTreeReach& reach,
                            const HubOrder& hub, const std::vector<Destination>& destinations,
                            Legaliser& legaliser, HintColumns& hint, TableWriter& writer,
                            std::vector<CableId>& next, Tally& tally, unsigned threads) {
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
    // The judge's plan under change (the same fabric read the same way), else its own.
    const DegradedDmodk* shared = sharedDegraded(hint, layout, destinations);
    const auto own = shared ? std::nullopt : DegradedDmodk::make(layout, reach, destinations);
    if (const DegradedDmodk* degraded = shared ? shared : own ? &*own : nullptr) {
      DegradedSinks sinks{balanced, legaliser, hint, writer, tally, lengths};
      order =
          routeMostByDmodk({layout, reach, hub, destinations, *degraded}, order, sinks, threads);
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
  return std::make_unique<FatTreeEngine>("ftree");
}

std::unique_ptr<RoutingEngine> makeFatTreeVlEngine() {
  return std::make_unique<FatTreeEngine>("ftree-vl");
}

}  // namespace ibsm
