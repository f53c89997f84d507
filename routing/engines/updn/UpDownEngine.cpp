// updn: Up*/Down* routing over the order of UpDownOrder.h, complete (every
// switch reaches every LID of its component) and free of credit loops on any
// topology, on one VL. UpDownRoutes.h says which routes it allows.
//
// With the previous tables as the hint (RoutingOptions::previous) it routes
// LID by LID: a switch keeps its previous entry where the previous chain
// from it still reaches the LID and still climbs then descends in the
// current order; the others are routed around the kept chains by the same
// rules, on the same balance, so the result is as free of credit loops as
// the fresh tables, by construction.
#include <fmt/format.h>
#include <ibsm/Engines.h>

#include "routing/engines/BalancedLfts.h"
#include "routing/engines/updn/UpDownOrder.h"
#include "routing/engines/updn/UpDownRoutes.h"
#include "routing/graph/PreviousChains.h"
#include "routing/graph/SwitchGraph.h"

namespace ibsm {
namespace {

using routing::SwitchGraph;
using routing::SwitchIndex;

class UpDownEngine final : public RoutingEngine {
 public:
  std::string_view name() const override { return "updn"; }

  Result<RoutingResult> route(const Fabric& fabric, const RoutingOptions& options) const override {
    const SwitchGraph graph(fabric);
    routing::PreviousChains chains(graph, options.previous);
    auto order = routing::updn::upDownOrder(fabric, graph, options.rootGuids, &chains);
    if (!order) return std::unexpected(order.error());
    routing::updn::UpDownRoutes routes(graph, *order);
    const bool hinted = !chains.empty();
    SwitchIndex current = routing::kNoSwitch;
    std::uint64_t kept = 0;
    const auto toward = [&](SwitchIndex d) {
      if (!hinted && d != current) routes.toward(current = d);
    };
    routing::PathChoices choices{
        .length =
            [&](SwitchIndex s, SwitchIndex d) {
              toward(d);
              return routes.length(s);
            },
        .candidates =
            [&](SwitchIndex s, SwitchIndex d, std::vector<std::uint8_t>& out) {
              toward(d);
              routes.candidates(s, out);
            }};
    if (hinted)
      choices.forLid = [&](Lid lid, SwitchIndex d, std::uint8_t deliverPort) {
        chains.judge(lid, d, deliverPort);
        routes.toward(d, chains);
        kept += routes.kept();
      };
    auto tables = routing::fillBalancedLfts(fabric, graph, choices);

    RoutingResult result;
    result.engine = std::string(name());
    result.lfts = std::move(tables.lfts);
    result.notes = std::move(order->notes);
    result.upDownOrder = graph.byNodeId(order->position, fabric.size());
    if (auto note = routing::unroutedNote(tables)) result.notes.push_back(std::move(*note));
    if (hinted) {
      result.followedPrevious = true;
      result.notes.push_back(fmt::format(
          "previous tables as the hint: {} (switch, LID) entries kept where their previous path "
          "still holds and still climbs then descends in the current order; the others routed "
          "Up*/Down* around them",
          kept));
    }
    return result;
  }
};

}  // namespace

std::unique_ptr<RoutingEngine> makeUpDownEngine() {
  return std::make_unique<UpDownEngine>();
}

}  // namespace ibsm
