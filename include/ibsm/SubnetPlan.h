// The step from a Fabric to what the switches should hold, shared by the
// live SM and the dry run: assign LIDs, then route. Because both call this
// one function, a dry run predicts exactly what the live SM programs. A
// cable from a node to itself is left out of routing here, for every engine
// (RoutingResult::loopbacks names it).
//
//   auto plan = planSubnet(discovered, {.guid2lid = saved, .engines = {"ftree", "updn"}},
//                          defaultRegistry());
//
// With PlanInputs::previous (the tables the switches hold and the fabric
// they were routed for) the routes are made under change (StableRoutes.h):
// a lost cable moves only the entries whose path used it. The live SM gives
// its last plan; the dry run's --previous gives a dump; neither gives one
// for a rebalance, which computes the tables afresh.
#pragma once

#include <ibsm/Lids.h>
#include <ibsm/Multicast.h>
#include <ibsm/PKeyTables.h>
#include <ibsm/QosPolicy.h>
#include <ibsm/Routing.h>
#include <ibsm/StableRoutes.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ibsm {

// What the switches hold, as the hint for routing under change: each
// switch's table and node GUID, entry by entry. Where the fabric they were
// routed for is known, a switch's entry is at its NodeId there (GUID 0 and
// no table at every other node), and a fabric whose switches have the same
// NodeIds (the same topology file read again after a cable was lost, say)
// routes from these tables as they are; any other fabric takes a copy of
// them placed by GUID, the tables of a large fabric being tens of MB.
struct PreviousRoutes {
  std::vector<Guid> guids;
  std::vector<Lft> lfts;
  // The fabric those tables were routed for; nullopt when not known (a dump
  // without its topology), which classifies the change as Unknown.
  std::optional<Fabric> fabric;
};

// `tables` by switch GUID (the first of a GUID named twice counts), placed
// by NodeId of `fabric` where it has that switch, listed after otherwise.
[[nodiscard]] PreviousRoutes previousRoutesFrom(std::vector<std::pair<Guid, Lft>> tables,
                                                std::optional<Fabric> fabric);

// The previous routes of a plan: its tables and fabric, by NodeId of that
// fabric, named by GUID so that they outlive the NodeIds of one sweep.
[[nodiscard]] PreviousRoutes previousRoutesOf(const Fabric& fabric, const RoutingResult& routing);

// The tables of `previous` by NodeId of `fabric` (an empty Lft where a
// switch has none, and at every other node), as routing under change takes
// them: `previous.lfts` itself when they are placed so already, else
// `copy`, filled by GUID.
[[nodiscard]] const std::vector<Lft>& previousByNode(const Fabric& fabric,
                                                     const PreviousRoutes& previous,
                                                     std::vector<Lft>& copy);

struct PlanInputs {
  Guid2Lid guid2lid;
  std::uint8_t lmc{0};
  std::vector<std::string> engines{"auto"};
  RoutingOptions routing;
  // Set: route under change from these; unset: fresh tables. Shared, since
  // the inputs are copied per sweep and the tables of a large fabric are not small.
  std::shared_ptr<const PreviousRoutes> previous{};
};

// How the routes of a plan made with PlanInputs::previous came about.
struct StablePlan {
  FabricChange change{FabricChange::Unknown};
  StableRoutesStats stats;
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
  // Set when the plan was routed under change (PlanInputs::previous).
  std::optional<StablePlan> stable{};
  // The QoS policy (qos.policy_file) with its port groups resolved on this
  // fabric; null: no policy, paths get the partition's SL. Filled with
  // pkeys, since `partition:` selectors need the partition plan.
  std::shared_ptr<const qos::ResolvedQos> qos{};
  // SL2VL and VLArbitration of every port when the SM manages QoS (qos.*
  // options or a policy's qos-setup); nullopt: those tables are left as
  // they are (dragonfly's VL layers in routing.sl2vl aside).
  std::optional<qos::QosTables> qosTables{};
};

// "capacity-lost", "capacity-gained", "hosts-only", "unknown": for reports and status.
[[nodiscard]] std::string_view changeName(FabricChange change);
// How the plan's routes came about, for reports and status: "fresh" (no
// previous routes given), "kept" (routed under change) or "fresh-fallback"
// (under change, but the fresh tables taken: stable->stats.why).
[[nodiscard]] std::string_view routesHow(const SubnetPlan& plan);

[[nodiscard]] Result<SubnetPlan> planSubnet(Fabric fabric, const PlanInputs& inputs,
                                            const EngineRegistry& registry);

}  // namespace ibsm
