// What a PathRecord's route walk reads of the fabric, in one compact record
// per port, built once with each SA snapshot (SaSubnet) rather than looked
// up in the Fabric on every hop of every query (issue 32): the far end of
// its cable, the lower MTUCap of the two ends, the rate of its link, and
// per switch its LFT and the turns whose SL2VL drops some SL. A walk is
// then a few array look-ups per hop.
//
//   PathTable table(plan.fabric, plan.routing);
//   if (auto route = table.walk(srcPort, dlid, dstPort)) use(route->mtu, route->rate);
//
// The walk follows the LFTs from a CA port (or a switch's port 0) towards a
// LID and gives the lowest MTU and rate along the links it crosses and the
// SLs every switch on it carries; nullopt when the route is cut, loops or
// ends at another port than the one asked.
#pragma once

#include <ibsm/Fabric.h>
#include <ibsm/Routing.h>

#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ibsm::sm::sa {

inline constexpr NodeId kNoNode = ~NodeId{0};

// The facts of one route: the lowest MTU and rate along its links.
struct Route {
  std::uint8_t mtu{0xFF};
  unsigned rate{~0U};  // Gb/s x 2
  bool anyLink{false};
  std::uint16_t sls{0xFFFF};  // the SLs every switch on it carries (bit i: SL i)
};

class PathTable {
 public:
  PathTable() = default;
  PathTable(const Fabric& fabric, const RoutingResult& routing);

  std::optional<Route> walk(PortRef from, Lid dlid, PortRef dest) const;
  // Two walks at once, a hop of each in turn (a PathRecord's route and the
  // one back, for Reversible): their look-ups overlap in the memory system
  // rather than wait on each other. Each result is walk()'s.
  std::pair<std::optional<Route>, std::optional<Route>> walkBoth(PortRef from, Lid dlid,
                                                                 PortRef dest, PortRef back,
                                                                 Lid backLid,
                                                                 PortRef backDest) const;

  // The SL the routing engine gave the pair from `from` (a CA port, or a
  // switch's port 0) toward `dlid` (RoutingResult::pairSls; 0 for a pair it
  // does not name), or nullopt when it names none: then any SL the route
  // carries will do. A look-up in the destination's few named pairs.
  std::optional<std::uint8_t> engineSl(PortRef from, Lid dlid) const {
    if (pairStart_.empty()) return std::nullopt;
    if (std::size_t{dlid.value} + 1 >= pairStart_.size()) return std::uint8_t{0};
    return engineSlAmong(from, pairStart_[dlid.value], pairStart_[dlid.value + 1]);
  }
  bool hasPairSls() const { return !pairStart_.empty(); }

  // The SLs (bit i: SL i) switch `sw` carries from `in` to `out`.
  std::uint16_t slsCarried(NodeId sw, std::uint8_t in, std::uint8_t out) const;
  // The SLs every turn carries (bit i: SL i): what a multicast group's
  // tree may travel on whatever its turns (routing/multicast/McSl.h).
  std::uint16_t slsCarriedEverywhere() const { return carriedEverywhere_; }
  // Whether every multicast group travels on SL 15: the engine gave the
  // trees a VL of their own (routing/multicast/McSl.h
  // treesHaveAVlOfTheirOwn of its SL2VL) or the plan one they share
  // (RoutingResult::treesShareVl).
  bool treesOnTheTreeSl() const { return treesOnTreeSl_; }
  // Index of a port among all the fabric's ports (node by node, port 0 on):
  // what per-port tables of the snapshot are indexed by.
  std::size_t index(PortRef p) const { return first_[p.node] + p.port; }
  std::size_t ports() const { return hops_.size(); }
  bool isSwitch(NodeId node) const { return isSwitch_[node]; }
  // Fabric::findPort's answer from an open-addressed table of the ports'
  // GUIDs (one probe, mostly), the fabric's own map for anything else.
  std::optional<PortRef> findPort(const Fabric& fabric, Guid portGuid) const;
  bool contains(PortRef p) const {
    return p.node + std::size_t{1} < first_.size() && p.port < first_[p.node + 1] - first_[p.node];
  }

 private:
  struct Hop;
  // A walk under way.
  struct Cursor {
    enum State : std::uint8_t { kGoing, kArrived, kFailed };
    NodeId at{0};
    std::uint8_t in{0};  // the port it came in by; 0 where it started
    State state{kGoing};
    int hops{0};
    Lid dlid;
    PortRef dest;
    Route route;
  };
  Cursor start(PortRef from, Lid dlid, PortRef dest) const;
  void cross(Cursor& c, const Hop& hop) const;
  void step(Cursor& c) const;
  static std::optional<Route> result(const Cursor& c) {
    return c.state == Cursor::kArrived ? std::optional(c.route) : std::nullopt;
  }
  void indexGuids(const Fabric& fabric);
  void indexPairSls(std::span<const PairSl> pairs);
  std::uint8_t engineSlAmong(PortRef from, std::uint32_t first, std::uint32_t last) const;

  // One port: the far end of its cable and the link's MTU and rate.
  struct Hop {
    NodeId far{kNoNode};  // kNoNode: no cable
    std::uint8_t farPort{0};
    bool farIsSwitch{false};
    std::uint8_t mtu{0};    // the lower MTUCap of the two ends
    std::uint16_t rate{0};  // Gb/s x 2 of this port's link
  };
  // A switch's LFT (the plan's, which the snapshot holds); empty elsewhere.
  struct Table {
    const std::uint8_t* port{nullptr};
    std::uint32_t size{0};
  };

  std::vector<std::uint32_t> first_;  // per node, and one past the last
  std::vector<Hop> hops_;
  std::vector<bool> isSwitch_;
  std::vector<Table> lfts_;
  struct GuidSlot {
    std::uint64_t guid{0};  // 0: free
    PortRef port;
  };
  std::vector<GuidSlot> byGuid_;  // a power of two long, at most half full
  unsigned guidShift_{64};
  // slsCarried() of the turns that drop an SL, keyed (sw << 16 | in << 8 | out).
  std::unordered_map<std::uint64_t, std::uint16_t> slsCarried_;
  std::uint16_t carriedEverywhere_{0xFFFF};
  bool treesOnTreeSl_{false};
  // RoutingResult::pairSls by destination LID: the pairs toward LID l are
  // pairSources_[pairStart_[l] .. pairStart_[l + 1]), sorted by source, on
  // pairSl_; pairStart_ empty when the engine names none.
  std::vector<std::uint32_t> pairStart_;
  std::vector<PortRef> pairSources_;
  std::vector<std::uint8_t> pairSl_;
};

}  // namespace ibsm::sm::sa
