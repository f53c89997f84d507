// What the SA answers from: an immutable snapshot of the subnet as the SM
// knows it after a sweep -- the fabric with its LIDs, the tables the plan
// programmed (LFTs, PKeys, SL2VL) and the SM's own SMInfo -- with every
// record the SA serves already encoded and sorted by LID. The daemon builds
// one after each sweep that programmed the subnet and hands it to the
// responder (SaResponder::setSubnet), which swaps it in atomically: a query
// sees one whole snapshot, never half of two, and answering sends nothing.
// The plan is immutable and shared (`shared_ptr<const SubnetPlan>`): the
// snapshot holds it rather than a copy of its fabric, LFTs and PKeys, so a
// snapshot costs only its encoded records and indexes.
//
//   SaSource source{.plan = plan, .portInfo = &held.observed().portInfo,
//                   .switchInfo = &held.observed().switchInfo,
//                   .smPort = held.observed().smPort, .smInfo = mySmInfo};
//   responder.setSubnet(SaSubnet::build(source, settings));
#pragma once

#include <ibsm/MadAttributes.h>
#include <ibsm/SubnetPlan.h>

#include <map>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sm/sa/PathTable.h"
#include "sm/sa/SaRecords.h"

namespace ibsm::sm::sa {

struct SaSettings {
  std::uint64_t subnetPrefix{kDefaultSubnetPrefix};
  // PacketLifeTime of a path between two ports (IBA 4.096 us * 2^value):
  // OpenSM's default subnet_timeout, 18.
  std::uint8_t packetLifeTime{18};
  // The SM_Key a requester presents to be trusted (PKeyTableRecords, an
  // SMInfoRecord's SM_Key): OpenSM's sa_key, 1 by default.
  std::uint64_t saKey{kDefaultSmKey};
  // ClassPortInfo:RespTimeValue (4.096 us * 2^value): 16, about 268 ms, as
  // OpenSM derives from its 200 ms transaction timeout. The SA answers from
  // a snapshot inside the event loop, well within it.
  std::uint8_t respTimeValue{16};
  // sa.max_records: records one GetTable answer carries at most; past it
  // the first ones are sent (OpenSM, without RMPP, trims to what fits).
  std::uint32_t maxRecords{65536};
  // sa.service_lease_max_s: the longest ServiceRecord lease granted; a
  // longer one, the indefinite 0xFFFFFFFF included, is cut to it.
  std::uint32_t serviceLeaseMaxS{ServiceRecord::kInfiniteLease};
  // sa.max_joins_per_port, sa.max_services_per_port: groups one port may be
  // a member of, ServiceRecords one port may own; one more is NO_RESOURCES.
  std::uint32_t maxJoinsPerPort{256};
  std::uint32_t maxServicesPerPort{64};
};

// What the SM knows after a sweep. `plan` is required and is kept by the
// snapshot; the others refine what the plan alone says (the PortInfo and
// SwitchInfo the devices hold, keyed like the plan's fabric: planSubnet()
// keeps the discovery's NodeIds) and are only read while building.
// A VLArbitration block a port holds (read by the SM, sm/program VlArbKind):
// on a switch, port is the output port (0 for its own port 0).
struct HeldVlArbBlock {
  PortRef port;
  std::uint8_t block{0};  // 1-4
  VlArbitrationBlock table{};
};

struct SaSource {
  std::shared_ptr<const SubnetPlan> plan;
  const std::unordered_map<PortRef, PortInfo>* portInfo{nullptr};
  const std::unordered_map<NodeId, SwitchInfo>* switchInfo{nullptr};
  PortRef smPort{};
  SmInfo smInfo{};
  // The partitions' `sl` flag, by PKey (low 15 bits): a path in that
  // partition uses it.
  std::map<std::uint16_t, std::uint8_t> slByPKey{};
  // What the ports' VLArbitration tables hold, as far as the SM read them.
  std::vector<HeldVlArbBlock> vlArb{};
};

// Encoded records of one attribute, sorted by LID (their first 16 bits),
// each `recordSize` bytes.
class RecordTable {
 public:
  explicit RecordTable(std::size_t recordSize = 0) : recordSize_(recordSize) {}
  void add(const std::vector<std::uint8_t>& encoded);
  void sortByLid();

  std::size_t recordSize() const { return recordSize_; }
  std::size_t size() const { return lids_.size(); }
  std::span<const std::uint8_t> record(std::size_t i) const {
    return std::span(bytes_).subspan(i * recordSize_, recordSize_);
  }
  // The index range of the records of `lid`.
  std::pair<std::size_t, std::size_t> withLid(Lid lid) const;

 private:
  std::size_t recordSize_;
  std::vector<std::uint8_t> bytes_;
  std::vector<std::uint16_t> lids_;
};

class SaSubnet {
 public:
  [[nodiscard]] static std::shared_ptr<const SaSubnet> build(const SaSource& source,
                                                             const SaSettings& settings);

  const SaSettings& settings() const { return settings_; }
  const ClassPortInfo& classPortInfo() const { return classPortInfo_; }
  // nullptr for an attribute the snapshot holds no table of.
  const RecordTable* records(std::uint16_t attributeId) const;

  // What paths are computed from.
  const Fabric& fabric() const { return plan_->fabric; }
  const Lft* lft(NodeId sw) const;
  std::optional<PortRef> portOfLid(Lid lid) const;
  std::optional<PortRef> portOfGuid(Guid portGuid) const {
    return paths_.findPort(plan_->fabric, portGuid);
  }
  // The port that carries the LIDs of `port`'s node side: itself on a CA,
  // port 0 on a switch.
  static PortRef lidPort(const Fabric& fabric, PortRef port);
  // A port's PKey table (membership bit included); {0xFFFF} where the SM
  // does not manage partitions.
  std::span<const std::uint16_t> pkeys(PortRef endPort) const;
  std::optional<std::uint8_t> slOfPKey(std::uint16_t pkey) const;
  // The plan's QoS policy resolved on its fabric (qos.policy_file);
  // nullptr without one, and then the SA answers as if QoS did not exist.
  const qos::ResolvedQos* qos() const { return plan_->qos.get(); }
  // The SLs (bit i: SL i) a switch carries from `in` to `out`: those its
  // planned SL2VL does not map to VL15, where a packet is dropped; all 16
  // where the plan sets no SL2VL for that turn.
  std::uint16_t slsCarried(NodeId sw, std::uint8_t in, std::uint8_t out) const {
    return paths_.slsCarried(sw, in, out);
  }
  // What a PathRecord's route walk reads, one compact record per port.
  const PathTable& paths() const { return paths_; }
  // CA ports and switch ports 0 that hold a LID.
  const std::vector<PortRef>& endPorts() const { return endPorts_; }

  std::size_t memoryBytes() const;  // of the record tables, for the status

 private:
  SaSubnet(const SaSource& source, const SaSettings& settings);

  SaSettings settings_;
  std::shared_ptr<const SubnetPlan> plan_;  // shared with the sweep that made it, never copied
  std::vector<PortRef> lidOwner_;           // index = LID; node == kNoNode when free
  PathTable paths_;
  // The plan's PKey table of a port, by index into plan_->pkeys->ports,
  // itself indexed by PathTable::index; kNoPKeys where the plan has none.
  static constexpr std::uint32_t kNoPKeys = ~std::uint32_t{0};
  std::vector<std::uint32_t> pkeys_;
  std::map<std::uint16_t, std::uint8_t> slByPKey_;
  std::vector<PortRef> endPorts_;
  ClassPortInfo classPortInfo_;
  std::map<std::uint16_t, RecordTable> tables_;
};

// ClassPortInfo:CapabilityMask and CapabilityMask2 bits of the SA (IBA
// 15.2.1.1, Table 188; the names OpenSM's osm_base.h gives them).
namespace saCapability {
inline constexpr std::uint16_t kIsSubnetGetSetNoticeSupported = 1U << 1;
inline constexpr std::uint16_t kIsSubnetOptionalRecordsSupported = 1U << 8;
inline constexpr std::uint16_t kIsUdMulticastSupported = 1U << 9;
inline constexpr std::uint16_t kIsPortInfoCapMaskMatchSupported = 1U << 13;
// CapabilityMask2.
inline constexpr std::uint32_t kIsMulticastFdbTopSupported = 1U << 3;
inline constexpr std::uint32_t kIsAliasGuidsSupported = 1U << 5;
inline constexpr std::uint32_t kIsFullPortInfoRecordSupported = 1U << 6;
inline constexpr std::uint32_t kIsExtendedSpeedsSupported = 1U << 7;
inline constexpr std::uint32_t kIsMulticastServiceRecordsSupported = 1U << 8;
inline constexpr std::uint32_t kIsPortInfoCapMask2MatchSupported = 1U << 10;
inline constexpr std::uint32_t kIsSendOnlyFullMemberSupported = 1U << 12;
inline constexpr std::uint32_t kIsLinkWidth2xSupported = 1U << 13;
inline constexpr std::uint32_t kIsLinkSpeedHdrSupported = 1U << 15;
inline constexpr std::uint32_t kIsLinkSpeedNdrSupported = 1U << 17;

// What this SA implements. CapabilityMask: UD multicast (MCMemberRecord
// joins, leaves and queries), PortInfoRecord's CapabilityMask matched as a
// subset. Not claimed: optional records (IBA: all of them;
// RandomForwardingTable-, ServiceAssociation-, MulticastForwardingTable-,
// Trace- and MultiPathRecord are not served) and Get/Set(Notice).
// CapabilityMask2: SwitchInfo:MulticastFDBTop (the MFT programming sets it
// on every switch whose port 0 PortInfo has IsMulticastFDBTopSupported, as
// OpenSM with use_mfttop, which claims it the same way), SendOnlyFullMember
// joins, PortInfoRecords of every switch port, rates and speeds of
// extended, 2x, HDR and NDR links (PathRecords and PortInfoRecords),
// CapabilityMask2 matched as a subset. Not yet: multicast ServiceRecords,
// alias GUIDs (GUIDInfo Set).
inline constexpr std::uint16_t kImplemented =
    kIsUdMulticastSupported | kIsPortInfoCapMaskMatchSupported;
inline constexpr std::uint32_t kImplemented2 =
    kIsMulticastFdbTopSupported | kIsFullPortInfoRecordSupported | kIsExtendedSpeedsSupported |
    kIsPortInfoCapMask2MatchSupported | kIsSendOnlyFullMemberSupported | kIsLinkWidth2xSupported |
    kIsLinkSpeedHdrSupported | kIsLinkSpeedNdrSupported;
}  // namespace saCapability

}  // namespace ibsm::sm::sa
