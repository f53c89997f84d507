// Layouts of the SMP attributes other than PortInfo (IBA 14.2.5).
#include <ibsm/MadAttributes.h>

#include <algorithm>
#include <cstring>
#include <tuple>

#include "sm/mad/BitField.h"

namespace ibsm {
namespace {

using sm::mad::Field;

constexpr auto kNodeInfoFields = std::tuple{
    Field{&NodeInfo::baseVersion, 0, 8},       Field{&NodeInfo::classVersion, 8, 8},
    Field{&NodeInfo::nodeType, 16, 8},         Field{&NodeInfo::numPorts, 24, 8},
    Field{&NodeInfo::systemImageGuid, 32, 64}, Field{&NodeInfo::nodeGuid, 96, 64},
    Field{&NodeInfo::portGuid, 160, 64},       Field{&NodeInfo::partitionCap, 224, 16},
    Field{&NodeInfo::deviceId, 240, 16},       Field{&NodeInfo::revision, 256, 32},
    Field{&NodeInfo::localPortNum, 288, 8},    Field{&NodeInfo::vendorId, 296, 24},
};

using S = SwitchInfo;
constexpr auto kSwitchInfoFields = std::tuple{
    Field{&S::linearFdbCap, 0, 16},
    Field{&S::randomFdbCap, 16, 16},
    Field{&S::multicastFdbCap, 32, 16},
    Field{&S::linearFdbTop, 48, 16},
    Field{&S::defaultPort, 64, 8},
    Field{&S::defaultMulticastPrimaryPort, 72, 8},
    Field{&S::defaultMulticastNotPrimaryPort, 80, 8},
    Field{&S::lifeTimeValue, 88, 5},
    Field{&S::portStateChange, 93, 1},
    Field{&S::optimizedSlToVlMappingProgramming, 94, 2},
    Field{&S::lidsPerPort, 96, 16},
    Field{&S::partitionEnforcementCap, 112, 16},
    Field{&S::inboundEnforcementCap, 128, 1},
    Field{&S::outboundEnforcementCap, 129, 1},
    Field{&S::filterRawInboundCap, 130, 1},
    Field{&S::filterRawOutboundCap, 131, 1},
    Field{&S::enhancedPort0, 132, 1},
    Field{&S::multicastFdbTop, 144, 16},
};

constexpr auto kSmInfoFields = std::tuple{
    Field{&SmInfo::guid, 0, 64},       Field{&SmInfo::smKey, 64, 64},
    Field{&SmInfo::actCount, 128, 32}, Field{&SmInfo::priority, 160, 4},
    Field{&SmInfo::smState, 164, 4},
};

constexpr auto kNoticeFields = std::tuple{
    Field{&Notice::isGeneric, 0, 1},     Field{&Notice::type, 1, 7},
    Field{&Notice::producerType, 8, 24}, Field{&Notice::trapNumber, 32, 16},
    Field{&Notice::issuerLid, 48, 16},   Field{&Notice::toggle, 64, 1},
    Field{&Notice::count, 65, 15},
};
constexpr std::size_t kNoticeDetailsOffset = 10;

// Offsets inside DataDetails (IBA 14.2.5.1, traps 128 and 144).
constexpr auto kTrap128Fields = std::tuple{Field{&Trap128Details::lid, 0, 16}};
constexpr auto kTrap144Fields = std::tuple{
    Field{&Trap144Details::lid, 16, 16},
    Field{&Trap144Details::otherLocalChanges, 47, 1},
    Field{&Trap144Details::capabilityMask, 48, 32},
    // ChangeFlags right after CapabilityMask (details bytes 10-11), where
    // OpenSM's and Linux's packed ntc_144 layouts read them.
    Field{&Trap144Details::changeFlags, 80, 16},
    Field{&Trap144Details::capabilityMask2, 96, 16},
};
// Trap 256's DataDetails, where Linux's packed ntc_256 (qib_mad.h) and
// OpenSM's ib_mad_notice_attr put them: LID at details byte 2, DrSLID 4,
// Method 6, AttributeID 8, AttributeModifier 10, M_Key 14, then the
// DRNotice/DRPathTruncated/DRHopCount byte at 23.
constexpr auto kTrap256Fields = std::tuple{
    Field{&Trap256Details::lid, 16, 16},
    Field{&Trap256Details::drSlid, 32, 16},
    Field{&Trap256Details::method, 48, 8},
    Field{&Trap256Details::attributeId, 64, 16},
    Field{&Trap256Details::attributeModifier, 80, 32},
    Field{&Trap256Details::mKey, 112, 64},
    Field{&Trap256Details::drNotice, 184, 1},
    Field{&Trap256Details::drPathTruncated, 185, 1},
    Field{&Trap256Details::drHopCount, 186, 6},
};

}  // namespace

SmpData encode(const NodeInfo& v) {
  return sm::mad::encodeLayout<SmpData>(v, kNodeInfoFields);
}
SmpData encode(const SwitchInfo& v) {
  return sm::mad::encodeLayout<SmpData>(v, kSwitchInfoFields);
}
SmpData encode(const SmInfo& v) {
  return sm::mad::encodeLayout<SmpData>(v, kSmInfoFields);
}
NodeInfo decodeNodeInfo(const SmpData& d) {
  return sm::mad::decodeLayout<NodeInfo>(d, kNodeInfoFields);
}
SwitchInfo decodeSwitchInfo(const SmpData& d) {
  return sm::mad::decodeLayout<SwitchInfo>(d, kSwitchInfoFields);
}
SmInfo decodeSmInfo(const SmpData& d) {
  return sm::mad::decodeLayout<SmInfo>(d, kSmInfoFields);
}

SmpData encode(const NodeDescription& v) {
  SmpData out{};
  std::memcpy(out.data(), v.text.data(), std::min(v.text.size(), out.size()));
  return out;
}

NodeDescription decodeNodeDescription(const SmpData& d) {
  const auto end = std::ranges::find(d, std::uint8_t{0});
  return NodeDescription{std::string(d.begin(), end)};
}

SmpData encode(const LftBlock& v) {
  return v.ports;
}
LftBlock decodeLftBlock(const SmpData& d) {
  return LftBlock{d};
}

// Each mask a big-endian 16-bit word, MLID order.
SmpData encode(const MftBlock& v) {
  SmpData out{};
  for (std::size_t i = 0; i < v.masks.size(); ++i) sm::mad::setBits(out, i * 16, 16, v.masks[i]);
  return out;
}

MftBlock decodeMftBlock(const SmpData& d) {
  MftBlock v;
  for (std::size_t i = 0; i < v.masks.size(); ++i)
    v.masks[i] = static_cast<std::uint16_t>(sm::mad::getBits(d, i * 16, 16));
  return v;
}

SmpData encode(const PKeyBlock& v) {
  SmpData out{};
  for (std::size_t i = 0; i < v.pkeys.size(); ++i) sm::mad::setBits(out, i * 16, 16, v.pkeys[i]);
  return out;
}

PKeyBlock decodePKeyBlock(const SmpData& d) {
  PKeyBlock v;
  for (std::size_t i = 0; i < v.pkeys.size(); ++i) {
    v.pkeys[i] = static_cast<std::uint16_t>(sm::mad::getBits(d, i * 16, 16));
  }
  return v;
}

// SL0 in the high nibble of byte 0, SL15 in the low nibble of byte 7.
SmpData encode(const SlToVlTable& v) {
  SmpData out{};
  for (std::size_t sl = 0; sl < v.vl.size(); ++sl) sm::mad::setBits(out, sl * 4, 4, v.vl[sl]);
  return out;
}

SlToVlTable decodeSlToVlTable(const SmpData& d) {
  SlToVlTable v;
  for (std::size_t sl = 0; sl < v.vl.size(); ++sl) {
    v.vl[sl] = static_cast<std::uint8_t>(sm::mad::getBits(d, sl * 4, 4));
  }
  return v;
}

// Each entry two bytes: 4 reserved bits, the VL, then the weight.
SmpData encode(const VlArbitrationBlock& v) {
  SmpData out{};
  for (std::size_t i = 0; i < v.entries.size(); ++i) {
    sm::mad::setBits(out, i * 16 + 4, 4, v.entries[i].vl);
    sm::mad::setBits(out, i * 16 + 8, 8, v.entries[i].weight);
  }
  return out;
}

VlArbitrationBlock decodeVlArbitrationBlock(const SmpData& d) {
  VlArbitrationBlock v;
  for (std::size_t i = 0; i < v.entries.size(); ++i) {
    v.entries[i].vl = static_cast<std::uint8_t>(sm::mad::getBits(d, i * 16 + 4, 4));
    v.entries[i].weight = static_cast<std::uint8_t>(sm::mad::getBits(d, i * 16 + 8, 8));
  }
  return v;
}

SmpData encode(const Notice& v) {
  SmpData out = sm::mad::encodeLayout<SmpData>(v, kNoticeFields);
  std::ranges::copy(v.dataDetails, out.begin() + kNoticeDetailsOffset);
  return out;
}

Notice decodeNotice(const SmpData& d) {
  Notice v = sm::mad::decodeLayout<Notice>(d, kNoticeFields);
  std::copy_n(d.begin() + kNoticeDetailsOffset, v.dataDetails.size(), v.dataDetails.begin());
  return v;
}

std::array<std::uint8_t, 54> encodeDetails(const Trap128Details& v) {
  std::array<std::uint8_t, 54> out{};
  sm::mad::encodeFields(v, kTrap128Fields, out);
  return out;
}

std::array<std::uint8_t, 54> encodeDetails(const Trap144Details& v) {
  std::array<std::uint8_t, 54> out{};
  sm::mad::encodeFields(v, kTrap144Fields, out);
  return out;
}

std::array<std::uint8_t, 54> encodeDetails(const Trap256Details& v) {
  std::array<std::uint8_t, 54> out{};
  sm::mad::encodeFields(v, kTrap256Fields, out);
  return out;
}

Trap128Details decodeTrap128(const Notice& notice) {
  Trap128Details v;
  sm::mad::decodeFields(notice.dataDetails, kTrap128Fields, v);
  return v;
}

Trap144Details decodeTrap144(const Notice& notice) {
  Trap144Details v;
  sm::mad::decodeFields(notice.dataDetails, kTrap144Fields, v);
  return v;
}

Trap256Details decodeTrap256(const Notice& notice) {
  Trap256Details v;
  sm::mad::decodeFields(notice.dataDetails, kTrap256Fields, v);
  return v;
}

}  // namespace ibsm
