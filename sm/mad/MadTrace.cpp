#include "sm/mad/MadTrace.h"

#include <fmt/format.h>
#include <ibsm/Mad.h>
#include <spdlog/spdlog.h>

#include "sm/mad/PerfCounters.h"

namespace ibsm {

std::string formatMadTrace(const MadTraceEntry& e) {
  const std::string attribute = e.attribute.empty()
                                    ? fmt::format("0x{:04x}", e.attributeId)
                                    : fmt::format("{} 0x{:04x}", e.attribute, e.attributeId);
  return fmt::format("{}({}, mod 0x{:x}) {}: {} in {} us, attempt {}", e.method, attribute,
                     e.modifier, e.to, e.status, e.latency.count(), e.attempts);
}

std::string_view smpAttributeName(std::uint16_t id) {
  switch (static_cast<AttributeId>(id)) {
    case AttributeId::Notice:
      return "Notice";
    case AttributeId::NodeDescription:
      return "NodeDescription";
    case AttributeId::NodeInfo:
      return "NodeInfo";
    case AttributeId::SwitchInfo:
      return "SwitchInfo";
    case AttributeId::PortInfo:
      return "PortInfo";
    case AttributeId::PKeyTable:
      return "PKeyTable";
    case AttributeId::SlToVlTable:
      return "SLtoVLMappingTable";
    case AttributeId::VlArbitrationTable:
      return "VLArbitrationTable";
    case AttributeId::LinearForwardingTable:
      return "LinearForwardingTable";
    case AttributeId::MulticastForwardingTable:
      return "MulticastForwardingTable";
    case AttributeId::SmInfo:
      return "SMInfo";
  }
  return {};
}

std::string_view perfAttributeName(std::uint16_t id) {
  switch (id) {
    case perfAttr::kClassPortInfo:
      return "ClassPortInfo";
    case perfAttr::kPortCounters:
      return "PortCounters";
    case perfAttr::kPortCountersExtended:
      return "PortCountersExtended";
    default:
      return {};
  }
}

MadTrace::MadTrace(std::shared_ptr<spdlog::logger> logger, unsigned linesPerSecond)
    : log_(logger ? std::move(logger) : spdlog::default_logger()),
      linesPerSecond_(linesPerSecond) {}

void MadTrace::record(const MadTraceEntry& entry, MadClock::time_point now) {
  // Fixed windows of one second on the requester's clock: simple, and the
  // operator reads "N suppressed in the last second" as it is.
  if (now - windowStart_ >= std::chrono::seconds(1)) {
    if (suppressedInWindow_ > 0)
      log_->trace("MAD-0114 MAD trace: {} lines suppressed in a second (at most {} a second)",
                  suppressedInWindow_, linesPerSecond_);
    windowStart_ = now;
    linesInWindow_ = 0;
    suppressedInWindow_ = 0;
  }
  if (linesInWindow_ >= linesPerSecond_) {
    ++suppressedInWindow_;
    ++counters_.suppressed;
    return;
  }
  ++linesInWindow_;
  ++counters_.lines;
  log_->trace("MAD-0113 {}", formatMadTrace(entry));
}

}  // namespace ibsm
