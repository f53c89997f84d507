// findCreditLoops: the credit-loop part of analyseRoutes alone, for a caller
// that must judge tables before taking them (the engine fallback of
// routing/plan) and needs neither pair counts nor link loads. Like the
// report, it walks every SL a path can carry (ChannelDependencies::add):
// one of each set of SLs the SL2VL tables map alike. In parallel as the
// report is: each worker its own next hops and dependency set, joined.
#include <ibsm/ParallelFor.h>
#include <ibsm/Report.h>

#include <algorithm>

#include "routing/analysis/CreditLoops.h"
#include "routing/analysis/ForwardingView.h"
#include "routing/analysis/NextHops.h"

namespace ibsm {
namespace analysis {

ChannelDependencies routeDependencies(const ForwardingView& view, unsigned threads) {
  const auto destinations = view.destinations();
  constexpr std::size_t kGrain = 16;
  const std::size_t chunks = (destinations.size() + kGrain - 1) / kGrain;
  const unsigned workers = std::max<unsigned>(
      1, static_cast<unsigned>(std::min<std::size_t>(threadCount(threads), chunks)));
  const ChannelDependencies blank(view);
  std::vector<NextHops> hops(workers, NextHops(view));
  std::vector<ChannelDependencies> deps(workers, blank);
  parallelFor(workers, destinations.size(), kGrain,
              [&](std::size_t begin, std::size_t end, unsigned w) {
                for (std::size_t i = begin; i < end; ++i) {
                  hops[w].resolve(destinations[i]);
                  deps[w].add(hops[w]);
                }
              });
  for (unsigned w = 1; w < workers; ++w) deps[0].merge(deps[w]);
  return std::move(deps[0]);
}

}  // namespace analysis

CreditLoopReport findCreditLoops(const Fabric& fabric, const RoutingResult& result,
                                 unsigned threads) {
  const analysis::ForwardingView view(fabric, result, threads);
  return analysis::routeDependencies(view, threads).report(result.vlsUsed);
}

}  // namespace ibsm
