#include "sm/health/Counters.h"

#include <algorithm>

namespace ibsm::sm::health {
namespace {

constexpr std::array<std::string_view, kCounterCount> kNames{
    "SymbolErrorCounter",
    "LinkErrorRecoveryCounter",
    "LinkDownedCounter",
    "PortRcvErrors",
    "PortRcvRemotePhysicalErrors",
    "PortRcvSwitchRelayErrors",
    "PortXmitDiscards",
    "PortXmitConstraintErrors",
    "PortRcvConstraintErrors",
    "LocalLinkIntegrityErrors",
    "ExcessiveBufferOverrunErrors",
    "VL15Dropped",
    "PortXmitWait",
    "PortXmitData",
    "PortRcvData",
    "PortXmitPkts",
    "PortRcvPkts",
};

// Widths in PortCounters (IBA 16.1.3.5), in Counter order.
constexpr std::array<unsigned, kCounterCount> kBits{
    16, 8,  8,       // SymbolError, LinkErrorRecovery, LinkDowned
    16, 16, 16, 16,  // PortRcvErrors .. PortXmitDiscards
    8,  8,           // Port{Xmit,Rcv}ConstraintErrors
    4,  4,           // LocalLinkIntegrity, ExcessiveBufferOverrun
    16, 32,          // VL15Dropped, PortXmitWait
    32, 32, 32, 32,  // data and packet counters
};

bool isDataCounter(Counter c) {
  return index(c) >= index(Counter::PortXmitData);
}

}  // namespace

std::string_view counterName(Counter c) {
  return kNames[index(c)];
}

std::optional<Counter> counterNamed(std::string_view name) {
  const auto* it = std::find(kNames.begin(), kNames.end(), name);
  if (it == kNames.end()) return std::nullopt;
  return counterAt(static_cast<std::size_t>(it - kNames.begin()));
}

unsigned counterBits(Counter c, bool extendedData) {
  return extendedData && isDataCounter(c) ? kExtendedCounterBits : kBits[index(c)];
}

PortReading readingOf(const PortCounters& pc) {
  PortReading r;
  auto set = [&r](Counter c, std::uint64_t v) { r.values[index(c)] = v; };
  set(Counter::SymbolErrorCounter, pc.symbolErrorCounter);
  set(Counter::LinkErrorRecoveryCounter, pc.linkErrorRecoveryCounter);
  set(Counter::LinkDownedCounter, pc.linkDownedCounter);
  set(Counter::PortRcvErrors, pc.portRcvErrors);
  set(Counter::PortRcvRemotePhysicalErrors, pc.portRcvRemotePhysicalErrors);
  set(Counter::PortRcvSwitchRelayErrors, pc.portRcvSwitchRelayErrors);
  set(Counter::PortXmitDiscards, pc.portXmitDiscards);
  set(Counter::PortXmitConstraintErrors, pc.portXmitConstraintErrors);
  set(Counter::PortRcvConstraintErrors, pc.portRcvConstraintErrors);
  set(Counter::LocalLinkIntegrityErrors, pc.localLinkIntegrityErrors);
  set(Counter::ExcessiveBufferOverrunErrors, pc.excessiveBufferOverrunErrors);
  set(Counter::VL15Dropped, pc.vl15Dropped);
  set(Counter::PortXmitWait, pc.portXmitWait);
  set(Counter::PortXmitData, pc.portXmitData);
  set(Counter::PortRcvData, pc.portRcvData);
  set(Counter::PortXmitPkts, pc.portXmitPkts);
  set(Counter::PortRcvPkts, pc.portRcvPkts);
  return r;
}

PortReading readingOf(const PortCounters& pc, const PortCountersExtended& ext) {
  PortReading r = readingOf(pc);
  r.extendedData = true;
  r.values[index(Counter::PortXmitData)] = ext.portXmitData;
  r.values[index(Counter::PortRcvData)] = ext.portRcvData;
  r.values[index(Counter::PortXmitPkts)] = ext.portXmitPkts;
  r.values[index(Counter::PortRcvPkts)] = ext.portRcvPkts;
  return r;
}

}  // namespace ibsm::sm::health
