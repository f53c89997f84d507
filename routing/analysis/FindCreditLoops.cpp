// findCreditLoops: the credit-loop part of analyseRoutes alone, for a caller
// that must judge tables before taking them (the engine fallback of
// routing/plan) and needs neither pair counts nor link loads. Like the
// report, it walks every SL a path can carry (ChannelDependencies::add):
// one of each set of SLs the SL2VL tables map alike.
#include <ibsm/Report.h>

#include "routing/analysis/CreditLoops.h"
#include "routing/analysis/ForwardingView.h"
#include "routing/analysis/NextHops.h"

namespace ibsm {

CreditLoopReport findCreditLoops(const Fabric& fabric, const RoutingResult& result) {
  const analysis::ForwardingView view(fabric, result);
  analysis::NextHops hops(view);
  analysis::ChannelDependencies deps(view);
  for (const analysis::Destination& d : view.destinations()) {
    hops.resolve(d);
    deps.add(hops);
  }
  return deps.report(result.vlsUsed);
}

}  // namespace ibsm
