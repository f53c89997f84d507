// What a set of forwarding tables actually does, found by walking them: the
// dry run prints it, and the live SM runs it on the tables it read back to
// check what it programmed. It judges tables, never an engine's intentions.
//
//   RoutingResult result = *registry.route(fabric, {"ftree"}, options);
//   RouteReport report = analyseRoutes(fabric, result);
//   report.reportSeconds = elapsed;  // timing and memory are the caller's
//   fmt::print("{}", reportSummary(report));
//
// Definitions (every figure below is exact, not sampled):
//
// * Endpoint: a LID-bearing port reached through a switch: port 0 of every
//   switch with a LID, and every CA (or router) port with a LID that is
//   cabled to a switch. Every LID of an endpoint's LMC range is a destination.
// * Pair: (source endpoint, destination LID) where the source does not own the
//   LID. Its route starts at the source's switch (a CA enters at the switch it
//   is cabled to) and follows the LFTs until the port owning the LID is
//   reached. A pair is unreachable when the walk meets no entry, an entry
//   into a port that does not exist or has no cable, an entry that delivers
//   to another port (port 0 or a CA port not owning the LID), or a switch it
//   already visited (a loop).
// * Switch hops: inter-switch cables a route crosses; stretch: hops minus the
//   fewest switch hops between the two switches in the cabled graph. Both are
//   taken over routed CA->CA pairs, every LID of the destination's range.
// * Link load: for each directed inter-switch cable (switch, out port), the
//   number of routed CA->CA routes that cross it, where a route is an ordered
//   pair of distinct CA ports (two ports of one HCA count) and its destination
//   is the base LID. Min, mean and max are over every directed inter-switch
//   cable that exists, unused ones included, so max/mean compares with
//   OpenSM's figure for the same fabric. Undelivered routes load nothing.
//   (OpenSM 3.3 minhop on the generated radix-12 3-level tree less 6
//   cables: max 2316, mean 413.9 by this count.)
// * Credit loops: channels are the directed inter-switch cables (per VL when
//   the result has SL2VL entries). A dependency c1 -> c2 exists when, for
//   some destination LID (switch LIDs and every LMC LID included), the LFT
//   chain leaves a switch on c1 and the next switch forwards it on c2. Every
//   switch may originate traffic, so every chain counts, delivered or not.
//   The tables are deadlock-free when that graph has no cycle.
// * VLs: a hop's VL is the SL2VL entry of (switch, in port, out port, SL);
//   traffic starts at its source's port (port 0 for a switch). Without
//   RoutingResult::pairSls every SL a path can carry is walked; with them
//   each pair on its SL (the rest on SL 0): the SL k dependencies are those
//   of the chains from the switches where sources on SL k enter. A missing
//   SL2VL entry maps to VL 0; VL 15 drops the packet, so it holds no buffer.
//   The dragonfly engine maps every SL of a turn to the same VL, so its
//   tables are judged exactly whatever SL a transport picks.
//
// Cost: one pass over the switches per destination LID, one BFS per switch
// with CAs, and a LID-major copy of the tables (switches x LIDs bytes), split
// over routing.threads threads (each with its own scratch, sized once): a
// radix-36 3-level fat tree (1620 switches, 13284 LIDs) takes about 0.45 s
// of CPU and 21 MB, a radix-48 one (2880 switches, 30528 LIDs) about 1.8 s
// of CPU and 88 MB; the threads share nothing but the view while they walk.
#pragma once

#include <ibsm/Fabric.h>
#include <ibsm/LftChanges.h>
#include <ibsm/Multicast.h>
#include <ibsm/MultipathReport.h>
#include <ibsm/QosReport.h>
#include <ibsm/Routing.h>

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ibsm {

enum class PairKind : std::uint8_t { CaToCa, CaToSwitch, SwitchToCa, SwitchToSwitch };
inline constexpr std::size_t kPairKinds = 4;

enum class UnreachableReason : std::uint8_t {
  NoEntry,    // the LFT has no entry (0xFF) for the destination
  DeadPort,   // the entry names a port that does not exist or has no cable
  Loop,       // the walk came back to a switch it had visited
  WrongPort,  // the entry delivers to port 0 or a CA port that does not own the LID
};
inline constexpr std::size_t kUnreachableReasons = 4;

std::string_view toString(PairKind kind);
std::string_view toString(UnreachableReason reason);

struct PairCounts {
  std::uint64_t routed{0};
  std::uint64_t unreachable{0};
};

// A port as an operator finds it: node description, port GUID, LID.
struct EndpointName {
  std::string description;
  Guid portGuid;
  Lid lid;
  std::uint8_t port{0};
};

struct UnreachableExample {
  EndpointName source;
  EndpointName destination;
  UnreachableReason reason{UnreachableReason::NoEntry};
  std::string stoppedAt;          // switch and port where the walk gave up
  std::vector<std::string> path;  // switches visited, in order
};

struct HopStats {
  std::uint64_t pairs{0};  // routed CA->CA (source, destination LID) pairs
  std::uint32_t max{0};
  double mean{0};
  std::uint32_t maxStretch{0};
  double meanStretch{0};
  std::uint64_t longerThanShortest{0};
};

struct LinkLoad {
  std::string name;  // "leaf0"[19] -> "spine3"[1]
  Guid fromGuid;
  std::uint8_t fromPort{0};
  Guid toGuid;
  std::uint8_t toPort{0};
  std::uint64_t routes{0};
};

// One directed inter-switch cable's load, keyed as every report of any
// fabric names it: `ibsm draw` colours the cable by it.
struct DirectedLinkLoad {
  Guid fromGuid;
  std::uint8_t fromPort{0};
  std::uint64_t routes{0};
};

struct LinkLoadStats {
  std::size_t links{0};  // directed inter-switch cables
  std::uint64_t max{0};
  std::uint64_t min{0};
  double mean{0};
  double maxOverMean{0};                  // 0 when no route crosses any link
  std::vector<LinkLoad> busiest;          // the few busiest, busiest first
  std::vector<DirectedLinkLoad> perLink;  // every directed inter-switch cable, unused ones too
};

// The dependencies that stay on one VL: a cycle among them deadlocks that VL
// alone. A cycle through dependencies that change VL shows only in
// CreditLoopReport::acyclic.
struct VlCreditLoops {
  std::uint8_t vl{0};
  bool acyclic{true};
  std::size_t dependencies{0};  // (channel, vl) -> (channel, vl)
};

struct CreditLoopReport {
  bool acyclic{true};           // over all VLs together, dependencies that change VL included
  std::uint8_t vlsNeeded{1};    // RoutingResult::vlsUsed
  std::uint8_t vlsAnalysed{1};  // VLs that SL2VL entries map traffic to
  std::size_t channels{0};      // directed inter-switch cables
  std::size_t dependencies{0};  // distinct (channel, VL) -> (channel, VL) pairs
  // One cycle when not acyclic: each channel ("sw"[out] -> "peer"[in], with
  // " VLn" when VLs are analysed) waits for the next, the last for the first.
  std::vector<std::string> cycle;
  std::vector<VlCreditLoops> perVl;
  // The SLs whose traffic was walked: one of each set of SLs every SL2VL
  // table maps alike (so every SL a path can carry is judged); {0} without
  // SL2VL tables.
  std::vector<std::uint8_t> sls{0};
  // Each pair was walked on its SL (RoutingResult::pairSls, with SL2VL
  // tables): `sls` are SL 0 and the SLs the engine names, the dependencies of
  // SL k those of the chains from where the sources on SL k enter.
  bool perPairSls{false};
  // The VLs some hop between switches of the walked traffic is on (with
  // SL2VL tables; {0} without): fewer than vlsAnalysed when a VL the tables
  // name carries nothing.
  std::vector<std::uint8_t> vlsCarrying{0};
};

// The multicast trees of a dry run, judged by checkMulticast(): how many,
// how big, how their roots and cables are shared, and what is wrong.
struct MulticastReport {
  std::size_t groups{0};
  std::size_t groupsWithTree{0};
  std::size_t receivers{0};        // member ports that get copies, all groups
  std::size_t treeSwitches{0};     // switches in trees, all groups
  std::size_t maxTreeSwitches{0};  // of the largest tree
  std::size_t mftEntries{0};       // (switch, MLID) entries with a port
  std::size_t roots{0};            // distinct root switches
  std::size_t maxTreesPerRoot{0};
  std::size_t minTreesPerRoot{0};     // over the roots in use
  std::size_t linksUsed{0};           // inter-switch cables some tree uses
  std::size_t maxTreesPerLink{0};     // trees that share the busiest cable
  std::string busiestLink;            // "sw"[p] -- "peer"[q]
  std::vector<std::string> warnings;  // the planner's (members left out)
  std::vector<std::string> problems;  // checkMulticast()'s; empty: every tree right
  std::size_t alongUpDown{0};         // MulticastPlan::alongUpDown
};

// What these routes would move on a fabric that holds other tables (the
// dry run's --previous): the tables compared, and the busiest link before
// and after, so an operator sees what a change costs in writes and balance.
struct PreviousReport {
  std::string tablesFile;  // where the previous tables were read
  // Where the dump stopped early (ibroute's "iberror:" line), one line
  // each: the tables after it are missing, so counted as new switches.
  std::vector<std::string> truncated{};
  // How this run's routes came about: "kept" (routed under change, the
  // previous tables as the hint), "fresh" (--rebalance, or
  // routing.stable_routes false) or "fresh-fallback" (under change, but the
  // fresh tables taken: `why`); as the live SM would route.
  std::string routedAs;
  std::string change;  // "capacity-lost", "hosts-only", ...; empty when fresh
  std::uint64_t entriesKept{0}, entriesRerouted{0};
  std::uint64_t blocksRerouted{0};  // blocks holding a rerouted entry (at most these change)
  std::string why;
  LftChanges tables;
  // The report's link loads of the previous tables on the fabric they were
  // routed for; nullopt when that fabric was not given (never guessed).
  std::optional<LinkLoadStats> linkLoadBefore{};
};

struct RouteReport {
  std::string engine;
  std::vector<std::string> engineNotes;
  std::vector<std::string> fallbacks;
  // RoutingResult::loopbacks, each as '"leaf0"[7] (0x...) -- "leaf0"[8] (0x...)'.
  std::vector<std::string> loopbacks;

  std::size_t switches{0};
  std::size_t caPorts{0};          // CA endpoints (ports with a LID cabled to a switch)
  std::size_t destinationLids{0};  // LIDs owned by some port

  std::array<PairCounts, kPairKinds> pairs{};  // by PairKind
  std::array<std::uint64_t, kUnreachableReasons> unreachableByReason{};
  std::vector<UnreachableExample> unreachableExamples;  // at most kMaxExamples, one per LID
  std::size_t lidsWithLoops{0};  // destination LIDs whose LFT chains contain a loop

  HopStats hops;           // CA->CA pairs, both ends outside RoutingResult::apart
  LinkLoadStats linkLoad;  // the routes of those pairs
  std::size_t apartPorts{0};
  HopStats apartHops;  // CA->CA pairs with an end in RoutingResult::apart
  CreditLoopReport creditLoops;
  // How disjoint the routes toward each CA port's LMC LIDs are; only when
  // some CA port has LMC > 0 (MultipathReport.h).
  std::optional<MultipathReport> multipath{};
  // Pairs (as `pairs` counts them) by the SL the engine gave them, index =
  // SL (RoutingResult::pairSls; the pairs it does not name on SL 0); empty
  // when it names none.
  std::vector<std::uint64_t> pairsBySl;
  // Filled by the caller when it planned multicast (analyseMulticast()).
  std::optional<MulticastReport> multicast{};
  // Filled by the caller when it compared with previous tables.
  std::optional<PreviousReport> previous{};
  // Filled by the caller when it was given a QoS policy (countPlainPathLevels()).
  std::optional<QosReport> qos{};
  // Filled by the caller when QoS classes share the routing's VL layers
  // (qos::planQosTables): classes, layers, VLs needed, each class's VLs.
  std::optional<qos::QosVlLayers> qosVlLayers{};

  // Filled by the caller: the report does no timing and no I/O.
  std::vector<std::string> inputWarnings;  // the topology reader's, "file:line: ..."
  double routeSeconds{0};
  // The report's time in all (reportSeconds: the analysis, multicast
  // planning and checking, the --previous comparison), and of it the
  // all-pairs analysis alone (analyseRoutes).
  double reportSeconds{0};
  double analysisSeconds{0};
  std::uint64_t peakRssKiB{0};

  static constexpr std::size_t kMaxExamples = 10;
  static constexpr std::size_t kBusiestLinks = 5;

  std::uint64_t routedPairs() const;
  std::uint64_t unreachablePairs() const;
};

// Walks every table of `result` over `fabric` (which must hold the LIDs the
// tables were built for). Pure: no I/O, no timing. On `threads` threads
// (routing.threads; 0: all cores): the report is the same for any count.
RouteReport analyseRoutes(const Fabric& fabric, const RoutingResult& result, unsigned threads = 0);

// analyseRoutes(fabric, result).creditLoops, without the rest of the walk.
CreditLoopReport findCreditLoops(const Fabric& fabric, const RoutingResult& result,
                                 unsigned threads = 0);

// The multicast plan judged: figures, and checkMulticast() over its MFTs.
MulticastReport analyseMulticast(const Fabric& fabric, const MulticastPlan& plan,
                                 const std::vector<McGroupRoute>& groups);

// Each group's tree walked on its SL (sls[i]: groups[i]'s) from every
// member, through the SL2VL tables the plan programs (a CA port's with in
// port 0): where a turn maps the SL to VL 15 the copies past it are
// dropped. One problem per group and dropping turn, naming the group, the
// SL and the turn ("sw"[in] -> [out]); empty when no tree is cut. Loops in
// the trees are checkMulticast()'s.
std::vector<std::string> checkMulticastSls(const Fabric& fabric, const std::vector<SwitchMft>& mfts,
                                           const std::vector<McGroupRoute>& groups,
                                           const std::vector<std::uint8_t>& sls,
                                           std::span<const Sl2VlEntry> sl2vl);

// The report as one JSON object (stable keys, for scripts and CI).
std::string reportJson(const RouteReport& report);
// The report as human-readable lines for stdout.
std::string reportSummary(const RouteReport& report);

}  // namespace ibsm
