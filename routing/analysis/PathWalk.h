// The route of one pair, walked hop by hop through forwarding tables: what
// `ibsm path` shows, from the dry run's tables or from the daemon's held
// ones. Pure: a Fabric (with LIDs), the tables by NodeId and a pair in, the
// hops out, ending where the tables end them -- delivered, or why not -- so
// a broken table is shown, never hung on.
//
//   auto path = walkUnicast(plan.fabric, {plan.routing.lfts, plan.routing.sl2vl},
//                           source, destinationLid, /*sl=*/0);
//   for (const PathHop& hop : path.hops) ...  // source, switches, destination
#pragma once

#include <ibsm/Error.h>
#include <ibsm/Fabric.h>
#include <ibsm/Ids.h>
#include <ibsm/Multicast.h>
#include <ibsm/Routing.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ibsm::analysis {

// The tables a walk reads. `entry`, when set, answers a switch's LFT entry
// in place of `lfts` (the daemon reads its held blocks one at a time rather
// than copy every table of a large fabric per question).
struct PathTables {
  std::span<const Lft> lfts;  // index = NodeId
  // The SL2VL tables programmed (ProgrammedSl2Vl.h: the engine's and the
  // QoS plan's; a CA port's with in port 0); empty: none.
  std::span<const Sl2VlEntry> sl2vl;
  std::function<std::uint8_t(NodeId sw, Lid lid)> entry{};
};

inline constexpr std::uint8_t kUnknownVl = 0xFF;

// One node the packet passes: the source, each switch, the destination.
struct PathHop {
  NodeId node{0};
  std::uint8_t inPort{0};   // 0 at the source (a switch's own traffic enters at port 0)
  std::uint8_t outPort{0};  // 0 at the destination; kNoRoute: the switch's table has no entry
  // The VL on the link out of outPort: the SL2VL entry of (inPort, outPort)
  // (a CA's: of its port) where the tables have one; else SL 0 runs on VL 0,
  // as a port holds it untouched, and another SL is kUnknownVl. The VL a
  // hop comes in on is the one before it went out on.
  std::uint8_t vl{kUnknownVl};
};

enum class PathEnd : std::uint8_t {
  Delivered,  // the last hop owns the destination LID
  NoEntry,    // the last hop's table does not route the LID
  DeadPort,   // the last hop's out port has no cable
  Loop,       // the last hop is a switch already passed
  WrongPort,  // the last hop is an end port that does not own the LID
  NoOwner,    // no port of the fabric owns the destination LID (hops: the walk anyway)
};
std::string_view pathEndName(PathEnd end);  // "delivered", "no-entry", ...

struct UnicastPath {
  PortRef from;
  Lid dlid;
  std::optional<PortRef> to;  // the port that owns dlid
  std::uint8_t sl{0};
  std::vector<PathHop> hops{};
  PathEnd end{PathEnd::NoEntry};
  // The QoS level the SA gives this path (PathSl), empty without one; a
  // note when the SA would answer no path for the SL walked.
  std::string qosLevel{};
  std::string note{};
};

// From the end port `from` (a CA port, or port 0 of a switch) to `dlid`.
[[nodiscard]] UnicastPath walkUnicast(const Fabric& fabric, const PathTables& tables, PortRef from,
                                      Lid dlid, std::uint8_t sl);

// FROM and TO as an operator names them: a LID (decimal, or 0x and at most
// four hex digits), a node or port GUID (0x and more digits), or a node
// description. A node names its first cabled end port with a LID (a
// switch's port 0). Errors say what matched nothing, or what matched twice.
[[nodiscard]] Result<PortRef> findEndPort(const Fabric& fabric, std::string_view name);
// The LID a name stands for: the LID itself when given as one (so one LID
// of an LMC range is reached), else the port's base LID.
[[nodiscard]] Result<Lid> findDestinationLid(const Fabric& fabric, std::string_view name);

// A multicast packet from `from` to `mlid`, following every switch's MFT:
// each switch it reaches with the ports it copies to, breadth first, and
// the end ports that receive it. The switch MFTs a walk reads are
// MulticastPlan::mfts' layout.
struct McBranch {
  NodeId node{0};
  std::uint8_t inPort{0};
  std::vector<std::uint8_t> outPorts{};  // switches: the MFT's ports but inPort
  std::uint16_t depth{0};                // switch hops from the source
};
struct MulticastPath {
  PortRef from;
  Lid mlid;
  std::vector<McBranch> branches{};  // switches, breadth first
  std::vector<PortRef> receivers{};  // end ports reached, in walk order
  // A switch reached twice (a loop, or two branches meeting), a port copied
  // to that has no cable: each as text naming the port.
  std::vector<std::string> problems{};
};
// --mgid: an MGID as saquery prints it (ff12:401b:ffff::ffff:ffff) looked
// up among the groups (MGID, MLID) given, or an MLID itself (0xc000-0xfffe).
[[nodiscard]] Result<Lid> resolveMlid(std::string_view text,
                                      const std::vector<std::pair<Gid, Lid>>& groups);

[[nodiscard]] MulticastPath walkMulticast(const Fabric& fabric, std::span<const SwitchMft> mfts,
                                          PortRef from, Lid mlid);

}  // namespace ibsm::analysis
