// Performance Management layouts (IBA 16.1.3-16.1.4). Bit offsets count
// from the start of the MAD's data (byte 64), as libibmad's IB_PC_* do.
#include <algorithm>
#include <tuple>

#include "sm/mad/BitField.h"
#include "sm/mad/PerfCounters.h"

namespace ibsm {
namespace {

using sm::mad::Field;

// The common MAD header; bit offsets from the MAD's first byte. Bits
// 144-159 are reserved.
using H = PerfMad;
constexpr auto kHeaderFields = std::tuple{
    Field{&H::baseVersion, 0, 8},
    Field{&H::mgmtClass, 8, 8},
    Field{&H::classVersion, 16, 8},
    Field{&H::method, 24, 8},
    Field{&H::status, 32, 16},
    Field{&H::classSpecific, 48, 16},
    Field{&H::tid, 64, 64},
    Field{&H::attributeId, 128, 16},
    Field{&H::attributeModifier, 160, 32},
};

using I = PerfClassPortInfo;
constexpr auto kClassPortInfoFields = std::tuple{
    Field{&I::baseVersion, 0, 8},      Field{&I::classVersion, 8, 8},
    Field{&I::capabilityMask, 16, 16}, Field{&I::capabilityMask2, 32, 27},
    Field{&I::respTimeValue, 59, 5},
};

using P = PortCounters;
constexpr auto kPortCountersFields = std::tuple{
    Field{&P::portSelect, 8, 8},
    Field{&P::counterSelect, 16, 16},
    Field{&P::symbolErrorCounter, 32, 16},
    Field{&P::linkErrorRecoveryCounter, 48, 8},
    Field{&P::linkDownedCounter, 56, 8},
    Field{&P::portRcvErrors, 64, 16},
    Field{&P::portRcvRemotePhysicalErrors, 80, 16},
    Field{&P::portRcvSwitchRelayErrors, 96, 16},
    Field{&P::portXmitDiscards, 112, 16},
    Field{&P::portXmitConstraintErrors, 128, 8},
    Field{&P::portRcvConstraintErrors, 136, 8},
    Field{&P::counterSelect2, 144, 8},
    Field{&P::localLinkIntegrityErrors, 152, 4},
    Field{&P::excessiveBufferOverrunErrors, 156, 4},
    Field{&P::vl15Dropped, 176, 16},
    Field{&P::portXmitData, 192, 32},
    Field{&P::portRcvData, 224, 32},
    Field{&P::portXmitPkts, 256, 32},
    Field{&P::portRcvPkts, 288, 32},
    Field{&P::portXmitWait, 320, 32},
};

using E = PortCountersExtended;
constexpr auto kPortCountersExtendedFields = std::tuple{
    Field{&E::portSelect, 8, 8},
    Field{&E::counterSelect, 16, 16},
    Field{&E::portXmitData, 64, 64},
    Field{&E::portRcvData, 128, 64},
    Field{&E::portXmitPkts, 192, 64},
    Field{&E::portRcvPkts, 256, 64},
    Field{&E::portUnicastXmitPkts, 320, 64},
    Field{&E::portUnicastRcvPkts, 384, 64},
    Field{&E::portMulticastXmitPkts, 448, 64},
    Field{&E::portMulticastRcvPkts, 512, 64},
};

}  // namespace

PerfMadBytes encode(const PerfMad& v) {
  PerfMadBytes out = sm::mad::encodeLayout<PerfMadBytes>(v, kHeaderFields);
  std::copy(v.data.begin(), v.data.end(), out.begin() + kPerfDataOffset);
  return out;
}

std::optional<PerfMad> decodePerfMad(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < kPerfMadSize) return std::nullopt;
  PerfMadBytes whole{};
  std::copy_n(bytes.begin(), kPerfMadSize, whole.begin());
  PerfMad mad = sm::mad::decodeLayout<PerfMad>(whole, kHeaderFields);
  std::copy_n(whole.begin() + kPerfDataOffset, kPerfDataSize, mad.data.begin());
  return mad;
}

PerfData encode(const PerfClassPortInfo& v) {
  return sm::mad::encodeLayout<PerfData>(v, kClassPortInfoFields);
}
PerfData encode(const PortCounters& v) {
  return sm::mad::encodeLayout<PerfData>(v, kPortCountersFields);
}
PerfData encode(const PortCountersExtended& v) {
  return sm::mad::encodeLayout<PerfData>(v, kPortCountersExtendedFields);
}

PerfClassPortInfo decodePerfClassPortInfo(const PerfData& data) {
  return sm::mad::decodeLayout<PerfClassPortInfo>(data, kClassPortInfoFields);
}
PortCounters decodePortCounters(const PerfData& data) {
  return sm::mad::decodeLayout<PortCounters>(data, kPortCountersFields);
}
PortCountersExtended decodePortCountersExtended(const PerfData& data) {
  return sm::mad::decodeLayout<PortCountersExtended>(data, kPortCountersExtendedFields);
}

}  // namespace ibsm
