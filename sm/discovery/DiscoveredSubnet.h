// What a discovery sweep hands to the rest of the SM: the Fabric as read
// from the wire, how to reach each node by directed route, and the raw
// attributes that later Sets must write back (read-modify-write: an SM must
// not clobber fields it does not manage).
//
// Data flows one way: wire -> DiscoveredSubnet -> planSubnet() -> programming.
#pragma once

#include <ibsm/Fabric.h>
#include <ibsm/MadAttributes.h>
#include <ibsm/MadPath.h>

#include <string>
#include <unordered_map>
#include <vector>

namespace ibsm::sm::discovery {

// A PortInfo as the Fabric stores it, as the topology readers do: a switch's
// LID and LMC live on port 0 only. Discovery reads ports this way, and the
// held subnet takes in what a Set's reply carries the same way.
inline void fillPort(Port& port, const PortInfo& pi, bool holdsLid) {
  if (holdsLid) {
    port.lid = pi.lid;
    port.lmc = pi.lmc;
  }
  port.state = pi.portState;
  port.physState = pi.physState;
  // LinkSpeedExtActive is reserved unless the port says it has extended speeds.
  const bool ext = (pi.capabilityMask & capability::kIsExtendedSpeedsSupported) != 0;
  port.link = LinkAttrs{.widthSupported = pi.linkWidthSupported,
                        .widthEnabled = pi.linkWidthEnabled,
                        .widthActive = pi.linkWidthActive,
                        .speedSupported = pi.linkSpeedSupported,
                        .speedEnabled = pi.linkSpeedEnabled,
                        .speedActive = pi.linkSpeedActive,
                        .extSpeedActive = ext ? pi.linkSpeedExtActive : std::uint8_t{0},
                        .extSpeedSupported = ext ? pi.linkSpeedExtSupported : std::uint8_t{0},
                        .extSpeedEnabled = ext ? pi.linkSpeedExtEnabled : std::uint8_t{0}};
  port.mtuCap = pi.mtuCap;
  port.vlCap = pi.vlCap;
  port.capabilityMask = pi.capabilityMask;
}

struct DiscoveredSubnet {
  // Nodes, ports (with the LIDs, states and link attributes they hold now),
  // cables, SwitchInfo in Node::switchData. Only ports that answered.
  Fabric fabric;
  // Index = NodeId: a directed route from the SM's port to that node.
  std::vector<DrPath> pathTo;
  // The SM's own port in `fabric`.
  PortRef smPort;
  // PortInfo exactly as read, for every port that answered (switch port 0
  // included), so programming can modify only the fields it owns.
  std::unordered_map<PortRef, PortInfo> portInfo;
  // SwitchInfo exactly as read, by switch NodeId.
  std::unordered_map<NodeId, SwitchInfo> switchInfo;
  // Nodes or ports that did not answer, or contradicted what was seen
  // before, in words an operator can act on (each also logged).
  std::vector<std::string> problems;
  // Ports whose PortInfo says the link is up but whose cable could not be
  // confirmed from both ends (peer silent, down, or contradicting): not
  // connected in `fabric`, each also in `problems`. Programming should not
  // arm them; the next sweep looks again.
  std::vector<PortRef> unconfirmedLinks;
  // Nodes whose description is the one an earlier discovery read
  // (DiscoveryOptions::knownDescriptions), not read by this one: the
  // caller reads them when the subnet is up (Descriptions.h).
  std::vector<NodeId> describedFromBefore;
  std::uint64_t madsSent{0};
};

}  // namespace ibsm::sm::discovery
