#include "routing/engines/SharedTreeVl.h"

#include <fmt/format.h>

#include <vector>

#include "routing/analysis/CreditLoops.h"
#include "routing/analysis/ForwardingView.h"
#include "routing/multicast/McRoots.h"
#include "routing/multicast/McSl.h"
#include "routing/multicast/McTreeBuilder.h"

namespace ibsm::routing {
namespace {

using analysis::ChannelId;

// Every turn a copy of one of the trees may take (OneTree::forEachTurn), on
// VL `vl`.
void addTreeTurns(const analysis::ForwardingView& view, const OneTree& tree, std::uint8_t vl,
                  analysis::ChannelDependencies& deps) {
  tree.forEachTurn([&](SwitchIndex from, std::uint8_t in, SwitchIndex at, std::uint8_t out) {
    deps.addTurn(view.target(from, in).channel, view.target(at, out).channel, vl);
  });
}

// The layer and the first root (treeVlClosingNoLoop).
struct SharedVl {
  std::uint8_t vl{0};
  NodeId root{0};
};

std::optional<SharedVl> sharedVl(const Fabric& fabric, const RoutingResult& result,
                                 unsigned threads) {
  if (result.sl2vl.empty() || result.vlsUsed < 2) return std::nullopt;
  const analysis::ForwardingView view(fabric, result, threads);
  const analysis::ChannelDependencies unicast = analysis::routeDependencies(view, threads);
  McRoots roots(view.graph());
  const OneTree tree = oneTree(roots, view.graph());
  for (int vl = result.vlsUsed - 1; vl >= 0; --vl) {
    analysis::ChannelDependencies deps = unicast;
    addTreeTurns(view, tree, static_cast<std::uint8_t>(vl), deps);
    if (deps.report(result.vlsUsed).acyclic)
      return SharedVl{static_cast<std::uint8_t>(vl), view.graph().nodeId(tree.firstRoot)};
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::uint8_t> treeVlClosingNoLoop(const Fabric& fabric, const RoutingResult& result,
                                                unsigned threads) {
  const auto shared = sharedVl(fabric, result, threads);
  return shared ? std::optional<std::uint8_t>(shared->vl) : std::nullopt;
}

bool treesSafe(const Fabric& fabric, const RoutingResult& result) {
  return result.treesShareVl || treesHaveAVlOfTheirOwn(fabric, result.sl2vl);
}

void shareATreeVl(const Fabric& fabric, RoutingResult& result, unsigned threads) {
  if (result.sl2vl.empty() || result.vlsUsed < 2 || treesSafe(fabric, result)) return;
  const auto shared = sharedVl(fabric, result, threads);
  if (!shared) {
    result.notes.push_back(fmt::format(
        "multicast trees on their groups' SLs, with the unicast layers: with the turns of one "
        "tree rooted at the most central switch, each of VLs 0-{} closes a credit loop with the "
        "unicast routes on it, and a tree's turns may close one with theirs (allow a VL more: "
        "routing.max_vls)",
        result.vlsUsed - 1));
    return;
  }
  for (Sl2VlEntry& e : result.sl2vl) e.vl[kTreeSl] = shared->vl;
  keepUnicastOffTheTreeSl(SwitchGraph(fabric), result);
  result.treesShareVl = shared->vl;
  result.notes.push_back(fmt::format(
      "multicast trees on SL {} and VL {}, shared with the unicast routes on it (no VL is left "
      "above them), every tree part of one rooted at {}: no tree's turn closes a credit loop "
      "with those routes or another tree's, whoever joins",
      kTreeSl, shared->vl, fmt::format("\"{}\"", fabric.node(shared->root).description)));
}

}  // namespace ibsm::routing
