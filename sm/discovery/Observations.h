// What a walk saw on the wire, before anything is believed: every answer
// kept as it came, keyed by node GUID because NodeIds do not exist yet. The
// walk (Walk.h) only records; deciding which cables are real and what to
// tell the operator is assembleSubnet()'s job (Assembly.h), done once all
// answers are in, so a half-seen link can never leak into the Fabric.
#pragma once

#include <ibsm/Ids.h>
#include <ibsm/Mad.h>
#include <ibsm/MadAttributes.h>
#include <ibsm/MadPath.h>

#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ibsm::sm::discovery {

struct NodeRecord {
  NodeInfo info;  // as first answered
  DrPath path;    // the first route that reached it
  std::optional<std::string> description;
  std::optional<SwitchInfo> switchInfo;
  // By port number; index 0 is a switch's management port. A CA port is
  // known only once an SMP entered through it (a CA forwards nothing, so
  // its ports are reached one by one from their own switches).
  std::vector<std::optional<PortInfo>> ports;
  std::vector<Guid> portGuids;
  std::vector<bool> entered;
};

// The id of a probe never sent because the route would be too long.
inline constexpr std::string_view kNotFollowed = "DISC-0205";

// Why a port or attribute could not be read. `id` is the operator-facing
// log id ("DISC-0201") the problem line will carry.
struct Failure {
  std::string id;
  PortKey at;  // the node, and the port for PortInfo and probes
  AttributeId attribute{AttributeId::NodeInfo};
  DrPath path;
  std::string why;  // a clause: "NodeInfo through it (DR 0,1) got no response ..."
};

struct Observations {
  std::vector<NodeRecord> nodes;  // in the order they first answered
  std::unordered_map<Guid, std::size_t> byGuid;
  // An answered NodeInfo sent out of a port: the port probed -> the port the
  // SMP entered at the other end (NodeInfo:LocalPortNum).
  std::map<PortKey, PortKey> probes;
  // Probes that got no usable answer, by port probed.
  std::map<PortKey, Failure> failedProbes;
  // NodeDescription, SwitchInfo and PortInfo reads that failed.
  std::vector<Failure> failedReads;
  // Nodes whose description came from DiscoveryOptions::knownDescriptions.
  std::vector<Guid> describedFromBefore;
  // Why the SM's own node did not answer, when it did not.
  std::optional<std::string> localFailure;
};

// A port passes SMPs once its link is up and logically at least Init;
// Down (with the PHY polling or disabled) carries nothing.
inline bool linkUp(const PortInfo& pi) {
  return pi.portState >= PortState::Init && pi.portState <= PortState::Active;
}

}  // namespace ibsm::sm::discovery
