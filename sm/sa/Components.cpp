// Component lists of IBA 15.2.5, in mask-bit order, reserved fields
// included (they hold a mask bit each).
#include "sm/sa/Components.h"

#include <algorithm>
#include <array>

#include "sm/mad/BitField.h"
#include "sm/sa/SaRecords.h"

namespace ibsm::sm::sa {
namespace {

using C = Component;

constexpr std::array kNodeRecord{
    C{0, 16},   C{16, 16},  C{32, 8},   C{40, 8},   C{48, 8},  C{56, 8},   C{64, 64},   C{128, 64},
    C{192, 64}, C{256, 16}, C{272, 16}, C{288, 32}, C{320, 8}, C{328, 24}, C{352, 512},
};

// EndPortLID, PortNum, Options, then PortInfo's fields 32 bits on;
// CapabilityMask and CapabilityMask2 match as subsets.
constexpr C kCapMask2{512, 16, true};
constexpr std::array kPortInfoRecord{
    C{0, 16},         C{16, 8},   C{24, 8},   C{32, 64},  C{96, 64},  C{160, 16}, C{176, 16},
    C{192, 32, true}, C{224, 16}, C{240, 16}, C{256, 8},  C{264, 8},  C{272, 8},  C{280, 8},
    C{288, 4},        C{292, 4},  C{296, 4},  C{300, 4},  C{304, 2},  C{306, 3},  C{309, 3},
    C{312, 4},        C{316, 4},  C{320, 4},  C{324, 4},  C{328, 4},  C{332, 4},  C{336, 8},
    C{344, 8},        C{352, 8},  C{360, 4},  C{364, 4},  C{368, 3},  C{371, 5},  C{376, 4},
    C{380, 1},        C{381, 1},  C{382, 1},  C{383, 1},  C{384, 16}, C{400, 16}, C{416, 16},
    C{432, 8},        C{440, 1},  C{441, 2},  C{443, 5},  C{448, 3},  C{451, 5},  C{456, 4},
    C{460, 4},        C{464, 16}, C{480, 8},  C{488, 24}, kCapMask2,  C{528, 4},  C{532, 4},
    C{536, 3},        C{539, 5},
};

constexpr std::array kLinkRecord{C{0, 16}, C{16, 8}, C{24, 8}, C{32, 16}};

// LID, reserved, then SwitchInfo's fields 32 bits on.
constexpr std::array kSwitchInfoRecord{
    C{0, 16},  C{16, 16}, C{32, 16}, C{48, 16}, C{64, 16}, C{80, 16},  C{96, 8},
    C{104, 8}, C{112, 8}, C{120, 5}, C{125, 1}, C{126, 2}, C{128, 16}, C{144, 16},
    C{160, 1}, C{161, 1}, C{162, 1}, C{163, 1}, C{164, 1}, C{165, 11}, C{176, 16},
};

constexpr std::array kLftRecord{C{0, 16}, C{16, 16}, C{32, 32}, C{64, 512}};
constexpr std::array kSl2VlTableRecord{C{0, 16}, C{16, 8}, C{24, 8}, C{32, 32}, C{64, 64}};
// LID, OutputPortNum, BlockNum, reserved, the block (IBA 15.2.5.9).
constexpr std::array kVlArbitrationTableRecord{C{0, 16}, C{16, 8}, C{24, 8}, C{32, 32}, C{64, 512}};
constexpr std::array kPKeyTableRecord{C{0, 16}, C{16, 16}, C{32, 8}, C{40, 24}, C{64, 512}};
constexpr std::array kGuidInfoRecord{
    C{0, 16},   C{16, 8},   C{24, 8},   C{32, 32},  C{64, 64},  C{128, 64},
    C{192, 64}, C{256, 64}, C{320, 64}, C{384, 64}, C{448, 64}, C{512, 64},
};
constexpr std::array kSmInfoRecord{
    C{0, 16}, C{16, 16}, C{32, 64}, C{96, 64}, C{160, 32}, C{192, 4}, C{196, 4},
};

// ServiceID (two halves), DGID, SGID, DLID, SLID, RawTraffic, reserved,
// FlowLabel, HopLimit, TClass, Reversible, NumbPath, P_Key, QoSClass, SL,
// MtuSelector, MTU, RateSelector, Rate, PacketLifeTimeSelector,
// PacketLifeTime, Preference. The PathRecord is computed, not matched; its
// list serves the mask check.
constexpr std::array kPathRecord{
    C{0, 32},   C{32, 32}, C{64, 128}, C{192, 128}, C{320, 16}, C{336, 16}, C{352, 1},  C{353, 3},
    C{356, 20}, C{376, 8}, C{384, 8},  C{392, 1},   C{393, 7},  C{400, 16}, C{416, 12}, C{428, 4},
    C{432, 2},  C{434, 6}, C{440, 2},  C{442, 6},   C{448, 2},  C{450, 6},  C{456, 8},
};

// RawTraffic, reserved, FlowLabel, HopLimit, TClass, Reversible, NumbPath,
// P_Key, QoSClass, SL, MtuSelector, MTU, RateSelector, Rate,
// PacketLifeTimeSelector, PacketLifeTime, ServiceID (top 8 bits),
// IndependenceSelector, reserved, SGIDCount, DGIDCount, ServiceID (low 56
// bits). Like the PathRecord's, for the mask check.
constexpr std::array kMultiPathRecord{
    C{0, 1},   C{1, 3},   C{4, 20},  C{24, 8},  C{32, 8},  C{40, 1},   C{41, 7}, C{48, 16},
    C{64, 12}, C{76, 4},  C{80, 2},  C{82, 6},  C{88, 2},  C{90, 6},   C{96, 2}, C{98, 6},
    C{104, 8}, C{112, 2}, C{114, 6}, C{120, 8}, C{128, 8}, C{136, 56},
};

// ServiceID, ServiceGID, ServicePKey, reserved, ServiceLease, ServiceKey,
// ServiceName, then each of Data8[16], Data16[8], Data32[4], Data64[2].
constexpr auto kServiceRecord = [] {
  std::array<C, 37> t{C{0, 64},   C{64, 128},  C{192, 16}, C{208, 16},
                      C{224, 32}, C{256, 128}, C{384, 512}};
  std::size_t i = 7;
  std::uint16_t bit = 896;
  for (const std::uint16_t width : {8, 16, 32, 64}) {
    for (int n = 0; n < 128 / width; ++n, bit = static_cast<std::uint16_t>(bit + width)) {
      t[i++] = C{bit, width};
    }
  }
  return t;
}();

// SubscriberGID, Enum, reserved, then InformInfo's fields (reserved ones
// included) 192 bits on.
constexpr std::array kInformInfoRecord{
    C{0, 128}, C{128, 16}, C{144, 48}, C{192, 128}, C{320, 16}, C{336, 16}, C{352, 16}, C{368, 8},
    C{376, 8}, C{384, 16}, C{400, 16}, C{416, 24},  C{440, 3},  C{443, 5},  C{448, 8},  C{456, 24},
};

// MGID, PortGID, Q_Key, MLID, MTUSelector, MTU, TClass, P_Key,
// RateSelector, Rate, PacketLifeTimeSelector, PacketLifeTime, SL,
// FlowLabel, HopLimit, Scope, JoinState, ProxyJoin, reserved: the bits of
// mcmMask. The SA matches groups by these rules (McGroups), the list
// serves the mask check.
constexpr std::array kMcMemberRecord{
    C{0, 128},  C{128, 128}, C{256, 32}, C{288, 16}, C{304, 2},  C{306, 6}, C{312, 8},
    C{320, 16}, C{336, 2},   C{338, 6},  C{344, 2},  C{346, 6},  C{352, 4}, C{356, 20},
    C{376, 8},  C{384, 4},   C{388, 4},  C{392, 1},  C{393, 23},
};

bool equalIn(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b, const C& c) {
  if (!c.subset && c.bit % 8 == 0 && c.width % 8 == 0) {
    const auto first = static_cast<std::ptrdiff_t>(c.bit / 8);
    const auto last = first + static_cast<std::ptrdiff_t>(c.width / 8);
    return std::equal(a.begin() + first, a.begin() + last, b.begin() + first);
  }
  const auto x = mad::getBits(a, c.bit, c.width);
  const auto y = mad::getBits(b, c.bit, c.width);
  return c.subset ? (x & y) == y : x == y;
}

}  // namespace

std::span<const Component> componentsOf(std::uint16_t attributeId) {
  switch (attributeId) {
    case saAttr::kNodeRecord:
      return kNodeRecord;
    case saAttr::kPortInfoRecord:
      return kPortInfoRecord;
    case saAttr::kLinkRecord:
      return kLinkRecord;
    case saAttr::kSwitchInfoRecord:
      return kSwitchInfoRecord;
    case saAttr::kLftRecord:
      return kLftRecord;
    case saAttr::kSl2VlTableRecord:
      return kSl2VlTableRecord;
    case saAttr::kVlArbitrationTableRecord:
      return kVlArbitrationTableRecord;
    case saAttr::kPKeyTableRecord:
      return kPKeyTableRecord;
    case saAttr::kGuidInfoRecord:
      return kGuidInfoRecord;
    case saAttr::kSmInfoRecord:
      return kSmInfoRecord;
    case saAttr::kPathRecord:
      return kPathRecord;
    case saAttr::kMultiPathRecord:
      return kMultiPathRecord;
    case saAttr::kServiceRecord:
      return kServiceRecord;
    case saAttr::kInformInfoRecord:
      return kInformInfoRecord;
    case saAttr::kMcMemberRecord:
      return kMcMemberRecord;
    default:
      return {};
  }
}

std::size_t recordSizeOf(std::uint16_t attributeId) {
  switch (attributeId) {
    case saAttr::kClassPortInfo:
      return ClassPortInfo::kSize;
    case saAttr::kNodeRecord:
      return NodeRecord::kSize;
    case saAttr::kPortInfoRecord:
      return PortInfoRecord::kSize;
    case saAttr::kLinkRecord:
      return LinkRecord::kSize;
    case saAttr::kSwitchInfoRecord:
      return SwitchInfoRecord::kSize;
    case saAttr::kLftRecord:
      return LftRecord::kSize;
    case saAttr::kSl2VlTableRecord:
      return Sl2VlTableRecord::kSize;
    case saAttr::kVlArbitrationTableRecord:
      return VlArbitrationTableRecord::kSize;
    case saAttr::kPKeyTableRecord:
      return PKeyTableRecord::kSize;
    case saAttr::kGuidInfoRecord:
      return GuidInfoRecord::kSize;
    case saAttr::kSmInfoRecord:
      return SmInfoRecord::kSize;
    case saAttr::kPathRecord:
      return PathRecord::kSize;
    case saAttr::kMultiPathRecord:
      return MultiPathRecord::kSize;
    case saAttr::kServiceRecord:
      return ServiceRecord::kSize;
    case saAttr::kInformInfo:
      return InformInfo::kSize;
    case saAttr::kInformInfoRecord:
      return InformInfoRecord::kSize;
    case saAttr::kMcMemberRecord:
      return McMemberRecord::kSize;
    default:
      return 0;
  }
}

bool maskFits(std::uint64_t mask, std::span<const Component> components) {
  return components.size() >= 64 || (mask >> components.size()) == 0;
}

bool matches(std::span<const std::uint8_t> candidate, std::span<const std::uint8_t> query,
             std::uint64_t mask, std::span<const Component> components) {
  for (std::size_t i = 0; i < components.size() && (mask >> i) != 0; ++i) {
    if (((mask >> i) & 1U) != 0 && !equalIn(candidate, query, components[i])) return false;
  }
  return true;
}

}  // namespace ibsm::sm::sa
