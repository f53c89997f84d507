// dragonfly: minimal routes on a recognised dragonfly or dragonfly+ (see
// DragonflyRoutes.h), made free of credit loops by VLs that SL2VL switches
// per turn (see DragonflyVls.h). When the VLs the ports declare (VLCap) or
// RoutingOptions::maxVls allow fewer than the routes need, or the levels do
// not prove the routes deadlock-free, it routes with updn on one VL instead
// and its notes say why and what that costs in switch hops.
#include <fmt/format.h>
#include <ibsm/Dragonfly.h>
#include <ibsm/Engines.h>

#include <algorithm>
#include <optional>
#include <span>
#include <string>

#include "routing/engines/DeclaredVls.h"
#include "routing/engines/SharedTreeVl.h"
#include "routing/engines/dragonfly/DragonflyHint.h"
#include "routing/engines/dragonfly/DragonflyRoutes.h"
#include "routing/engines/dragonfly/DragonflySplitVls.h"
#include "routing/engines/dragonfly/DragonflyVls.h"
#include "routing/multicast/McSl.h"

namespace ibsm {
namespace {

using routing::SwitchIndex;

// Mean switch hops from CA sources to CA LIDs through a set of LFTs.
double meanCaHops(const routing::SwitchGraph& graph, const routing::dragonfly::PortMap& ports,
                  const std::vector<Lft>& lfts, const std::vector<routing::LidTarget>& targets) {
  const std::size_t n = graph.size();
  std::vector<std::uint16_t> len(n);
  std::vector<SwitchIndex> chain;
  double hops = 0, routes = 0;
  for (std::size_t lid = 1; lid < targets.size(); ++lid) {
    if (targets[lid].sw == routing::kNoSwitch || targets[lid].kind != routing::LidKind::Ca)
      continue;
    std::ranges::fill(len, 0xFFFF);
    len[targets[lid].sw] = 0;
    for (SwitchIndex s = 0; s < n; ++s) {
      chain.clear();
      SwitchIndex t = s;
      while (len[t] == 0xFFFF && chain.size() <= n) {
        chain.push_back(t);
        const std::uint8_t port = lfts[graph.nodeId(t)].at(Lid{static_cast<std::uint16_t>(lid)});
        if (port == kNoRoute || port >= ports.stride) break;
        t = ports.peer[ports.at(t, port)];
        if (t == routing::kNoSwitch) break;
      }
      if (t == routing::kNoSwitch || len[t] == 0xFFFF) continue;
      std::uint16_t l = len[t];
      for (auto it = chain.rbegin(); it != chain.rend(); ++it) len[*it] = ++l;
      if (graph.caCount(s) > 0 && len[s] != 0xFFFF) {
        hops += double(len[s]) * double(graph.caCount(s));
        routes += double(graph.caCount(s));
      }
    }
  }
  return routes > 0 ? hops / routes : 0;
}

bool hasLmcRanges(const routing::dragonfly::DragonflyTables& tables) {
  return std::ranges::any_of(tables.targets, [](const routing::LidTarget& t) {
    return t.sw != routing::kNoSwitch && t.kind == routing::LidKind::Ca && t.rangeOffset > 0;
  });
}

class DragonflyEngine final : public RoutingEngine {
 public:
  std::string_view name() const override { return "dragonfly"; }

  Result<RoutingResult> route(const Fabric& fabric, const RoutingOptions& options) const override {
    auto shape = recogniseDragonfly(fabric);
    if (!shape) return fail(fmt::format("not a dragonfly: {}", shape.error().message));
    const routing::SwitchGraph graph(fabric);
    const routing::dragonfly::PortMap ports(fabric, graph, shape->groupOf);
    const std::uint8_t allowed = std::min(options.maxVls, routing::declaredDataVls(fabric));
    // More VLs than the minimal routes and one-SL detours need, and few
    // enough (source, later LID) pairs to name: the later LIDs may go on an
    // SL of their own (DragonflySplitVls.h).
    const bool ownSl = allowed > kOneSlLevels && laterPairs(graph) <= kMaxNamedPairs;
    // Detours through intermediate groups: on up to kValiantSls SLs, all on
    // three VLs (DragonflySplitVls.h).
    const std::uint8_t laterSls = kValiantSls;
    auto tables = routing::dragonfly::routeDragonfly(fabric, graph, *shape, ports, options.threads,
                                                     true, ownSl, laterSls);
    Split split = splitLevels(fabric, graph, *shape, ports, options.threads, allowed, tables);
    auto vls = split.plan ? split.plan->base
                          : routing::dragonfly::planVls(graph, ports, tables, options.threads);
    auto multipathNote =
        withoutDetours(fabric, graph, *shape, ports, options.threads, allowed, tables, vls);
    std::optional<std::string> hintNote;
    if (!options.previous.empty() && !vls.problem && !split.plan)
      hintNote = followPrevious(graph, ports, options.previous, tables, vls, options.threads);

    RoutingResult result;
    result.engine = std::string(name());
    result.notes.push_back(describe(*shape));
    for (auto& note : missingCableNotes(fabric, *shape)) result.notes.push_back(std::move(note));
    if (multipathNote) result.notes.push_back(std::move(*multipathNote));
    if (split.note) result.notes.push_back(std::move(*split.note));
    lmcNotes(graph, tables, allowed > kOneSlLevels && !ownSl, result.notes);
    if (split.plan && !options.previous.empty())
      result.notes.push_back(
          "previous tables as the hint: not taken with LMC ranges on an SL of their own");
    if (vls.problem || vls.levels > allowed) {
      const std::string why =
          vls.problem ? *vls.problem
                      : fmt::format(
                            "the routes need {} VLs, the ports declare {} and {} are "
                            "allowed (maxVls)",
                            vls.levels, routing::declaredDataVls(fabric), options.maxVls);
      return fallBack(fabric, graph, ports, tables, why, *shape, options.previous);
    }
    result.lfts = routing::dragonfly::toLfts(fabric, graph, tables, options.threads);
    result.vlsUsed = vls.levels;
    if (split.plan) {
      takeSplit(fabric, graph, ports, tables, *split.plan, options.threads, result);
    } else if (vls.levels > 1) {
      result.sl2vl = routing::dragonfly::sl2vlEntries(fabric, graph, ports, vls, options.threads);
    }
    treesOnTheirOwnVl(graph, result, allowed);
    routing::shareATreeVl(fabric, result, options.threads);
    routeNotes(fabric, graph, tables, vls, result.notes);
    if (hintNote) {
      result.followedPrevious = true;
      result.notes.push_back(std::move(*hintNote));
    }
    return result;
  }

 private:
  // The levels one-SL multipath needs (DragonflyLmc.h): the minimal routes'
  // two and the detours' one more.
  static constexpr std::uint8_t kOneSlLevels = 3;
  // SLs 1-N for the detours through intermediate groups: the more SLs, the
  // fewer launches find a turn taken at another level (DragonflyValiant.h).
  // SL 15 is the multicast trees' (routing/multicast/McSl.h).
  static constexpr std::uint8_t kValiantSls = 14;

  // The most (source, later LID) pairs RoutingResult::pairSls names: a6 p3
  // h3 at LMC 2 has 0.47 million (7 MB, 22 MB as pair-sls), a8 p4 h4 4.2.
  static constexpr std::uint64_t kMaxNamedPairs = 1'000'000;

  // Every LID-bearing port times the later LIDs of the CA ports' ranges.
  static std::uint64_t laterPairs(const routing::SwitchGraph& graph) {
    std::uint64_t sources = 0, later = 0;
    for (SwitchIndex s = 0; s < graph.size(); ++s)
      for (const routing::Endpoint& e : graph.endpoints(s)) {
        ++sources;
        if (e.switchPort != 0) later += (std::uint64_t{1} << e.lmc) - 1;
      }
    return sources * later;
  }

  static void routeNotes(const Fabric& fabric, const routing::SwitchGraph& graph,
                         const routing::dragonfly::DragonflyTables& tables,
                         const routing::dragonfly::VlPlan& vls, std::vector<std::string>& notes) {
    const std::string climbs =
        vls.climbs == 0 ? std::string()
                        : fmt::format(
                              " and at {} turn{} inside groups where detours around missing "
                              "cables would wait on each other",
                              vls.climbs, vls.climbs == 1 ? "" : "s");
    notes.push_back(fmt::format(
        "{} VLs by (in port, out port): the VL climbs after each global link{}, levels proven "
        "acyclic",
        vls.levels, climbs));
    if (tables.detourRoutes > 0) {
      std::vector<std::string> examples;
      for (const auto& [s, lid] : tables.detourExamples)
        examples.push_back(
            fmt::format("\"{}\" -> LID {}", fabric.node(graph.nodeId(s)).description, lid));
      notes.push_back(fmt::format(
          "{} of {} CA->LID routes detour around missing links (longer than minimal), e.g. {}",
          tables.detourRoutes, tables.caRoutes, fmt::join(examples, ", ")));
    }
  }

  static void lmcNotes(const routing::SwitchGraph& graph,
                       const routing::dragonfly::DragonflyTables& tables, bool tooManyPairs,
                       std::vector<std::string>& notes) {
    if (tooManyPairs)
      notes.push_back(fmt::format(
          "LMC: the later LIDs share SL 0 with the base routes: on an SL of their own the SA "
          "would hold {} (source, DLID) pairs, more than {}",
          laterPairs(graph), kMaxNamedPairs));
    if (tables.multipathSkipped)
      notes.push_back(
          "LMC: a range's later LIDs take its base LID's routes: too many switches and LIDs to "
          "plan them apart");
  }

  struct Split {
    std::optional<routing::dragonfly::SplitVls> plan;  // the later LIDs on their own SL
    std::optional<std::string> note;                   // why not, when they were planned so
  };

  // The two VL plans when the later LIDs were planned for an SL of their
  // own and both fit; else the tables again with the later LIDs on one SL
  // with the base routes, and a note.
  static Split splitLevels(const Fabric& fabric, const routing::SwitchGraph& graph,
                           const DragonflyShape& shape, const routing::dragonfly::PortMap& ports,
                           unsigned threads, std::uint8_t allowed,
                           routing::dragonfly::DragonflyTables& tables) {
    if (!tables.laterOwnSl || !hasLmcRanges(tables)) return {};
    auto plan = routing::dragonfly::splitVls(graph, ports, tables, threads);
    const auto& problem = plan.base.problem ? plan.base.problem : plan.later.problem;
    auto shared = routing::dragonfly::routeDragonfly(fabric, graph, shape, ports, threads);
    // Kept only where the SL of their own leaves fewer routes sharing a
    // cable with their port's earlier LIDs' than one SL with the base routes.
    const bool fewer = shared.laterConflicts > tables.laterConflicts;
    if (!problem && plan.levels() <= allowed && fewer) return {std::move(plan), std::nullopt};
    const auto own = tables.laterConflicts;
    tables = std::move(shared);
    if (!problem && plan.levels() <= allowed)
      return {std::nullopt,
              fmt::format(
                  "LMC: the later LIDs share SL 0 with the base routes: on an SL of their "
                  "own at least as many routes would share a cable with their earlier LIDs' ({} "
                  "against {})",
                  own, tables.laterConflicts)};
    return {std::nullopt,
            fmt::format(
                "LMC: the later LIDs share SL 0 with the base routes: on an SL of their "
                "own they would need {}",
                problem ? *problem : fmt::format("{} VLs ({} allowed)", plan.levels(), allowed))};
  }

  // The multicast trees on the VL above the levels when the ports and maxVls
  // leave one (routing/multicast/McSl.h): on SL 0 a tree shared the base
  // routes' VLs and its turns closed credit loops with theirs (issue 33).
  // Every unicast pair then must keep SL 0 (keepUnicastOffTheTreeSl). With
  // no VL left, route() looks for a level the trees can share
  // (routing/engines/SharedTreeVl.h).
  static void treesOnTheirOwnVl(const routing::SwitchGraph& graph, RoutingResult& result,
                                std::uint8_t allowed) {
    if (result.sl2vl.empty()) return;
    if (!routing::giveTreesAVlOfTheirOwn(result.sl2vl, result.vlsUsed, allowed)) {
      result.notes.push_back(
          fmt::format("no VL is left above the {} levels ({} allowed) for the multicast trees",
                      result.vlsUsed, allowed));
      return;
    }
    result.notes.push_back(fmt::format(
        "multicast trees on SL {} and VL {} of their own; every unicast pair on SL 0{}",
        routing::kTreeSl, result.vlsUsed, result.pairSls.empty() ? "" : " or the SL named"));
    routing::keepUnicastOffTheTreeSl(graph, result);
  }

  static void takeSplit(const Fabric& fabric, const routing::SwitchGraph& graph,
                        const routing::dragonfly::PortMap& ports,
                        const routing::dragonfly::DragonflyTables& tables,
                        const routing::dragonfly::SplitVls& plan, unsigned threads,
                        RoutingResult& result) {
    result.vlsUsed = plan.levels();
    result.sl2vl = routing::dragonfly::splitSl2Vl(fabric, graph, ports, plan, threads);
    result.pairSls = routing::dragonfly::laterPairSls(graph, tables);
    if (!plan.valiant.empty()) {
      std::uint8_t last = routing::dragonfly::kLaterSl;
      for (const PairSl& p : result.pairSls) last = std::max(last, p.sl);
      result.notes.push_back(fmt::format(
          "LMC: each range's later LIDs through intermediate groups on SLs {}-{} where their "
          "routes differ from the base LID's (up to the first global link on VL 0, up to the "
          "second on VL {}, the last hop on VL {}), the base LIDs and the routes alike on SL 0 "
          "(VLs 0-{}); {} (source, DLID) pairs named for the SA",
          routing::dragonfly::kLaterSl, last, plan.valiantVl(1), plan.valiantVl(2),
          plan.base.levels - 1, result.pairSls.size()));
      return;
    }
    result.notes.push_back(fmt::format(
        "LMC: each range's later LIDs on SL {} (VLs {}-{}, {} levels, {} turns climbed), the base "
        "LIDs on SL 0 (VLs 0-{}); {} (source, DLID) pairs named for the SA",
        routing::dragonfly::kLaterSl, plan.base.levels, plan.levels() - 1, plan.later.levels,
        plan.later.climbs, plan.base.levels - 1, result.pairSls.size()));
  }

  // When the LMC ranges' detours need VLs the ports lack, routes again with
  // each range's later LIDs on its base LID's routes, and says why. So too
  // when the detours take every VL allowed and the base routes alone take
  // fewer: the multicast trees would have no VL of their own
  // (treesOnTheirOwnVl), and on the unicast levels a tree's turns closed
  // credit loops with the detours' (a4 p2 h2 at LMC 2 on 3 VLs): the later
  // LIDs' paths apart are not worth a fabric that can deadlock.
  static std::optional<std::string> withoutDetours(
      const Fabric& fabric, const routing::SwitchGraph& graph, const DragonflyShape& shape,
      const routing::dragonfly::PortMap& ports, unsigned threads, std::uint8_t allowed,
      routing::dragonfly::DragonflyTables& tables, routing::dragonfly::VlPlan& vls) {
    const bool fits = !vls.problem && vls.levels <= allowed;
    if ((fits && vls.levels < allowed) || !hasLmcRanges(tables)) return std::nullopt;
    auto base = routing::dragonfly::routeDragonfly(fabric, graph, shape, ports, threads, false);
    auto baseVls = routing::dragonfly::planVls(graph, ports, base, threads);
    if (fits && (baseVls.problem || baseVls.levels >= vls.levels)) return std::nullopt;
    auto note =
        fits ? fmt::format(
                   "LMC: a range's later LIDs take its base LID's routes: apart they would take "
                   "all {} VLs allowed and leave the multicast trees none of their own",
                   allowed)
             : fmt::format(
                   "LMC: a range's later LIDs take its base LID's routes: apart they would need {}",
                   vls.problem ? *vls.problem
                               : fmt::format("{} VLs ({} allowed)", vls.levels, allowed));
    tables = std::move(base);
    vls = std::move(baseVls);
    return note;
  }

  // Keeps the previous entries DragonflyHint.h allows when the VLs planned on
  // the mix are proven and no more than the fresh routes need; says which.
  static std::string followPrevious(const routing::SwitchGraph& graph,
                                    const routing::dragonfly::PortMap& ports,
                                    std::span<const Lft> previous,
                                    routing::dragonfly::DragonflyTables& tables,
                                    routing::dragonfly::VlPlan& vls, unsigned threads) {
    auto mixed = tables;
    routing::PreviousChains chains(graph, previous);
    const auto kept = routing::dragonfly::keepPrevious(graph, ports, chains, mixed);
    auto mixedVls = routing::dragonfly::planVls(graph, ports, mixed, threads);
    if (mixedVls.problem || mixedVls.levels > vls.levels)
      return fmt::format(
          "previous tables as the hint: not kept, the {} entries whose previous path holds and "
          "is still minimal would need {} (the fresh routes need {} VLs)",
          kept, mixedVls.problem ? *mixedVls.problem : fmt::format("{} VLs", mixedVls.levels),
          vls.levels);
    tables = std::move(mixed);
    vls = std::move(mixedVls);
    return fmt::format(
        "previous tables as the hint: {} (switch, LID) entries kept where their previous path "
        "still holds and is no longer than the route taken now, within the VL plan",
        kept);
  }

  static Result<RoutingResult> fallBack(const Fabric& fabric, const routing::SwitchGraph& graph,
                                        const routing::dragonfly::PortMap& ports,
                                        const routing::dragonfly::DragonflyTables& tables,
                                        const std::string& why, const DragonflyShape& shape,
                                        std::span<const Lft> previous) {
    // updn's own roots and one VL; the hint, when there is one, is updn's too.
    auto updn = makeUpDownEngine()->route(
        fabric, RoutingOptions{.rootGuids = {}, .maxVls = 1, .previous = previous});
    if (!updn) return fail(fmt::format("{}; and updn failed: {}", why, updn.error().message));
    const double minimal = meanCaHops(
        graph, ports, routing::dragonfly::toLfts(fabric, graph, tables, 1), tables.targets);
    const double taken = meanCaHops(graph, ports, updn->lfts, tables.targets);
    updn->notes.insert(
        updn->notes.begin(),
        {describe(shape), fmt::format("dragonfly fell back to updn on 1 VL: {}", why),
         fmt::format("cost: mean switch hops {:.2f} instead of {:.2f}", taken, minimal)});
    const auto missing = missingCableNotes(fabric, shape);
    updn->notes.insert(updn->notes.begin() + 3, missing.begin(), missing.end());
    return updn;
  }
};

}  // namespace

std::unique_ptr<RoutingEngine> makeDragonflyEngine() {
  return std::make_unique<DragonflyEngine>();
}

}  // namespace ibsm
