// Performance Management (class 0x04) attributes the health sweep reads:
// PortCounters, PortCountersExtended and the capability bits of the PMA's
// ClassPortInfo that say which of them a port answers. Like
// MadAttributes.h, one member per IBA field (chapter 16.1.3-16.1.4), in
// the spec's units, encoded and decoded in one place (sm/mad/PerfCodec.cpp)
// and checked against libibmad's IB_PC_* fields.
//
//   PortCounters pc = decodePortCounters(reply);  // reply: the 192 data bytes
//   if (pc.symbolErrorCounter == saturated(kSymbolErrorCounterBits)) ...
//   PortCounters reset{.portSelect = 3, .counterSelect = counterSelect::kAll};
//   PerfData out = encode(reset);                  // a Set clears the selected ones
//
// The error counters are narrow (4 to 16 bits) and stop at all ones rather
// than wrap: a saturated counter has lost count and must be reset to count
// again, which is why each width is named here beside its field.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace ibsm {

inline constexpr std::uint8_t kPerfClass = 0x04;
inline constexpr std::uint8_t kPerfClassVersion = 1;

// The data part of a PerfMgt MAD: it starts at byte 64 (after the MAD header
// and 40 reserved bytes) and fills the rest of the 256.
inline constexpr std::size_t kPerfDataOffset = 64;
inline constexpr std::size_t kPerfDataSize = 192;
using PerfData = std::array<std::uint8_t, kPerfDataSize>;

namespace perfAttr {
inline constexpr std::uint16_t kClassPortInfo = 0x0001;
inline constexpr std::uint16_t kPortCounters = 0x0012;
inline constexpr std::uint16_t kPortCountersExtended = 0x001D;
}  // namespace perfAttr

// The methods a performance manager uses (IBA 16.1.1): Get and Set, and
// the GetResp that answers both.
namespace perfMethod {
inline constexpr std::uint8_t kGet = 0x01;
inline constexpr std::uint8_t kSet = 0x02;
inline constexpr std::uint8_t kGetResp = 0x81;
}  // namespace perfMethod

// PortSelect 0xFF asks a switch for the sum over all its ports
// (AllPortSelect, where ClassPortInfo says it is supported).
inline constexpr std::uint8_t kAllPortSelect = 0xFF;

// The PMA's ClassPortInfo:CapabilityMask and CapabilityMask2 bits that
// decide what to ask (IBA 16.1.3.1).
namespace perfCapability {
inline constexpr std::uint16_t kAllPortSelect = 1U << 8;
// PortCountersExtended answers with all eight 64-bit counters...
inline constexpr std::uint16_t kIsExtendedWidthSupported = 1U << 9;
// ...or with the four data/packet ones only (no unicast/multicast counts).
inline constexpr std::uint16_t kIsExtendedWidthSupportedNoIetf = 1U << 10;
inline constexpr std::uint16_t kIsSamplesOnlySupported = 1U << 11;
inline constexpr std::uint16_t kIsPortXmitWaitSupported = 1U << 12;
// CapabilityMask2: PortCountersExtended also carries 64-bit error counters.
inline constexpr std::uint32_t kIsAdditionalPortCountersExtendedSupported = 1U << 1;
}  // namespace perfCapability

// The head of the PMA's ClassPortInfo: versions and capabilities. The
// redirect and trap parts that follow are not read: a PMA that redirects
// answers with a status the caller reports.
struct PerfClassPortInfo {
  std::uint8_t baseVersion{1};
  std::uint8_t classVersion{kPerfClassVersion};
  std::uint16_t capabilityMask{0};
  std::uint32_t capabilityMask2{0};  // 27 bits
  std::uint8_t respTimeValue{0};     // 5 bits
  auto operator<=>(const PerfClassPortInfo&) const = default;

  [[nodiscard]] bool has(std::uint16_t bit) const { return (capabilityMask & bit) != 0; }
  // Either flavour of PortCountersExtended: the 64-bit data/packet counters.
  [[nodiscard]] bool hasPortCountersExtended() const {
    return has(perfCapability::kIsExtendedWidthSupported) ||
           has(perfCapability::kIsExtendedWidthSupportedNoIetf);
  }
};

// PortCounters:CounterSelect, bit per counter: a Set clears the selected
// counters of PortSelect's port. Bits 0-11 are the error counters, 12-15
// the data and packet counters.
namespace counterSelect {
inline constexpr std::uint16_t kSymbolErrorCounter = 1U << 0;
inline constexpr std::uint16_t kLinkErrorRecoveryCounter = 1U << 1;
inline constexpr std::uint16_t kLinkDownedCounter = 1U << 2;
inline constexpr std::uint16_t kPortRcvErrors = 1U << 3;
inline constexpr std::uint16_t kPortRcvRemotePhysicalErrors = 1U << 4;
inline constexpr std::uint16_t kPortRcvSwitchRelayErrors = 1U << 5;
inline constexpr std::uint16_t kPortXmitDiscards = 1U << 6;
inline constexpr std::uint16_t kPortXmitConstraintErrors = 1U << 7;
inline constexpr std::uint16_t kPortRcvConstraintErrors = 1U << 8;
inline constexpr std::uint16_t kLocalLinkIntegrityErrors = 1U << 9;
inline constexpr std::uint16_t kExcessiveBufferOverrunErrors = 1U << 10;
inline constexpr std::uint16_t kVl15Dropped = 1U << 11;
inline constexpr std::uint16_t kPortXmitData = 1U << 12;
inline constexpr std::uint16_t kPortRcvData = 1U << 13;
inline constexpr std::uint16_t kPortXmitPkts = 1U << 14;
inline constexpr std::uint16_t kPortRcvPkts = 1U << 15;
inline constexpr std::uint16_t kErrors = 0x0FFF;
inline constexpr std::uint16_t kAll = 0xFFFF;
}  // namespace counterSelect

// A counter stops at saturated(width), all ones. Named here: the widths
// the tests and the health arithmetic use; sm/health/Counters.cpp has every
// counter's.
inline constexpr unsigned kSymbolErrorCounterBits = 16;
inline constexpr unsigned kLinkErrorRecoveryCounterBits = 8;
inline constexpr unsigned kLinkDownedCounterBits = 8;
inline constexpr unsigned kLocalLinkIntegrityErrorsBits = 4;
inline constexpr unsigned kDataCounterBits = 32;  // PortXmitData .. PortXmitWait
inline constexpr unsigned kExtendedCounterBits = 64;

constexpr std::uint64_t saturated(unsigned bits) {
  return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
}

// PortCounters (IBA 16.1.3.5). Data counters count in units of 4 bytes.
// Bits 160-175 are left alone: libibmad puts QP1Dropped on VL15Dropped's
// bits, so there is no agreed place to test it against.
struct PortCounters {
  std::uint8_t portSelect{0};
  std::uint16_t counterSelect{0};
  std::uint16_t symbolErrorCounter{0};
  std::uint8_t linkErrorRecoveryCounter{0};
  std::uint8_t linkDownedCounter{0};
  std::uint16_t portRcvErrors{0};
  std::uint16_t portRcvRemotePhysicalErrors{0};
  std::uint16_t portRcvSwitchRelayErrors{0};
  std::uint16_t portXmitDiscards{0};
  std::uint8_t portXmitConstraintErrors{0};
  std::uint8_t portRcvConstraintErrors{0};
  std::uint8_t counterSelect2{0};
  std::uint8_t localLinkIntegrityErrors{0};      // 4 bits
  std::uint8_t excessiveBufferOverrunErrors{0};  // 4 bits
  std::uint16_t vl15Dropped{0};
  std::uint32_t portXmitData{0};
  std::uint32_t portRcvData{0};
  std::uint32_t portXmitPkts{0};
  std::uint32_t portRcvPkts{0};
  std::uint32_t portXmitWait{0};  // IsPortXmitWaitSupported
  auto operator<=>(const PortCounters&) const = default;
};

// PortCountersExtended (IBA 16.1.4.11): the data and packet counters at 64
// bits, which in practice never wrap. CounterSelect bits 0-7 select the
// eight counters in order.
struct PortCountersExtended {
  std::uint8_t portSelect{0};
  std::uint16_t counterSelect{0};
  std::uint64_t portXmitData{0};
  std::uint64_t portRcvData{0};
  std::uint64_t portXmitPkts{0};
  std::uint64_t portRcvPkts{0};
  // Only with IsExtendedWidthSupported (zero under ...NoIETF).
  std::uint64_t portUnicastXmitPkts{0};
  std::uint64_t portUnicastRcvPkts{0};
  std::uint64_t portMulticastXmitPkts{0};
  std::uint64_t portMulticastRcvPkts{0};
  auto operator<=>(const PortCountersExtended&) const = default;
};

// A whole PerfMgt MAD: the common MAD header (IBA 13.4.2), 40 reserved
// bytes, then the attribute's data. The requester writes and reads every
// GMP it sends through this, so the header's layout lives here only.
inline constexpr std::size_t kPerfMadSize = 256;
using PerfMadBytes = std::array<std::uint8_t, kPerfMadSize>;
struct PerfMad {
  std::uint8_t baseVersion{1};
  std::uint8_t mgmtClass{kPerfClass};
  std::uint8_t classVersion{kPerfClassVersion};
  std::uint8_t method{perfMethod::kGet};
  std::uint16_t status{0};
  std::uint16_t classSpecific{0};
  std::uint64_t tid{0};
  std::uint16_t attributeId{0};
  std::uint32_t attributeModifier{0};
  PerfData data{};
  auto operator<=>(const PerfMad&) const = default;
};

PerfMadBytes encode(const PerfMad& v);
// Nullopt when `bytes` is shorter than one MAD: a cut answer is not read.
std::optional<PerfMad> decodePerfMad(std::span<const std::uint8_t> bytes);

PerfData encode(const PerfClassPortInfo& v);
PerfData encode(const PortCounters& v);
PerfData encode(const PortCountersExtended& v);

PerfClassPortInfo decodePerfClassPortInfo(const PerfData& data);
PortCounters decodePortCounters(const PerfData& data);
PortCountersExtended decodePortCountersExtended(const PerfData& data);

}  // namespace ibsm
