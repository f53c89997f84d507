// The first half of routeWithHint (FatTreeHintedRoute.cpp), as a value:
// which destinations keep their previous column whole (copied), which are
// routed one column at a time and which are left to the placement by load,
// and what the copied columns add up to (their flows on every cable, their
// longer routes: FatTreeHintedFlows.h).
//
// Under change the judge makes it before ftree routes (hintPassUnderChange,
// from the verdicts it judged) and hands it on explicitly: to ftree inside
// the frame it routes from (FatTreeFrame::pass, set before the frame is
// shared, never written after), and to the verdict, which adds the copied
// columns' loads rather than walk them (copiedLoads), once the tables show
// those columns unchanged. ftree makes its own where it is given none.
//
//   const HintPass pass = hintPass(tree, order, hint, threads);
//   auto pass = hintPassUnderChange(fabric, graph, *frame, previous, holds, threads);
#pragma once

#include <ibsm/Fabric.h>
#include <ibsm/Routing.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "routing/engines/ftree/FatTreeDegraded.h"
#include "routing/engines/ftree/FatTreeDegradedPlan.h"
#include "routing/engines/ftree/FatTreeHeldColumns.h"
#include "routing/engines/ftree/FatTreeHintedFlows.h"

namespace ibsm::routing::ftree {

enum class Way : std::uint8_t { kLeft, kHeld, kRouted };

// The degraded D-mod-K plan the judge's pass was made with, and the CA
// destinations it reads (its span points into them): ftree routes from it
// rather than make the same again (sharedDegraded).
struct DegradedSetup {
  std::vector<Destination> destinations;
  std::optional<DegradedDmodk> degraded;
};

struct HintPass {
  std::vector<std::size_t> order;   // the destination order it was made for
  std::vector<Way> way;             // per place in `order`
  std::vector<Toward> toward;       // per leaf index (towardLeaves)
  std::vector<std::uint16_t> dist;  // leafDistances of the held and routed columns' leaves
  std::vector<std::size_t> held;    // places in `order` of the copied columns
  std::vector<HeldFlows> work;      // their flows and lengths, per thread
  std::vector<Watched> watched;     // their flows on watched cables, by held column
  // For the verdict: the copied LIDs, and their base LIDs' routes per cable
  // of the layout, from the compute CAs of each leaf (layout.computeCas).
  std::vector<std::uint16_t> copiedLids;
  std::vector<std::uint64_t> baseLoad;
  // Under change (hintPassUnderChange): what it was made with, for ftree
  // while it routes (the judge lets it go after); else null.
  std::shared_ptr<const DegradedSetup> setup;
};

// The destinations of `order` (a CA's LIDs one run) with the hint `hint`,
// on `threads` threads; the same for any count.
HintPass hintPass(const DegradedTree& tree, const std::vector<std::size_t>& order,
                  const HintColumns& hint, unsigned threads);

// The order ftree routes CA LIDs in by load: a CA's LIDs one after the
// other, CAs by their leaf's canonical place, then port.
std::vector<std::size_t> caOrder(const FatTreeLayout& layout,
                                 const std::vector<Destination>& destinations);

// The pass ftree will make on `frame`'s tree with the verdicts `holds`
// (judged on `previous`), made before it routes; null where ftree routes
// without it (a complete tree, leaves of uneven height, no degraded
// D-mod-K).
std::shared_ptr<HintPass> hintPassUnderChange(const Fabric& fabric, const SwitchGraph& graph,
                                              const FatTreeFrame& frame,
                                              std::span<const Lft> previous,
                                              const PreviousHolds& holds, unsigned threads);

// The degraded D-mod-K plan of the judge's pass (HintPass::setup), when
// `hint` carries verdicts judged on a frame of `layout` with such a pass
// made for `destinations.size()` destinations; else null (ftree makes its own).
const DegradedDmodk* sharedDegraded(const HintColumns& hint, const FatTreeLayout& layout,
                                    std::span<const Destination> destinations);

}  // namespace ibsm::routing::ftree
