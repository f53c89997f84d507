// The SMP attributes an SM reads and writes, as value structs with one
// member per IBA field (chapter 14.2.5), and their 64-byte encodings.
// Members keep the spec's units and codes (widths, speeds, MTU and VL codes
// as in Fabric.h's LinkAttrs), so values pass between wire and Fabric as
// they are.
//
//   PortInfo pi = decodePortInfo(reply.data);
//   pi.portState = PortState::Armed;   // fields left alone stay as read
//   SmpData out = encode(pi);
//
// Table attributes (LFT, P_Key, SL-to-VL) are one block; which block (and
// which port) is the attribute modifier, built by the *Modifier helpers.
#pragma once

#include <ibsm/Fabric.h>
#include <ibsm/Ids.h>
#include <ibsm/Mad.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace ibsm {

struct NodeInfo {
  std::uint8_t baseVersion{1};
  std::uint8_t classVersion{1};
  NodeType nodeType{NodeType::Ca};
  std::uint8_t numPorts{0};
  Guid systemImageGuid;
  Guid nodeGuid;
  Guid portGuid;
  std::uint16_t partitionCap{0};
  std::uint16_t deviceId{0};
  std::uint32_t revision{0};
  std::uint8_t localPortNum{0};  // the port the SMP came in on
  std::uint32_t vendorId{0};     // 24 bits
  auto operator<=>(const NodeInfo&) const = default;
};

struct NodeDescription {
  std::string text;  // at most 64 bytes on the wire; NUL padding is dropped
  auto operator<=>(const NodeDescription&) const = default;
};

// PortInfo:CapabilityMask bits an SM looks at.
namespace capability {
inline constexpr std::uint32_t kIsSm = 1U << 1;
inline constexpr std::uint32_t kIsNoticeSupported = 1U << 2;
inline constexpr std::uint32_t kIsTrapSupported = 1U << 3;
inline constexpr std::uint32_t kIsSmDisabled = 1U << 10;
inline constexpr std::uint32_t kIsExtendedSpeedsSupported = 1U << 14;
inline constexpr std::uint32_t kIsCapabilityMask2Supported = 1U << 15;
inline constexpr std::uint32_t kIsClientReregistrationSupported = 1U << 25;
inline constexpr std::uint32_t kIsMulticastFdbTopSupported = 1U << 30;
}  // namespace capability

struct PortInfo {
  std::uint64_t mKey{0};
  std::uint64_t gidPrefix{0};
  Lid lid;
  Lid masterSmLid;
  std::uint32_t capabilityMask{0};
  std::uint16_t diagCode{0};
  std::uint16_t mKeyLeasePeriod{0};
  std::uint8_t localPortNum{0};
  std::uint8_t linkWidthEnabled{0};
  std::uint8_t linkWidthSupported{0};
  std::uint8_t linkWidthActive{0};
  std::uint8_t linkSpeedSupported{0};  // 4 bits
  PortState portState{PortState::NoChange};
  std::uint8_t physState{0};             // 4 bits; 0 = no state change on Set
  std::uint8_t linkDownDefaultState{0};  // 4 bits
  std::uint8_t mKeyProtectBits{0};       // 2 bits
  std::uint8_t lmc{0};                   // 3 bits
  std::uint8_t linkSpeedActive{0};       // 4 bits
  std::uint8_t linkSpeedEnabled{0};      // 4 bits
  std::uint8_t neighborMtu{0};           // 4 bits
  std::uint8_t masterSmSl{0};            // 4 bits
  std::uint8_t vlCap{0};                 // 4 bits
  std::uint8_t initType{0};              // 4 bits
  std::uint8_t vlHighLimit{0};
  std::uint8_t vlArbitrationHighCap{0};
  std::uint8_t vlArbitrationLowCap{0};
  std::uint8_t initTypeReply{0};   // 4 bits
  std::uint8_t mtuCap{0};          // 4 bits
  std::uint8_t vlStallCount{0};    // 3 bits
  std::uint8_t hoqLife{0};         // 5 bits
  std::uint8_t operationalVls{0};  // 4 bits
  bool partitionEnforcementInbound{false};
  bool partitionEnforcementOutbound{false};
  bool filterRawInbound{false};
  bool filterRawOutbound{false};
  std::uint16_t mKeyViolations{0};
  std::uint16_t pKeyViolations{0};
  std::uint16_t qKeyViolations{0};
  std::uint8_t guidCap{0};
  bool clientReregister{false};
  std::uint8_t multicastPKeyTrapSuppression{0};  // 2 bits
  std::uint8_t subnetTimeout{0};                 // 5 bits
  std::uint8_t respTimeValue{0};                 // 5 bits
  std::uint8_t localPhyErrors{0};                // 4 bits
  std::uint8_t overrunErrors{0};                 // 4 bits
  std::uint16_t maxCreditHint{0};
  std::uint32_t linkRoundTripLatency{0};  // 24 bits
  std::uint16_t capabilityMask2{0};
  std::uint8_t linkSpeedExtActive{0};     // 4 bits: 1=FDR 2=EDR 4=HDR 8=NDR (IsExtendedSpeeds)
  std::uint8_t linkSpeedExtSupported{0};  // 4 bits
  std::uint8_t linkSpeedExtEnabled{0};    // 5 bits
  auto operator<=>(const PortInfo&) const = default;
};

struct SwitchInfo {
  std::uint16_t linearFdbCap{0};
  std::uint16_t randomFdbCap{0};
  std::uint16_t multicastFdbCap{0};
  std::uint16_t linearFdbTop{0};
  std::uint8_t defaultPort{0};
  std::uint8_t defaultMulticastPrimaryPort{0};
  std::uint8_t defaultMulticastNotPrimaryPort{0};
  std::uint8_t lifeTimeValue{0};                      // 5 bits
  bool portStateChange{false};                        // write 1 to clear
  std::uint8_t optimizedSlToVlMappingProgramming{0};  // 2 bits
  std::uint16_t lidsPerPort{0};
  std::uint16_t partitionEnforcementCap{0};
  bool inboundEnforcementCap{false};
  bool outboundEnforcementCap{false};
  bool filterRawInboundCap{false};
  bool filterRawOutboundCap{false};
  bool enhancedPort0{false};
  std::uint16_t multicastFdbTop{0};
  auto operator<=>(const SwitchInfo&) const = default;
};

enum class SmState : std::uint8_t { NotActive = 0, Discovering = 1, Standby = 2, Master = 3 };

// The SM_Key an SM has unless configured otherwise: OpenSM's
// (OSM_DEFAULT_SM_KEY), so that ibsm and OpenSM left at their defaults see
// each other as one management domain and elect one master between them.
inline constexpr std::uint64_t kDefaultSmKey = 1;

struct SmInfo {
  Guid guid;
  std::uint64_t smKey{0};
  std::uint32_t actCount{0};
  std::uint8_t priority{0};  // 4 bits
  SmState smState{SmState::NotActive};
  auto operator<=>(const SmInfo&) const = default;
};

// Tables are read and written a block at a time; how a whole table is cut
// into blocks lives here, beside the block types, so that the dry run's
// dumps, the partition report and programming cut them alike.
inline constexpr std::size_t kLftBlockSize = 64;
inline constexpr std::size_t kPKeyBlockSize = 32;

// LinearForwardingTable: exit port for LIDs 64*block .. 64*block+63.
struct LftBlock {
  std::array<std::uint8_t, kLftBlockSize> ports{};
  auto operator<=>(const LftBlock&) const = default;
};
inline constexpr std::uint32_t lftModifier(std::uint16_t block) {
  return block;
}
// Block `index` of a table of exit ports indexed by LID; LIDs past its end
// read as `unrouted` (0xFF, what a switch holds for a LID it does not route).
inline LftBlock lftBlock(std::span<const std::uint8_t> portByLid, std::uint16_t index,
                         std::uint8_t unrouted = 0xFF) {
  LftBlock b;
  b.ports.fill(unrouted);
  const std::size_t first = std::size_t{index} * kLftBlockSize;
  for (std::size_t i = 0; i < kLftBlockSize && first + i < portByLid.size(); ++i)
    b.ports[i] = portByLid[first + i];
  return b;
}

// MulticastForwardingTable (IBA 14.2.5.12): one block is 32 MLIDs by one
// 16-port "position"; mask i is MLID 0xC000 + 32*block + i, its bit j
// port 16*position + j.
inline constexpr std::size_t kMftBlockSize = 32;
inline constexpr std::size_t kMftPortsPerPosition = 16;
struct MftBlock {
  std::array<std::uint16_t, kMftBlockSize> masks{};
  auto operator<=>(const MftBlock&) const = default;
};
// Block in bits 8..0, position in bits 31..28.
inline constexpr std::uint32_t mftModifier(std::uint16_t block, std::uint8_t position) {
  return (std::uint32_t{position} << 28) | (block & 0x1FFU);
}
// Positions a switch of `numPorts` external ports has: ports 0..numPorts.
inline constexpr std::uint8_t mftPositions(std::uint8_t numPorts) {
  return static_cast<std::uint8_t>((std::size_t{numPorts} + kMftPortsPerPosition) /
                                   kMftPortsPerPosition);
}

// P_KeyTable: 32 entries; bit 15 of each is the full-membership bit.
struct PKeyBlock {
  std::array<std::uint16_t, kPKeyBlockSize> pkeys{};
  auto operator<=>(const PKeyBlock&) const = default;
};
// Blocks a table of `entries` PKeys takes (NodeInfo:PartitionCap,
// SwitchInfo:PartitionEnforcementCap).
constexpr std::uint16_t pkeyBlockCount(std::size_t entries) {
  return static_cast<std::uint16_t>((entries + kPKeyBlockSize - 1) / kPKeyBlockSize);
}
// Block `index` of a PKey table in order: entries past its end are 0, so a
// shorter table clears what it no longer has.
inline PKeyBlock pkeyBlock(std::span<const std::uint16_t> pkeys, std::uint16_t index) {
  PKeyBlock b;
  const std::size_t first = std::size_t{index} * kPKeyBlockSize;
  for (std::size_t i = 0; i < kPKeyBlockSize && first + i < pkeys.size(); ++i)
    b.pkeys[i] = pkeys[first + i];
  return b;
}
// On a switch, port selects the external port's table (0 for port 0 and CAs).
inline constexpr std::uint32_t pkeyModifier(std::uint16_t block, std::uint8_t port = 0) {
  return (std::uint32_t{port} << 16) | block;
}

// SLtoVLMappingTable: VL (4 bits) per SL 0..15.
struct SlToVlTable {
  std::array<std::uint8_t, 16> vl{};
  auto operator<=>(const SlToVlTable&) const = default;
};
// On a switch the table is per (input port, output port); CAs use 0.
inline constexpr std::uint32_t slToVlModifier(std::uint8_t inPort = 0, std::uint8_t outPort = 0) {
  return (std::uint32_t{inPort} << 8) | outPort;
}

// VLArbitrationTable (IBA 14.2.5.9): one block of 32 (VL, weight) entries
// of a port's low- or high-priority arbitration table.
struct VlArbitrationBlock {
  struct Entry {
    std::uint8_t vl{0};  // 4 bits
    std::uint8_t weight{0};
    auto operator<=>(const Entry&) const = default;
  };
  std::array<Entry, 32> entries{};
  auto operator<=>(const VlArbitrationBlock&) const = default;
};
// Block 1 and 2: the low-priority table's entries 0-31 and 32-63; 3 and 4:
// the high-priority table's. On a switch, port selects the output port.
namespace vlArbBlock {
inline constexpr std::uint16_t kLowFirst = 1;
inline constexpr std::uint16_t kLowSecond = 2;
inline constexpr std::uint16_t kHighFirst = 3;
inline constexpr std::uint16_t kHighSecond = 4;
}  // namespace vlArbBlock
inline constexpr std::uint32_t vlArbitrationModifier(std::uint16_t block, std::uint8_t port = 0) {
  return (std::uint32_t{block} << 16) | port;
}

// Notice as carried in an SMP Trap: the first 64 bytes of the attribute
// (the IssuerGID that follows does not fit an SMP and is not sent).
struct Notice {
  bool isGeneric{true};
  std::uint8_t type{0};           // 7 bits: 0 fatal, 1 urgent, 2 security, 3 SM, 4 info
  std::uint32_t producerType{0};  // 24 bits; VendorID when !isGeneric
  std::uint16_t trapNumber{0};    // DeviceID when !isGeneric
  Lid issuerLid;
  bool toggle{false};
  std::uint16_t count{0};  // 15 bits
  std::array<std::uint8_t, 54> dataDetails{};
  auto operator<=>(const Notice&) const = default;
};

// Trap 128 (link state change on a switch): the switch's LID.
struct Trap128Details {
  Lid lid;
  auto operator<=>(const Trap128Details&) const = default;
};

// Trap 144 (local changes at a port: capability mask, ...).
struct Trap144Details {
  Lid lid;
  bool otherLocalChanges{false};
  std::uint32_t capabilityMask{0};
  std::uint16_t changeFlags{0};  // LinkSpeedEnabled/LinkWidthEnabled/NodeDescription changes
  std::uint16_t capabilityMask2{0};
  auto operator<=>(const Trap144Details&) const = default;
};

// Trap 256 (Bad M_Key, IBA 14.3.9 and the Notice DataDetails of 14.2.5.1):
// the port whose M_Key check failed and what the offending SMP carried.
// The directed-route return path that follows (DRNoticeReturnPath) is not
// carried here.
struct Trap256Details {
  Lid lid;
  Lid drSlid;  // directed-route SMPs only
  Method method{Method::Get};
  AttributeId attributeId{AttributeId::NodeInfo};
  std::uint32_t attributeModifier{0};
  std::uint64_t mKey{0};  // the key the SMP carried
  bool drNotice{false};   // the SMP was directed-route
  bool drPathTruncated{false};
  std::uint8_t drHopCount{0};  // 6 bits
  auto operator<=>(const Trap256Details&) const = default;
};

SmpData encode(const NodeInfo& v);
SmpData encode(const NodeDescription& v);
SmpData encode(const PortInfo& v);
SmpData encode(const SwitchInfo& v);
SmpData encode(const SmInfo& v);
SmpData encode(const LftBlock& v);
SmpData encode(const MftBlock& v);
SmpData encode(const PKeyBlock& v);
SmpData encode(const SlToVlTable& v);
SmpData encode(const VlArbitrationBlock& v);
SmpData encode(const Notice& v);

NodeInfo decodeNodeInfo(const SmpData& data);
NodeDescription decodeNodeDescription(const SmpData& data);
PortInfo decodePortInfo(const SmpData& data);
SwitchInfo decodeSwitchInfo(const SmpData& data);
SmInfo decodeSmInfo(const SmpData& data);
LftBlock decodeLftBlock(const SmpData& data);
MftBlock decodeMftBlock(const SmpData& data);
PKeyBlock decodePKeyBlock(const SmpData& data);
SlToVlTable decodeSlToVlTable(const SmpData& data);
VlArbitrationBlock decodeVlArbitrationBlock(const SmpData& data);
Notice decodeNotice(const SmpData& data);

std::array<std::uint8_t, 54> encodeDetails(const Trap128Details& v);
std::array<std::uint8_t, 54> encodeDetails(const Trap144Details& v);
std::array<std::uint8_t, 54> encodeDetails(const Trap256Details& v);
Trap128Details decodeTrap128(const Notice& notice);
Trap144Details decodeTrap144(const Notice& notice);
Trap256Details decodeTrap256(const Notice& notice);

}  // namespace ibsm
