// sssp's routes: one shortest path (fewest switch hops) from every switch to
// every LID, chosen by link load, in the spirit of DFSSSP (Domke, Hoefler,
// Nagel, IPDPS 2011) but held to the fewest hops. LIDs are routed one at a
// time, in LID order. Toward one LID every switch takes, among its cables one
// hop nearer the destination, the one whose path onward carries the least
// load, its channels' loads cubed and summed (a Dijkstra on the
// shortest-path DAG); then the CA-to-CA routes of that LID (each
// switch's CA ports, plus those of every switch routing through it) are added
// to the loads of the channels they cross, so later LIDs avoid them. Every CA
// pair counts; switch LIDs are routed the same way but add no load (they
// carry management only). Further passes take each CA LID's routes out of
// the loads and route it again against everything else (rip-up and
// reroute), which lowers the busiest channel on irregular fabrics; the
// tables of the pass with the least busy busiest channel are kept.
#pragma once

#include <ibsm/Fabric.h>
#include <ibsm/Routing.h>

#include <cstdint>
#include <vector>

#include "routing/engines/BalancedLfts.h"
#include "routing/engines/ftree/FatTreeEndpoints.h"
#include "routing/graph/SwitchGraph.h"

namespace ibsm::routing::sssp {

inline constexpr std::uint32_t kNoChannel = ~std::uint32_t{0};

// The directed inter-switch cables, numbered switch by switch in port order.
struct Channels {
  explicit Channels(const SwitchGraph& graph);

  std::uint32_t at(SwitchIndex s, std::uint8_t port) const {
    return port < stride ? byPort[s * stride + port] : kNoChannel;
  }
  std::size_t size() const { return target.size(); }

  std::size_t stride{1};              // highest port + 1
  std::vector<std::uint32_t> start;   // per switch, its first channel; size() + 1 entries
  std::vector<SwitchIndex> target;    // per channel, the switch it lands on
  std::vector<std::uint8_t> port;     // per channel, its out port
  std::vector<std::uint32_t> byPort;  // [switch * stride + port]: channel or kNoChannel
};

struct SsspTables {
  std::vector<LidTarget> targets;   // index = LID
  std::vector<Lft> lfts;            // index = NodeId; empty for non-switches
  std::vector<std::uint64_t> load;  // per channel: CA-to-CA routes crossing it
  // per channel: of them, those with no aggregation node at either end
  std::vector<std::uint64_t> hostLoad;
  // per channel: of those, the compute pairs (no host above the leaves either)
  std::vector<std::uint64_t> computeLoad;
  std::size_t unroutedEntries{0};  // (switch, owned LID) entries left unrouted
  std::size_t unreachableLids{0};  // owned LIDs some switch cannot reach
};

// Per switch, its CA ports by role (aggregation nodes left out).
struct HostCounts {
  std::vector<std::uint64_t> compute, upper;
};

// The role of every CA LID (index = LID; compute where none is known) and,
// in `hosts`, per switch its compute CAs and its hosts above the leaves:
// those of a switch with fewer hosts than half its cables to other switches
// and than half the median host count (the judge's classes).
std::vector<ftree::CaRole> lidRoles(const Fabric& fabric, const SwitchGraph& graph,
                                    std::size_t lids, HostCounts& hosts);

// `passes` >= 1: the first routes every LID, each further one reroutes every
// CA LID against the others' load. Sequential in the loads; the switch
// distances are computed on up to `threads` threads. The same tables on any
// number of threads.
SsspTables routeBalanced(const Fabric& fabric, const SwitchGraph& graph, const Channels& channels,
                         unsigned passes, unsigned threads);

// The most CA-to-CA routes (every ordered pair of CA ports, by their base
// LIDs) any channel carries through `lfts`; what auto compares engines by.
std::uint64_t busiestChannel(const SwitchGraph& graph, const Channels& channels,
                             const std::vector<Lft>& lfts);

}  // namespace ibsm::routing::sssp
