// The step from a Fabric to what the switches should hold, shared by the
// live SM and the dry run: assign LIDs, then route. Because both call this
// one function, a dry run predicts exactly what the live SM programs.
//
//   auto plan = planSubnet(discovered, {.guid2lid = saved, .engines = {"ftree", "updn"}},
//                          defaultRegistry());
#pragma once

#include <ibsm/Lids.h>
#include <ibsm/Multicast.h>
#include <ibsm/PKeyTables.h>
#include <ibsm/Routing.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ibsm {

struct PlanInputs {
  Guid2Lid guid2lid;
  std::uint8_t lmc{0};
  std::vector<std::string> engines{"auto"};
  RoutingOptions routing;
};

struct SubnetPlan {
  Fabric fabric;  // the input with the planned LIDs applied
  LidPlan lids;
  RoutingResult routing;
  // PKey tables and switch-edge enforcement to program; nullopt: the SM
  // does not manage partitions and programming leaves every table alone.
  // planSubnet() leaves it unset: the partition planner fills it, which
  // lets a partition change be programmed without routing again.
  std::optional<PKeyTables>
      pkeys{};  // {}: aggregate inits that stop at `routing` stay warning-free
  // The partitions' `sl` flag by PKey (low 15 bits), filled with pkeys:
  // the SL the SA gives paths in that partition.
  std::map<std::uint16_t, std::uint8_t> partitionSl{};
  // Every switch's multicast forwarding table (planMulticast()); nullopt:
  // the SM does not manage multicast and programming leaves MFTs alone.
  // Filled after routing, like pkeys, so that a join is programmed
  // without routing again.
  std::optional<MulticastPlan> multicast{};
};

[[nodiscard]] Result<SubnetPlan> planSubnet(Fabric fabric, const PlanInputs& inputs,
                                            const EngineRegistry& registry);

}  // namespace ibsm
