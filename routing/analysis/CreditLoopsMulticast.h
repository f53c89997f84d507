// Multicast trees judged for credit loops with the unicast routes (issue
// 33). A copy of a multicast packet holds a buffer as a unicast packet
// does: entering a tree switch by one tree port it waits for the cable out
// of each other tree port, on the VL the group's SL maps that turn to. Two
// trees, or a tree and unicast routes on one VL, can close a ring of such
// waits, so the report's credit-loop verdict takes every group's tree into
// the dependency graph of the unicast routes, per VL, and a cycle names
// what makes each of its waits: a group's tree, or the routes toward a LID.
//
//   const McTreesToJudge trees{&plan.mfts, routes, groupSls};
//   RouteReport r = analyseRoutes(fabric, result, threads, trees);
#pragma once

#include <ibsm/Multicast.h>
#include <ibsm/Report.h>

#include <cstdint>
#include <span>
#include <vector>

#include "routing/analysis/CreditLoops.h"
#include "routing/analysis/ForwardingView.h"

namespace ibsm {

struct McTreesToJudge {
  const std::vector<SwitchMft>* mfts{nullptr};  // index = NodeId; null: no trees
  std::span<const McGroupRoute> groups;         // each group's MLID and name
  std::span<const std::uint8_t> sls;            // groups[i]'s SL; SL 0 past the end
};

// analyseRoutes(fabric, result, threads) with the trees' dependencies in
// its credit-loop verdict (CreditLoopReport::dependencies counts them too).
RouteReport analyseRoutes(const Fabric& fabric, const RoutingResult& result, unsigned threads,
                          const McTreesToJudge& trees);

namespace analysis {

// One group's tree, switch by switch (index = SwitchIndex; null: not in it).
struct TreeMasks {
  std::vector<const McPortMask*> masks;
  std::uint8_t sl{0};
  std::size_t group{0};  // index in McTreesToJudge::groups
};
// The trees of the groups that have one.
std::vector<TreeMasks> treeMasks(const ForwardingView& view, const McTreesToJudge& trees);

// Names what makes a wait of the cycle: the groups whose trees make it
// ("the tree of group G (MLID m) on SL k") and, when unicast routes make it
// too, a LID they lead toward ("unicast toward LID l (port)").
ChannelDependencies::CycleCause cycleCauses(const ForwardingView& view,
                                            const ChannelDependencies& deps,
                                            const std::vector<TreeMasks>& trees,
                                            const McTreesToJudge& groups);

}  // namespace analysis
}  // namespace ibsm
