// minhop: every switch forwards each LID over one of its ports that lie on a
// path of fewest switch hops, spread as PortBalancer describes. Fastest to
// compute and shortest paths everywhere, but nothing prevents credit loops:
// meant for trees and for comparison, not for rings, meshes or dragonflies.
//
// With the previous tables as the hint (RoutingOptions::previous) a switch
// keeps its previous entry toward a LID where the previous chain from it
// still reaches the LID in the fewest switch hops of the fabric as it is
// now: minhop's routes stay shortest (OpenSM's minhop semantics), a kept
// chain that a lost cable made longer than the shortest is routed anew. The
// suffix of a shortest chain is shortest, so what is kept is closed under
// the chain. minhop promises no freedom from credit loops either way; the
// route report's channel dependency check judges the result.
#include <fmt/format.h>
#include <ibsm/Engines.h>

#include <algorithm>

#include "routing/engines/BalancedLfts.h"
#include "routing/graph/PreviousChains.h"
#include "routing/graph/SwitchGraph.h"

namespace ibsm {
namespace {

using routing::SwitchIndex;

class MinHopEngine final : public RoutingEngine {
 public:
  std::string_view name() const override { return "minhop"; }

  Result<RoutingResult> route(const Fabric& fabric, const RoutingOptions& options) const override {
    const routing::SwitchGraph graph(fabric);
    routing::PreviousChains chains(graph, options.previous);
    std::vector<std::uint8_t> keptPort;  // per switch toward the current LID; kNoRoute: none
    std::uint64_t kept = 0;
    // Switch hops to one destination switch at a time (cables run both ways,
    // so one BFS from d serves every source); fillBalancedLfts asks
    // destination by destination.
    SwitchIndex current = routing::kNoSwitch;
    std::vector<std::uint16_t> hops;
    const auto toward = [&](SwitchIndex d) -> const std::vector<std::uint16_t>& {
      if (d != current) hops = graph.hopsFrom(current = d);
      return hops;
    };
    routing::PathChoices choices{
        .length = [&](SwitchIndex s, SwitchIndex d) { return toward(d)[s]; },
        .candidates =
            [&](SwitchIndex s, SwitchIndex d, std::vector<std::uint8_t>& out) {
              if (!keptPort.empty() && keptPort[s] != kNoRoute) {
                out.push_back(keptPort[s]);
                return;
              }
              const auto& hopsToD = toward(d);
              graph.forEachCable(s, [&](SwitchIndex t, const routing::Cable& cable) {
                if (hopsToD[t] + 1 == hopsToD[s]) out.push_back(cable.port);
              });
            }};
    if (!chains.empty())
      choices.forLid = [&](Lid lid, SwitchIndex d, std::uint8_t deliverPort) {
        chains.judge(lid, d, deliverPort);
        const auto& hopsToD = toward(d);
        keptPort.assign(graph.size(), kNoRoute);
        for (SwitchIndex s = 0; s < graph.size(); ++s)
          if (s != d && chains.holds(s) && chains.length(s) == hopsToD[s]) {
            keptPort[s] = chains.port(s);
            ++kept;
          }
      };
    auto tables = routing::fillBalancedLfts(fabric, graph, choices);

    RoutingResult result;
    result.engine = std::string(name());
    result.lfts = std::move(tables.lfts);
    if (auto note = routing::unroutedNote(tables)) result.notes.push_back(std::move(*note));
    if (!chains.empty()) {
      result.followedPrevious = true;
      result.notes.push_back(fmt::format(
          "previous tables as the hint: {} (switch, LID) entries kept where their previous path "
          "still holds and is still a shortest path",
          kept));
    }
    return result;
  }
};

}  // namespace

std::unique_ptr<RoutingEngine> makeMinHopEngine() {
  return std::make_unique<MinHopEngine>();
}

}  // namespace ibsm
