// The one model of a subnet that every stage shares: discovery fills it from
// the wire, the topology readers fill it from files, LID assignment writes
// LIDs into it, routing and partitioning read it. A plain value: copy it to
// snapshot it.
//
//   Fabric f;
//   auto sw = f.addNode(Node::makeSwitch(Guid{0x200000}, 36, "leaf0"));
//   auto ca = f.addNode(Node::makeCa(Guid{0x100000}, {Guid{0x100001}}, "host0"));
//   f.connect({*sw, 1}, {*ca, 1});
#pragma once

#include <ibsm/Error.h>
#include <ibsm/Ids.h>

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace ibsm {

enum class NodeType : std::uint8_t { Ca = 1, Switch = 2, Router = 3 };

// IBA PortInfo:PortState values.
enum class PortState : std::uint8_t { NoChange = 0, Down = 1, Init = 2, Armed = 3, Active = 4 };

// Link attributes use IBA PortInfo encodings so that wire values pass
// through unchanged: width bits 1=1x 2=4x 4=8x 8=12x 16=2x; speed bits
// 1=SDR 2=DDR 4=QDR, extended speed bits 1=FDR 2=EDR 4=HDR 8=NDR (0 = none).
struct LinkAttrs {
  std::uint8_t widthSupported{2};
  std::uint8_t widthEnabled{2};
  std::uint8_t widthActive{2};
  std::uint8_t speedSupported{1};
  std::uint8_t speedEnabled{1};
  std::uint8_t speedActive{1};
  std::uint8_t extSpeedActive{0};
  // 0 where the port has no extended speeds (IsExtendedSpeedsSupported clear).
  std::uint8_t extSpeedSupported{0};
  std::uint8_t extSpeedEnabled{0};
};

struct Port {
  std::uint8_t number{0};
  Guid guid;
  Lid lid;  // base LID; 0 until assigned
  std::uint8_t lmc{0};
  PortState state{PortState::Down};
  std::uint8_t physState{0};  // IBA PortPhysicalState; 5 = LinkUp
  LinkAttrs link;
  std::uint8_t mtuCap{5};  // IBA code: 1=256 2=512 3=1024 4=2048 5=4096
  std::uint8_t vlCap{4};   // IBA code: 1=VL0 2=VL0-1 3=VL0-3 4=VL0-7 5=VL0-14
  std::uint32_t capabilityMask{0};
  std::optional<PortRef> remote;  // the port at the other end of the cable

  bool connected() const { return remote.has_value(); }
};

struct SwitchData {
  std::uint16_t linearFdbCap{49152};
  std::uint16_t linearFdbTop{0};
  std::uint16_t multicastFdbCap{0};
  bool enforcesPartitions{false};
  bool enhancedPort0{false};
};

struct Node {
  NodeType type{NodeType::Ca};
  Guid guid;
  Guid systemImageGuid;
  std::string description;
  std::uint32_t vendorId{0};
  std::uint16_t deviceId{0};
  std::uint16_t partitionCap{64};
  // NodeInfo:Revision as the device reports it (the SA's NodeRecords carry
  // it); 0 where it is not known (topology files do not record it).
  std::uint32_t revision{0};
  // Indexed by port number. Switches use ports[0] (the management port that
  // carries the switch LID); for CAs and routers ports[0] is a placeholder.
  std::vector<Port> ports;
  std::optional<SwitchData> switchData;

  bool isSwitch() const { return type == NodeType::Switch; }
  std::uint8_t numPorts() const { return static_cast<std::uint8_t>(ports.size() - 1); }
  // The ports that carry LIDs: port 0 of a switch, every physical port of a CA.
  std::vector<std::uint8_t> endpointPorts() const;

  // Port GUIDs follow the convention of real HCAs and of ibsim: a switch has
  // one port GUID (its node GUID), a CA one GUID per port.
  static Node makeSwitch(Guid guid, std::uint8_t numPorts, std::string description);
  static Node makeCa(Guid guid, const std::vector<Guid>& portGuids, std::string description);
};

class Fabric {
 public:
  // Fails if the node GUID or one of its port GUIDs is already present.
  [[nodiscard]] Result<NodeId> addNode(Node node);

  // Cables a to b. Connecting the same pair again is a no-op; connecting
  // either end to a third port is an error that names both claims.
  [[nodiscard]] Result<void> connect(PortRef a, PortRef b);
  void disconnect(PortRef a);

  const std::vector<Node>& nodes() const { return nodes_; }
  const Node& node(NodeId id) const { return nodes_.at(id); }
  Node& node(NodeId id) { return nodes_.at(id); }
  const Port& port(PortRef p) const { return nodes_.at(p.node).ports.at(p.port); }
  Port& port(PortRef p) { return nodes_.at(p.node).ports.at(p.port); }
  std::size_t size() const { return nodes_.size(); }

  std::optional<NodeId> findNode(Guid nodeGuid) const;
  std::optional<PortRef> findPort(Guid portGuid) const;

  std::vector<NodeId> switches() const;
  std::vector<NodeId> endNodes() const;   // CAs and routers
  std::string describe(PortRef p) const;  // "leaf0"[3] (0x...)

 private:
  std::vector<Node> nodes_;
  std::unordered_map<Guid, NodeId> byNodeGuid_;
  std::unordered_map<Guid, PortRef> byPortGuid_;
};

}  // namespace ibsm
