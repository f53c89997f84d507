// The SA's records (IBA 15.2.5) as value types, one member per field, and
// their encodings, written and read in one place (sm/sa/SaRecordCodec.cpp)
// and checked against libibmad where it names the fields. A record that
// carries an SMP attribute (a NodeRecord's NodeInfo, a PortInfoRecord's
// PortInfo...) holds that attribute's struct of MadAttributes.h and is
// encoded with that attribute's own encoder, so the two never disagree.
//
//   NodeRecord r{.lid = Lid{5}, .nodeInfo = info, .nodeDescription = {"host0 HCA-1"}};
//   std::vector<std::uint8_t> bytes = encodeRecord(r);      // NodeRecord::kSize bytes
//   Result<NodeRecord> back = decodeRecord<NodeRecord>(bytes);
//
// kSize is the record's size padded to 8 bytes: the step between records
// of a GetTableResp (AttributeOffset = kSize / 8).
#pragma once

#include <ibsm/Error.h>
#include <ibsm/MadAttributes.h>

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "sm/mad/Gmp.h"
#include "sm/sa/SaMad.h"

namespace ibsm {

// The GID of a port: subnet prefix, then its port GUID.
Gid makeGid(std::uint64_t prefix, Guid guid);
std::uint64_t gidPrefix(const Gid& gid);
Guid gidGuid(const Gid& gid);

inline constexpr std::uint64_t kDefaultSubnetPrefix = 0xFE80000000000000ULL;

// ClassPortInfo (IBA 13.4.8.1) as the SA answers it.
struct ClassPortInfo {
  static constexpr std::uint16_t kAttributeId = saAttr::kClassPortInfo;
  static constexpr std::size_t kSize = 72;
  std::uint8_t baseVersion{1};
  std::uint8_t classVersion{2};
  std::uint16_t capabilityMask{0};
  std::uint32_t capabilityMask2{0};  // 27 bits
  std::uint8_t respTimeValue{0};     // 5 bits
  Gid redirectGid{};
  std::uint8_t redirectTc{0};
  std::uint8_t redirectSl{0};   // 4 bits
  std::uint32_t redirectFl{0};  // 20 bits
  Lid redirectLid{};
  std::uint16_t redirectPKey{0};
  std::uint32_t redirectQp{0};  // 24 bits
  std::uint32_t redirectQKey{0};
  Gid trapGid{};
  std::uint8_t trapTc{0};
  std::uint8_t trapSl{0};   // 4 bits
  std::uint32_t trapFl{0};  // 20 bits
  Lid trapLid{};
  std::uint16_t trapPKey{0};
  std::uint8_t trapHopLimit{0};
  std::uint32_t trapQp{0};  // 24 bits
  std::uint32_t trapQKey{0};
  auto operator<=>(const ClassPortInfo&) const = default;
};

struct NodeRecord {
  static constexpr std::uint16_t kAttributeId = saAttr::kNodeRecord;
  static constexpr std::size_t kSize = 112;  // 108 bytes, padded
  Lid lid{};
  NodeInfo nodeInfo{};
  NodeDescription nodeDescription{};
  auto operator<=>(const NodeRecord&) const = default;
};

struct PortInfoRecord {
  static constexpr std::uint16_t kAttributeId = saAttr::kPortInfoRecord;
  static constexpr std::size_t kSize = 72;  // 68 bytes, padded
  Lid endPortLid{};
  std::uint8_t portNum{0};
  std::uint8_t options{0};  // IBA 1.3: bit 0 asks CapabilityMask to match as a subset
  PortInfo portInfo{};
  auto operator<=>(const PortInfoRecord&) const = default;
};

struct LinkRecord {
  static constexpr std::uint16_t kAttributeId = saAttr::kLinkRecord;
  static constexpr std::size_t kSize = 8;
  Lid fromLid{};
  std::uint8_t fromPort{0};
  std::uint8_t toPort{0};
  Lid toLid{};
  auto operator<=>(const LinkRecord&) const = default;
};

struct SwitchInfoRecord {
  static constexpr std::uint16_t kAttributeId = saAttr::kSwitchInfoRecord;
  static constexpr std::size_t kSize = 24;
  Lid lid{};
  SwitchInfo switchInfo{};
  auto operator<=>(const SwitchInfoRecord&) const = default;
};

struct LftRecord {
  static constexpr std::uint16_t kAttributeId = saAttr::kLftRecord;
  static constexpr std::size_t kSize = 72;  // LID, block, reserved, 64 entries
  Lid lid{};
  std::uint16_t block{0};
  LftBlock lft{};
  auto operator<=>(const LftRecord&) const = default;
};

struct Sl2VlTableRecord {
  static constexpr std::uint16_t kAttributeId = saAttr::kSl2VlTableRecord;
  static constexpr std::size_t kSize = 16;
  Lid lid{};
  std::uint8_t inPort{0};
  std::uint8_t outPort{0};
  SlToVlTable table{};
  auto operator<=>(const Sl2VlTableRecord&) const = default;
};

// A port's VLArbitrationTable block as the SA lists it (IBA 15.2.5.9):
// the LID of its node, the (output) port, the block 1-4.
struct VlArbitrationTableRecord {
  static constexpr std::uint16_t kAttributeId = saAttr::kVlArbitrationTableRecord;
  static constexpr std::size_t kSize = 72;
  Lid lid{};
  std::uint8_t outputPort{0};
  std::uint8_t block{0};
  VlArbitrationBlock table{};
  auto operator<=>(const VlArbitrationTableRecord&) const = default;
};

struct PKeyTableRecord {
  static constexpr std::uint16_t kAttributeId = saAttr::kPKeyTableRecord;
  static constexpr std::size_t kSize = 72;
  Lid lid{};
  std::uint16_t block{0};
  std::uint8_t port{0};
  PKeyBlock table{};
  auto operator<=>(const PKeyTableRecord&) const = default;
};

struct GuidInfoRecord {
  static constexpr std::uint16_t kAttributeId = saAttr::kGuidInfoRecord;
  static constexpr std::size_t kSize = 72;
  Lid lid{};
  std::uint8_t block{0};
  std::array<Guid, 8> guids{};
  auto operator<=>(const GuidInfoRecord&) const = default;
};

struct SmInfoRecord {
  static constexpr std::uint16_t kAttributeId = saAttr::kSmInfoRecord;
  static constexpr std::size_t kSize = 32;  // 25 bytes, padded
  Lid lid{};
  SmInfo smInfo{};
  auto operator<=>(const SmInfoRecord&) const = default;
};

// PathRecord selectors: how a query's MTU, rate or packet life compares.
namespace selector {
inline constexpr std::uint8_t kGreater = 0;
inline constexpr std::uint8_t kLess = 1;
inline constexpr std::uint8_t kExactly = 2;
inline constexpr std::uint8_t kLargest = 3;  // packet life: smallest
}  // namespace selector

struct PathRecord {
  static constexpr std::uint16_t kAttributeId = saAttr::kPathRecord;
  static constexpr std::size_t kSize = 64;
  std::uint64_t serviceId{0};
  Gid dgid{};
  Gid sgid{};
  Lid dlid{};
  Lid slid{};
  bool rawTraffic{false};
  std::uint32_t flowLabel{0};  // 20 bits
  std::uint8_t hopLimit{0};
  std::uint8_t tClass{0};
  bool reversible{false};
  std::uint8_t numbPath{0};  // 7 bits
  std::uint16_t pkey{0};
  std::uint16_t qosClass{0};  // 12 bits
  std::uint8_t sl{0};         // 4 bits
  std::uint8_t mtuSelector{0};
  std::uint8_t mtu{0};  // 6 bits, IBA code
  std::uint8_t rateSelector{0};
  std::uint8_t rate{0};  // 6 bits, IBA code
  std::uint8_t packetLifeTimeSelector{0};
  std::uint8_t packetLifeTime{0};  // 6 bits
  std::uint8_t preference{0};
  auto operator<=>(const PathRecord&) const = default;
};

// A service a port registers with the SA (Set), finds (Get, GetTable) and
// withdraws (Delete); it lives for ServiceLease seconds (0xFFFFFFFF: for
// ever) unless registered again.
struct ServiceRecord {
  static constexpr std::uint16_t kAttributeId = saAttr::kServiceRecord;
  static constexpr std::size_t kSize = 176;
  static constexpr std::uint32_t kInfiniteLease = 0xFFFFFFFF;
  std::uint64_t serviceId{0};
  Gid serviceGid{};
  std::uint16_t servicePKey{0};
  std::uint32_t serviceLease{0};
  std::array<std::uint8_t, 16> serviceKey{};
  std::string serviceName{};  // at most 64 bytes on the wire; NUL padding is dropped
  std::array<std::uint8_t, 16> data8{};
  std::array<std::uint16_t, 8> data16{};
  std::array<std::uint32_t, 4> data32{};
  std::array<std::uint64_t, 2> data64{};
  auto operator<=>(const ServiceRecord&) const = default;
};

// InformInfo (IBA 13.4.8.3): a port's subscription to the notices (traps)
// the SA forwards as Reports; Set with Subscribe 1 subscribes, 0 withdraws.
struct InformInfo {
  static constexpr std::uint16_t kAttributeId = saAttr::kInformInfo;
  static constexpr std::size_t kSize = 40;           // 36 bytes, padded
  static constexpr std::uint16_t kAllLids = 0xFFFF;  // LIDRangeBegin: every LID
  Gid gid{};                                         // a port's GID, or 0: by LID range
  Lid lidRangeBegin{};
  Lid lidRangeEnd{};
  bool isGeneric{true};
  bool subscribe{true};
  std::uint16_t type{0xFFFF};        // 0xFFFF: every type
  std::uint16_t trapNumber{0xFFFF};  // DeviceID when !isGeneric; 0xFFFF: every trap
  std::uint32_t qpn{0};              // 24 bits: where Reports go
  std::uint8_t respTimeValue{0};     // 5 bits
  std::uint32_t producerType{0};     // 24 bits; VendorID when !isGeneric
  auto operator<=>(const InformInfo&) const = default;
};

struct InformInfoRecord {
  static constexpr std::uint16_t kAttributeId = saAttr::kInformInfoRecord;
  static constexpr std::size_t kSize = 64;  // 60 bytes, padded
  Gid subscriberGid{};
  std::uint16_t enumeration{0};  // tells apart one subscriber's subscriptions
  InformInfo informInfo{};
  auto operator<=>(const InformInfoRecord&) const = default;
};

// Notice (IBA 13.4.8.2) as a Report carries it to a subscriber: the 64
// bytes an SMP Trap holds (MadAttributes.h's Notice, encoded by its own
// encoder), then the IssuerGID that an SMP has no room for.
struct SaNotice {
  static constexpr std::uint16_t kAttributeId = saAttr::kNotice;
  static constexpr std::size_t kSize = 80;
  Notice notice{};
  Gid issuerGid{};
  auto operator<=>(const SaNotice&) const = default;
};

// MCMemberRecord (IBA 15.2.5.17): a port's membership of a multicast
// group, and the group's parameters. Set joins (or creates) the group,
// Delete leaves it (clearing the JoinState bits given), Get/GetTable list
// groups and members.
struct McMemberRecord {
  static constexpr std::uint16_t kAttributeId = saAttr::kMcMemberRecord;
  static constexpr std::size_t kSize = 56;  // 52 bytes, padded
  Gid mgid{};
  Gid portGid{};
  std::uint32_t qkey{0};
  Lid mlid{};
  std::uint8_t mtuSelector{0};  // 2 bits, as PathRecord's
  std::uint8_t mtu{0};          // 6 bits, IBA code
  std::uint8_t tClass{0};
  std::uint16_t pkey{0};
  std::uint8_t rateSelector{0};  // 2 bits
  std::uint8_t rate{0};          // 6 bits, IBA code
  std::uint8_t packetLifeTimeSelector{0};
  std::uint8_t packetLifeTime{0};  // 6 bits
  std::uint8_t sl{0};              // 4 bits
  std::uint32_t flowLabel{0};      // 20 bits
  std::uint8_t hopLimit{0};
  std::uint8_t scope{0};      // 4 bits
  std::uint8_t joinState{0};  // 4 bits: joinState::kFull... (Multicast.h)
  bool proxyJoin{false};
  auto operator<=>(const McMemberRecord&) const = default;
};

// MultiPathRecord (IBA 15.2.5.20): a GetMulti query for paths from each of
// SGIDCount source GIDs to each of DGIDCount destination GIDs, which follow
// the record's 24 bytes (sources first); it is answered with PathRecords.
// One MAD's SA data holds the record and 11 GIDs.
struct MultiPathRecord {
  static constexpr std::uint16_t kAttributeId = saAttr::kMultiPathRecord;
  static constexpr std::size_t kSize = 24;  // before the GIDs
  static constexpr std::size_t kMaxGidsInOneMad = 11;
  bool rawTraffic{false};
  std::uint32_t flowLabel{0};  // 20 bits
  std::uint8_t hopLimit{0};
  std::uint8_t tClass{0};
  bool reversible{false};
  std::uint8_t numbPath{0};  // 7 bits
  std::uint16_t pkey{0};
  std::uint16_t qosClass{0};  // 12 bits
  std::uint8_t sl{0};         // 4 bits
  std::uint8_t mtuSelector{0};
  std::uint8_t mtu{0};  // 6 bits
  std::uint8_t rateSelector{0};
  std::uint8_t rate{0};  // 6 bits
  std::uint8_t packetLifeTimeSelector{0};
  std::uint8_t packetLifeTime{0};        // 6 bits
  std::uint8_t serviceIdMsb{0};          // ServiceID's top 8 bits
  std::uint8_t independenceSelector{0};  // 2 bits
  std::uint64_t serviceIdLsb{0};         // ServiceID's low 56 bits
  std::vector<Gid> sgids;                // SGIDCount is their number on the wire
  std::vector<Gid> dgids;                // DGIDCount likewise
  auto operator<=>(const MultiPathRecord&) const = default;
};

std::vector<std::uint8_t> encodeRecord(const ClassPortInfo& r);
std::vector<std::uint8_t> encodeRecord(const NodeRecord& r);
std::vector<std::uint8_t> encodeRecord(const PortInfoRecord& r);
std::vector<std::uint8_t> encodeRecord(const LinkRecord& r);
std::vector<std::uint8_t> encodeRecord(const SwitchInfoRecord& r);
std::vector<std::uint8_t> encodeRecord(const LftRecord& r);
std::vector<std::uint8_t> encodeRecord(const Sl2VlTableRecord& r);
std::vector<std::uint8_t> encodeRecord(const PKeyTableRecord& r);
std::vector<std::uint8_t> encodeRecord(const VlArbitrationTableRecord& r);
std::vector<std::uint8_t> encodeRecord(const GuidInfoRecord& r);
std::vector<std::uint8_t> encodeRecord(const SmInfoRecord& r);
std::vector<std::uint8_t> encodeRecord(const PathRecord& r);
// The same into the first PathRecord::kSize bytes of `out` (an answer's
// payload), allocating nothing.
void encodeRecordInto(const PathRecord& r, std::span<std::uint8_t> out);
std::vector<std::uint8_t> encodeRecord(const ServiceRecord& r);
std::vector<std::uint8_t> encodeRecord(const InformInfo& r);
std::vector<std::uint8_t> encodeRecord(const InformInfoRecord& r);
std::vector<std::uint8_t> encodeRecord(const SaNotice& r);
std::vector<std::uint8_t> encodeRecord(const McMemberRecord& r);
// 24 bytes and 16 per GID.
std::vector<std::uint8_t> encodeRecord(const MultiPathRecord& r);

// Fails on fewer bytes than the record's fields take (its padding may be
// missing: the last record of a payload cut to its own length).
template <typename R>
[[nodiscard]] Result<R> decodeRecord(std::span<const std::uint8_t> bytes);
// A MultiPathRecord also fails when its GIDs run past `bytes`.
template <>
[[nodiscard]] Result<MultiPathRecord> decodeRecord(std::span<const std::uint8_t> bytes);

}  // namespace ibsm
