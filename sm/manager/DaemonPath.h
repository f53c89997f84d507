// What the daemon answers to `ibsm path`: the walk of one pair (or a
// multicast tree's branches) through the tables the switches hold as far as
// this SM knows them (HeldSubnet: blocks read back or acknowledged), on the
// fabric and LIDs of its last plan. Where a block is not known (a Set that
// failed, a block never read) the plan's entries stand in: they are what the
// next sweep writes there. A function of values the daemon keeps, so it is
// tested without a daemon.
#pragma once

#include <ibsm/SubnetPlan.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sm/mad/Gmp.h"
#include "sm/program/HeldSubnet.h"

namespace ibsm::sm::manager {

// `line` is a path request (sm/control/PathRequest.h); `planned` the trees of
// the last sweep or multicast pass (MasterSweep::multicastPlan(), null when
// none); `groups` the SA's groups (MGID, MLID). Answers the formatted walk,
// or "error: ...\n" when nothing is planned yet or the request names
// nothing in the fabric.
std::string answerPath(std::string_view line, const SubnetPlan* plan, const MulticastPlan* planned,
                       const program::HeldSubnet& held,
                       const std::vector<std::pair<Gid, Lid>>& groups);

}  // namespace ibsm::sm::manager
