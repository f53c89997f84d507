// sssp: balanced shortest paths on VL layers, for fabrics that are neither a
// fat tree nor a dragonfly (irregular clusters) and for degraded
// dragonflies. Every route takes the fewest switch hops, chosen by link load
// over all CA pairs (SsspRoutes.h), then balanced per class of pair
// (SsspChoice.h: compute pairs, hosts above the leaves, aggregation nodes,
// each against its own busiest link), then the routes are spread over VL
// layers so that each layer's channel dependency graph is acyclic
// (SsspLayers.h). It refuses when the layers need more VLs than
// RoutingOptions::maxVls or the ports' VLCap allow.
//
// A route moved to layer k travels on SL k: RoutingResult::pairSls names
// every (destination LID, source port) whose SL is not 0 (the CA ports and
// the switch itself behind the route's first switch), and every switch's
// SL2VL maps SL k to VL k on every turn, port 0 in included (SLs past the
// layers to VL 0), so a switch's own traffic on SL k leaves on VL k too. Where
// one layer suffices, pairSls and sl2vl stay empty. With layers, when a data
// VL is left above them, SL 15 (routing/multicast/McSl.h kTreeSl, no pair's)
// maps to it at every turn and the multicast trees travel on SL 15: a tree
// on SL 0 shared VL 0 with layer 0 and its turns closed credit loops with
// the unicast routes' (issue 33). With no VL left, layer 0 is planned with
// the turns of trees rooted at one switch in it (SsspLayers.h) and the trees
// share a layer (routing/engines/SharedTreeVl.h).
#include <fmt/format.h>
#include <ibsm/Engines.h>

#include <algorithm>
#include <string>

#include "routing/engines/DeclaredVls.h"
#include "routing/engines/SharedTreeVl.h"
#include "routing/engines/sssp/SsspChoice.h"
#include "routing/engines/sssp/SsspLayers.h"
#include "routing/engines/sssp/SsspRoutes.h"
#include "routing/multicast/McSl.h"
#include "routing/multicast/McTreeBuilder.h"

namespace ibsm {
namespace {

using routing::SwitchIndex;

constexpr unsigned kPasses = 4;  // the first plus three rip-up-and-reroute passes

std::vector<PairSl> pairSls(const routing::SwitchGraph& graph,
                            const std::vector<routing::sssp::RaisedRoute>& raised) {
  std::vector<PairSl> out;
  for (const auto& r : raised)
    for (const routing::Endpoint& e : graph.endpoints(r.from))
      out.push_back(PairSl{.dlid = Lid{r.lid}, .source = e.owner, .sl = r.layer});
  std::ranges::sort(out);
  return out;
}

std::vector<Sl2VlEntry> layerSl2Vl(const Fabric& fabric, const routing::SwitchGraph& graph,
                                   std::uint8_t layers) {
  std::array<std::uint8_t, 16> vl{};
  for (std::uint8_t sl = 0; sl < layers; ++sl) vl[sl] = sl;
  std::vector<Sl2VlEntry> out;
  for (SwitchIndex s = 0; s < graph.size(); ++s) {
    const NodeId id = graph.nodeId(s);
    const auto& ports = fabric.node(id).ports;
    for (std::size_t in = 0; in < ports.size(); ++in)  // port 0: what the switch sends itself
      for (std::size_t o = 1; o < ports.size() && (in == 0 || ports[in].remote); ++o)
        if (o != in && ports[o].remote)
          out.push_back(
              Sl2VlEntry{id, static_cast<std::uint8_t>(in), static_cast<std::uint8_t>(o), vl});
  }
  return out;
}

// The multicast trees on VL `layers` when the ports and maxVls leave it
// (McSl.h), and the note that says where they travel.
std::string treesNote(std::vector<Sl2VlEntry>& sl2vl, std::uint8_t layers, std::uint8_t allowed) {
  if (routing::giveTreesAVlOfTheirOwn(sl2vl, layers, allowed)) {
    return fmt::format("multicast trees on SL {} and VL {} of their own, apart from the layers",
                       routing::kTreeSl, layers);
  }
  return fmt::format("no VL is left above the {} layers ({} allowed) for the multicast trees",
                     layers, allowed);
}

// With every VL allowed taken: the layers planned again with the turns of
// the one tree planMulticast() makes every tree part of (oneTree) laid on
// layer 0 (SsspLayers.h), taken when they still fit.
bool layTreesOnLayer0(const routing::SwitchGraph& graph, const routing::sssp::Channels& channels,
                      const routing::sssp::SsspTables& tables, std::uint8_t allowed,
                      routing::sssp::LayerPlan& plan) {
  routing::McRoots roots(graph);
  const routing::OneTree trees = routing::oneTree(roots, graph);
  auto laid = routing::sssp::planLayers(graph, channels, tables, allowed, &trees);
  if (laid.problem) return false;
  plan = std::move(laid);
  return true;
}

class SsspEngine final : public RoutingEngine {
 public:
  std::string_view name() const override { return "sssp"; }

  Result<RoutingResult> route(const Fabric& fabric, const RoutingOptions& options) const override {
    const routing::SwitchGraph graph(fabric);
    const routing::sssp::Channels channels(graph);
    auto choice = routing::sssp::routeByClass(fabric, graph, channels, kPasses, options.threads);
    auto& tables = choice.tables;
    const std::uint8_t allowed = std::min(options.maxVls, routing::declaredDataVls(fabric));
    auto plan =
        routing::sssp::planLayers(graph, channels, tables, std::max<std::uint8_t>(allowed, 1));
    const bool treesLaid = plan.layers == allowed && plan.layers > 1 && !plan.problem &&
                           layTreesOnLayer0(graph, channels, tables, allowed, plan);
    if (plan.problem)
      return fail(fmt::format("sssp: {} (the ports declare {}, maxVls allows {})", *plan.problem,
                              routing::declaredDataVls(fabric), options.maxVls));
    RoutingResult result;
    result.engine = std::string(name());
    result.lfts = std::move(tables.lfts);
    result.vlsUsed = plan.layers;
    result.notes.push_back(fmt::format(
        "shortest paths balanced by link load over all CA pairs (best of {} passes, LIDs in "
        "order){}: busiest link {} CA-to-CA routes; {} between compute CAs, {} with a host above "
        "the leaves, {} with an aggregation node",
        kPasses,
        choice.sweeps == 0 ? std::string()
                           : fmt::format(", then per class ({} entries moved in {} sweeps)",
                                         choice.moved, choice.sweeps),
        choice.busiestAll, choice.busiestCompute, choice.busiestUpper, choice.busiestAggregation));
    if (plan.layers > 1) {
      result.sl2vl = layerSl2Vl(fabric, graph, plan.layers);
      result.pairSls = pairSls(graph, plan.raised);
      result.notes.push_back(fmt::format(
          "{} VL layers, each free of credit loops: {} dependencies broken by moving {} routes "
          "(switch, LID) up a layer; {} (source port, LID) pairs travel on SL 1-{}",
          plan.layers, plan.cuts, plan.raised.size(), result.pairSls.size(), plan.layers - 1));
      result.notes.push_back(treesNote(result.sl2vl, plan.layers, allowed));
      routing::shareATreeVl(fabric, result, options.threads);
      if (treesLaid)
        result.notes.push_back(
            "layer 0 planned with the turns of one multicast tree rooted at the most central "
            "switch in it, so that the trees, each part of that one, may share VL 0");
    }
    if (tables.unroutedEntries > 0)
      result.notes.push_back(fmt::format(
          "{} LIDs are unreachable from at least one switch ({} switch/LID entries left unrouted)",
          tables.unreachableLids, tables.unroutedEntries));
    return result;
  }
};

}  // namespace

std::unique_ptr<RoutingEngine> makeSsspEngine() {
  return std::make_unique<SsspEngine>();
}

}  // namespace ibsm
