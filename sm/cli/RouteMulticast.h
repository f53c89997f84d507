// The multicast part of `ibsm route`: the groups the partitions pre-create,
// joined as IPoIB joins them, routed and checked by the live SM's code.
//
// Assumption (the man page says it too): every CA or router port that is a
// member of a partition (full or limited) has joined each group that
// partition pre-creates, as a full member: IPoIB joins its partition's
// broadcast group that way, and the `mgid=` groups are given the same
// members, so their trees are planned and checked too. MLIDs are given from
// 0xC000 in group order, as the SA gives the first free one.
#pragma once

#include <ibsm/Dumps.h>
#include <ibsm/Multicast.h>
#include <ibsm/Partitions.h>
#include <ibsm/Report.h>

#include <vector>

namespace ibsm::sm::cli {

struct DryRunMulticast {
  std::vector<McGroupListing> groups;  // for the groups file
  std::vector<McGroupRoute> routes;
  MulticastPlan plan;
  MulticastReport report;
};

// `options`: oneTree where the routing shares a layer with the
// trees (RoutingResult::treesShareVl), as the live SM plans them.
[[nodiscard]] Result<DryRunMulticast> planDryRunMulticast(const Fabric& fabric,
                                                          const partition::PartitionConfig& config,
                                                          const MulticastOptions& options);

}  // namespace ibsm::sm::cli
