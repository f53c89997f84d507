// minhop: every switch forwards each LID over one of its ports that lie on a
// path of fewest switch hops, spread as PortBalancer describes. Fastest to
// compute and shortest paths everywhere, but nothing prevents credit loops:
// meant for trees and for comparison, not for rings, meshes or dragonflies.
#include <ibsm/Engines.h>

#include <algorithm>

#include "routing/engines/BalancedLfts.h"
#include "routing/graph/SwitchGraph.h"

namespace ibsm {
namespace {

class MinHopEngine final : public RoutingEngine {
 public:
  std::string_view name() const override { return "minhop"; }

  Result<RoutingResult> route(const Fabric& fabric, const RoutingOptions&) const override {
    const routing::SwitchGraph graph(fabric);
    // Switch hops to one destination switch at a time (cables run both ways,
    // so one BFS from d serves every source); fillBalancedLfts asks
    // destination by destination.
    routing::SwitchIndex current = routing::kNoSwitch;
    std::vector<std::uint16_t> hops;
    const auto toward = [&](routing::SwitchIndex d) -> const std::vector<std::uint16_t>& {
      if (d != current) hops = graph.hopsFrom(current = d);
      return hops;
    };
    auto tables = routing::fillBalancedLfts(
        fabric, graph,
        routing::PathChoices{
            .length = [&](routing::SwitchIndex s, routing::SwitchIndex d) { return toward(d)[s]; },
            .candidates =
                [&](routing::SwitchIndex s, routing::SwitchIndex d,
                    std::vector<std::uint8_t>& out) {
                  const auto& hopsToD = toward(d);
                  graph.forEachCable(s, [&](routing::SwitchIndex t, const routing::Cable& cable) {
                    if (hopsToD[t] + 1 == hopsToD[s]) out.push_back(cable.port);
                  });
                }});

    RoutingResult result;
    result.engine = std::string(name());
    result.lfts = std::move(tables.lfts);
    if (auto note = routing::unroutedNote(tables)) result.notes.push_back(std::move(*note));
    return result;
  }
};

}  // namespace

std::unique_ptr<RoutingEngine> makeMinHopEngine() {
  return std::make_unique<MinHopEngine>();
}

}  // namespace ibsm
