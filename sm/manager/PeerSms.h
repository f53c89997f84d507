// The MADs one SM sends another (IBA 14.4): find the other SMs discovery
// saw, read their SMInfo, poll the master, hand over / acknowledge with
// Set(SMInfo) control packets, and tell a master we outrank it (trap 144).
// Each call runs the engine until its own MADs are done; the daemon loop
// decides when to call which:
//
//   for (const PeerSmInfo& p : *readPeerSmInfos(engine, findPeerSms(subnet), agent.self()))
//     election.add(p.info);
//   if (auto answer = pollSmInfo(engine, master, agent.self()); answer && !*answer) ...
//
// Log ids: see LOG MESSAGES in ibsm(8).
#pragma once

#include <ibsm/MadAttributes.h>
#include <ibsm/MadPath.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <variant>
#include <vector>

#include "sm/discovery/DiscoveredSubnet.h"
#include "sm/mad/MadEngine.h"

namespace ibsm::sm::manager {

// How to reach another SM's port. findPeerSms always gives a directed
// route: it needs no LID and no programmed tables, so it also reaches an SM
// on a subnet that is being (re)programmed or whose LIDs are being
// reassigned. `lid` is the port's LID as discovered (0 when it has none):
// what traps need, since they are LID-routed.
struct PeerSm {
  Guid portGuid;
  std::variant<DrPath, Lid> address;
  Lid lid;
};

// Ports of `subnet` other than subnet.smPort whose CapabilityMask has IsSM,
// i.e. SMs (ibsm or OpenSM) that discovery saw, in fabric order. The route
// to a CA port is the route to the switch it is cabled to plus that switch
// port, so each port of a multi-port HCA is reached through its own cable
// (pathTo[node] reaches the node through whichever port discovery used).
std::vector<PeerSm> findPeerSms(const discovery::DiscoveredSubnet& subnet);

// SubnGet(SMInfo) to each peer presenting self.smKey (a peer reveals its
// key only to a requester that presents it), all in the engine's window at
// once. Only peers that answered with status 0 are returned, in `peers`
// order. Fails only when the transport fails.
struct PeerSmInfo {
  PeerSm peer;
  SmInfo info;
};
[[nodiscard]] Result<std::vector<PeerSmInfo>> readPeerSmInfos(MadEngine& engine,
                                                              std::span<const PeerSm> peers,
                                                              const SmInfo& self);

// One poll (standby -> master): nullopt when no answer after the engine's
// retries, or an error status (a port that no longer runs an SM). With a
// `patience`, three tries, the last waiting that long at least
// (SmpRequest::patience): a live master whose
// loop is busy, or whose answer queues behind a sweep's SMPs, may answer
// much later than a switch does, and its answer to any try counts.
[[nodiscard]] Result<std::optional<SmInfo>> pollSmInfo(
    MadEngine& engine, const PeerSm& peer, const SmInfo& self,
    std::chrono::milliseconds patience = std::chrono::milliseconds{0});

// SubnSet(SMInfo) with attribute modifier `control` (fsm::sminfo::kHandover,
// kAcknowledge, ...) and `self` as payload. True when answered with status 0.
[[nodiscard]] Result<bool> sendSmControl(MadEngine& engine, const PeerSm& peer,
                                         std::uint32_t control, const SmInfo& self);

// Trap 144 flags (IBA 14.2.5.1, Notice DataDetails ChangeFlags).
namespace trap144 {
inline constexpr std::uint16_t kNodeDescriptionChange = 0x0001;
inline constexpr std::uint16_t kLinkWidthEnabledChange = 0x0002;
inline constexpr std::uint16_t kLinkSpeedEnabledChange = 0x0004;
inline constexpr std::uint16_t kSmPriorityChange = 0x0008;
}  // namespace trap144

// The Notice of a trap 144 "SM priority changed" from our port: generic,
// informational (type 4), issued by ourLid, details carrying our LID and
// CapabilityMask. Exposed so tests can hold it against libibmad.
Notice smPriorityNotice(Lid ourLid, std::uint32_t capabilityMask, NodeType producer);

// Trap 144 (SM priority changed) from our port to `master`, as a standby
// that outranks the master sends it: the master then sweeps, reads our
// SMInfo and hands over. LID-routed to master.lid (or the address when it is
// a LID); fails when neither is a unicast LID. Fire and forget: the
// TrapRepress is swallowed by the engine.
[[nodiscard]] Result<void> notifyMaster(MadEngine& engine, const PeerSm& master, Lid ourLid,
                                        const SmInfo& self,
                                        std::uint32_t capabilityMask = capability::kIsSm,
                                        NodeType producer = NodeType::Ca);

}  // namespace ibsm::sm::manager
