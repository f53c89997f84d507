// auto: dragonfly when the cabling is a dragonfly or dragonfly+, ftree when
// it is a fat tree (sssp on a small one with director pods where it spreads
// the routes better: onDirectorPods), sssp otherwise, updn where sssp cannot (more VLs needed
// than allowed, past kLargest, or roots named: those are updn's). dragonfly
// and ftree each refuse exactly the fabrics that are not their shape (and
// say why), so auto asks them in that order and hands the refusals' reasons
// to the operator in a note. A fat tree has no triangles and no
// spine-to-spine cables, so dragonfly never takes one.
//
// On a dragonfly that is not whole (cables missing, groups unlinked, routers
// stranded, or hosts and global links spread unevenly: irregular cabling the
// recognition also takes) and small (switches x LIDs up to kSmall), auto
// also routes it with sssp and takes sssp's tables when their busiest link
// (most CA-to-CA routes on one channel, every CA pair) is strictly lower
// (under change: past 1.1x, takesSssp), within the VLs allowed: there
// dragonfly's detours and its updn fallback crowd links that balanced
// shortest paths spread. A whole dragonfly or dragonfly+ stays dragonfly's:
// its minimal routes need the fewest VLs (2, against sssp's 3-4) and spread
// within a few routes of sssp's. Past kSmall the comparison is not made:
// sssp's work grows with switches x LIDs x cables (a dragonfly a8 p4 h4, 264
// switches and 1,056 hosts, 348,480 routes: about 0.25 CPU s), and those
// dragonflies are dragonfly's.
#include <fmt/format.h>
#include <ibsm/Dragonfly.h>
#include <ibsm/Engines.h>
#include <ibsm/FatTree.h>
#include <ibsm/StableRoutes.h>

#include "routing/engines/SharedTreeVl.h"
#include "routing/engines/sssp/SsspRoutes.h"

namespace ibsm {
namespace {

// Switch x LID routes up to which auto computes sssp beside dragonfly (and
// beside ftree on a tree with director pods: Lassen-like, 174 switches and
// about 1,900 LIDs: about 1 CPU s for sssp's routes, their balance per class
// and its layers), and up to which it routes with sssp what is neither a fat
// tree nor a dragonfly.
constexpr std::size_t kSmall = 500'000;
constexpr std::size_t kLargest = 8'000'000;

std::size_t routes(const Fabric& fabric) {
  std::size_t switches = 0, lids = 0;
  for (const Node& node : fabric.nodes()) {
    switches += node.isSwitch();
    for (const std::uint8_t p : node.endpointPorts()) lids += std::size_t{1} << node.ports[p].lmc;
  }
  return switches * lids;
}

bool whole(const DragonflyShape& shape) {
  const auto even = [](const MinMax& m) { return m.min == m.max; };
  return shape.missingLocalLinks == 0 && shape.unlinkedGroupPairs == 0 &&
         shape.missingGlobal.empty() && shape.stranded.empty() && even(shape.hostsPerSwitch) &&
         even(shape.globalsPerSwitch) && even(shape.globalsPerGroupPair);
}

std::uint64_t busiest(const Fabric& fabric, const RoutingResult& r) {
  const routing::SwitchGraph graph(fabric);
  const routing::sssp::Channels channels(graph);
  return routing::sssp::busiestChannel(graph, channels, r.lfts);
}

// sssp's layers took every VL allowed and no layer could take the trees
// (routing/engines/SharedTreeVl.h): its note says they may close a loop.
bool treesAtRisk(const Fabric& fabric, const RoutingResult& sssp) {
  return !sssp.sl2vl.empty() && !routing::treesSafe(fabric, sssp);
}

// Why auto keeps `engine` over sssp whatever their busiest links: sssp's
// layers took every VL allowed and left the multicast trees none they could
// share without a credit loop (SharedTreeVl.h); `engine`'s trees are safe.
std::string treesKeep(std::string_view engine, std::uint8_t layers) {
  return fmt::format(
      "auto kept {}: sssp's {} layers take every VL allowed and leave the multicast trees no "
      "layer they can share without a credit loop, where {}'s trees close none",
      engine, layers, engine);
}

class AutoEngine final : public RoutingEngine {
 public:
  std::string_view name() const override { return "auto"; }

  Result<RoutingResult> route(const Fabric& fabric, const RoutingOptions& options) const override {
    auto dragonfly = makeDragonflyEngine()->route(fabric, options);
    if (dragonfly) return onDragonfly(fabric, options, std::move(*dragonfly));
    auto ftree = makeFatTreeEngine()->route(fabric, options);
    if (ftree) {
      ftree->notes.insert(ftree->notes.begin(), "auto chose ftree: the fabric is a fat tree");
      return onDirectorPods(fabric, options, std::move(*ftree));
    }
    const std::string why = fmt::format("not a fat tree: {}", ftree.error().message);
    // Roots the operator named are for updn (sssp has none): updn then.
    auto sssp = !options.rootGuids.empty()
                    ? Result<RoutingResult>(fail("sssp: the operator named roots (updn's)"))
                : routes(fabric) <= kLargest
                    ? makeSsspEngine()->route(fabric, options)
                    : Result<RoutingResult>(fail("sssp: too large to route beside the others"));
    if (sssp) {
      sssp->notes.insert(sssp->notes.begin(), {fmt::format("auto chose sssp: {}", why),
                                               fmt::format("and {}", dragonfly.error().message)});
      return sssp;
    }
    auto updn = makeUpDownEngine()->route(fabric, options);
    if (!updn)
      return fail(fmt::format("{}; not a fat tree ({}) and updn failed: {}",
                              dragonfly.error().message, ftree.error().message,
                              updn.error().message));
    updn->notes.insert(updn->notes.begin(), {fmt::format("auto chose updn: {}", why),
                                             fmt::format("and {}", dragonfly.error().message),
                                             fmt::format("and {}", sssp.error().message)});
    return updn;
  }

 private:
  // A fat tree whose compute leaves stand at uneven heights (director pods:
  // line-card chips take hosts): the pairs whose leaves share no ancestor
  // have no climb-then-descend path, and on ftree's one VL they turn in its
  // hub leaf and crowd its cables. Small ones are routed with sssp too, whose
  // shortest paths spread them over VL layers; its tables are taken when
  // their busiest link is strictly lower, within the VLs allowed (with one VL
  // sssp refuses and ftree's stand). Trees with every leaf at the bottom are
  // ftree's, untouched.
  static Result<RoutingResult> onDirectorPods(const Fabric& fabric, const RoutingOptions& options,
                                              RoutingResult ftree) {
    if (routes(fabric) > kSmall || !options.rootGuids.empty()) return ftree;
    const auto shape = recogniseFatTree(fabric);
    if (!shape || !shape->unevenLeaves) return ftree;
    auto sssp = makeSsspEngine()->route(fabric, options);
    if (!sssp) return ftree;
    if (treesAtRisk(fabric, *sssp) && routing::treesSafe(fabric, ftree)) {
      ftree.notes.insert(ftree.notes.begin() + 1, treesKeep("ftree", sssp->vlsUsed));
      return ftree;
    }
    const auto mine = busiest(fabric, *sssp), theirs = busiest(fabric, ftree);
    if (mine >= theirs) return ftree;
    sssp->notes.insert(sssp->notes.begin(),
                       fmt::format("auto chose sssp: the fabric is a fat tree with director pods "
                                   "(compute leaves above the bottom level), and sssp's busiest "
                                   "link carries {} CA-to-CA routes where ftree's carries {}",
                                   mine, theirs));
    for (const auto& note : ftree.notes)
      if (!note.starts_with("auto chose"))
        sssp->notes.push_back(fmt::format("ftree (not taken): {}", note));
    return sssp;
  }

  // Whether sssp's busiest link `mine` beats dragonfly's `theirs`. Under
  // change (dragonfly kept the entries whose previous path holds), leaving
  // dragonfly moves every route it kept and the VL plan the switches hold,
  // and sssp's layers cannot keep them (they would close credit loops): that
  // pays only past the balance routing under change may cost against fresh
  // tables (kMaxBusiestOverFresh, ibsm/StableRoutes.h).
  static bool takesSssp(std::uint64_t mine, std::uint64_t theirs, bool underChange) {
    if (!underChange) return mine < theirs;
    return static_cast<double>(theirs) > kMaxBusiestOverFresh * static_cast<double>(mine);
  }

  static Result<RoutingResult> onDragonfly(const Fabric& fabric, const RoutingOptions& options,
                                           RoutingResult dragonfly) {
    const bool small = routes(fabric) <= kSmall;
    const auto shape = small ? recogniseDragonfly(fabric) : fail("too large to compare");
    auto sssp = small && shape && !whole(*shape)
                    ? makeSsspEngine()->route(fabric, options)
                    : Result<RoutingResult>(fail("too large to compare"));
    if (sssp && treesAtRisk(fabric, *sssp) && routing::treesSafe(fabric, dragonfly)) {
      dragonfly.notes.insert(dragonfly.notes.begin(), treesKeep("dragonfly", sssp->vlsUsed));
      sssp = fail("its trees unsafe");
    }
    if (sssp) {
      const auto mine = busiest(fabric, *sssp), theirs = busiest(fabric, dragonfly);
      if (takesSssp(mine, theirs, dragonfly.followedPrevious)) {
        sssp->notes.insert(
            sssp->notes.begin(),
            fmt::format("auto chose sssp: the fabric is recognised as a dragonfly, but sssp's "
                        "busiest link carries {} CA-to-CA routes where {}'s carries {}",
                        mine, dragonfly.engine, theirs));
        // What dragonfly saw of the shape (missing cables) stays in view.
        for (const auto& note : dragonfly.notes)
          sssp->notes.push_back(fmt::format("{} (not taken): {}", dragonfly.engine, note));
        return sssp;
      }
    }
    dragonfly.notes.insert(dragonfly.notes.begin(),
                           "auto chose dragonfly: the fabric is a dragonfly");
    return dragonfly;
  }
};

}  // namespace

std::unique_ptr<RoutingEngine> makeAutoEngine() {
  return std::make_unique<AutoEngine>();
}

}  // namespace ibsm
