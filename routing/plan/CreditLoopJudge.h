// The one rule for tables with a credit loop, used by every plan (the live
// SM and the dry run alike, through planSubnet and routeUnderChange): while
// another engine follows in the list, such tables count as that engine
// refusing the fabric, and the next is tried; the last engine's tables are
// taken as they are, since a fabric that can deadlock under load beats a
// fabric with no routes, and the SM programs them, reports the subnet up and
// says so (status routes_credit_loop, log SM-0442).
//
//   registry.route(fabric, engines, options, creditLoopJudge());
//
// And what routing under change weighs tables by (judgeTables): the
// report's busiest link, unreachable pairs and credit-loop freedom, by the
// report's definitions (Report.h) and its per-destination resolution, but
// without the rest of its walk (hops, stretch, examples, names) and on
// `threads` threads; the figures do not depend on how many.
//
//   const TablesVerdict v = judgeTables(fabric, candidate, options.threads);
//   if (v.unreachable == 0 && v.acyclic && v.busiest <= 1.1 * v.busiestFloor) ...
#pragma once

#include <ibsm/Routing.h>

#include <cstdint>
#include <span>
#include <vector>

namespace ibsm {

[[nodiscard]] TablesJudge creditLoopJudge();

struct TablesVerdict {
  std::uint64_t busiest{0};      // RouteReport::linkLoad.max
  std::uint64_t unreachable{0};  // RouteReport::unreachablePairs()
  bool acyclic{true};            // RouteReport::creditLoops.acyclic
  // A floor under the busiest link of any tables on this fabric that
  // deliver every CA->CA route the cabling connects (with the same ports
  // routed apart): a set of switches with c such CA ports in a part of the
  // fabric holding n sends c * (n - c) routes out over the d cables that
  // leave it, so one carries at least ceil(c * (n - c) / d); the highest of
  // those over every switch alone and every switch's clique (the switches
  // around it all cabled to each other: a dragonfly's group).
  std::uint64_t busiestFloor{0};
};

// Whether judgeTables walks the channel dependencies (Walk), or takes the
// tables as free of credit loops because the engine made them so
// (ByConstruction: ftree, whose every chain climbs then descends in one hub
// order, FatTreeLegalise.h) and reports them acyclic unwalked: the busiest
// link and the unreachable pairs cost a third less then.
enum class LoopCheck : std::uint8_t { Walk, ByConstruction };

// With ByConstruction and `order` (every switch index of the fabric's
// SwitchGraph once: ftree's hub order), the destinations whose every chain
// climbs, then descends in that order are weighed 64 at a time, without the
// per-destination walk (OrderedLoads.h); the figures are the same.
//
// With `copied` (routing under change: the columns ftree's hint pass found
// held whole and pushed the routes of, which the tables keep unchanged),
// those LIDs are neither walked nor copied into the LID-major view, and
// their loads are added as given, when the sources they were pushed from
// are the report's: every switch's CA ports that are not routed apart, and
// no copied LID owned by a switch or a port routed apart. Otherwise they
// are walked like the rest; the figures are the same.
struct CopiedLoads {
  std::vector<bool> lids;              // by LID
  std::size_t stride{0};               // ports per switch in `load`
  std::vector<std::uint64_t> load;     // per (switch index, port): base LIDs' routes out of it
  std::vector<std::uint32_t> sources;  // per switch index: CA ports the routes start from
};

[[nodiscard]] TablesVerdict judgeTables(const Fabric& fabric, const RoutingResult& result,
                                        unsigned threads, LoopCheck loops = LoopCheck::Walk,
                                        std::span<const std::uint32_t> order = {},
                                        const CopiedLoads* copied = nullptr);

}  // namespace ibsm
