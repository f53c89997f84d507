// The MAD trace of `--log-level trace`: one line per request a requester
// sent and saw end (answered, timed out, failed), saying what was asked of
// whom and how it ended, so an operator can follow a sweep MAD by MAD:
//
//   MAD-0113 SubnGet(PortInfo 0x0015, mod 0x3) DR 0,1,3: ok in 87 us, attempt 1
//   MAD-0113 PerfGet(PortCounters 0x0012, mod 0x0) LID 12: timeout in 500012 us, attempt 3
//
// A sweep of a large fabric sends tens of thousands of MADs a second, so
// the trace is rate-limited: at most `linesPerSecond` lines in each second
// of the requester's clock; the lines past that are counted, and the count
// of a second that suppressed any is logged once, with the first line of a
// later second (MAD-0114). Both counts are in the counters (and in
// `ibsm status`), whatever the level. Below trace level nothing is
// formatted and nothing counted: the trace costs one level check per MAD.
//
//   MadTrace trace(logger);
//   if (trace.enabled()) trace.record(entry, clock());
#pragma once

#include <spdlog/logger.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "sm/mad/MadTransport.h"

namespace ibsm {

struct MadTraceEntry {
  std::string_view method;     // "SubnGet", "SubnSet", "PerfGet", "PerfSet"
  std::string_view attribute;  // "PortInfo"; empty when the id has no name here
  std::uint16_t attributeId{0};
  std::uint32_t modifier{0};
  std::string to;                        // "DR 0,1,3" or "LID 12"
  std::string status;                    // "ok", "status 0x001c (invalid field)", "timeout", ...
  std::chrono::microseconds latency{0};  // from the last transmission to the end
  unsigned attempts{0};
};

// The line without its id: "SubnGet(PortInfo 0x0015, mod 0x3) DR 0,1,3: ok in 87 us, attempt 1".
std::string formatMadTrace(const MadTraceEntry& entry);

// Names of the SMP and PerfMgt attributes the SM sends; empty for others.
std::string_view smpAttributeName(std::uint16_t id);
std::string_view perfAttributeName(std::uint16_t id);

struct MadTraceCounters {
  std::uint64_t lines{0};       // trace lines logged
  std::uint64_t suppressed{0};  // trace lines the rate limit dropped
};

class MadTrace {
 public:
  static constexpr unsigned kDefaultLinesPerSecond = 200;

  // No logger: spdlog's default logger.
  explicit MadTrace(std::shared_ptr<spdlog::logger> logger,
                    unsigned linesPerSecond = kDefaultLinesPerSecond);

  // True when the logger takes trace lines now (the level may change at
  // any time: SIGHUP, `ibsm log-level`).
  bool enabled() const { return log_->should_log(spdlog::level::trace); }
  // Logs the entry, or counts it suppressed; call only when enabled().
  void record(const MadTraceEntry& entry, MadClock::time_point now);
  const MadTraceCounters& counters() const { return counters_; }

 private:
  std::shared_ptr<spdlog::logger> log_;
  unsigned linesPerSecond_;
  MadClock::time_point windowStart_{};
  unsigned linesInWindow_{0};
  std::uint64_t suppressedInWindow_{0};
  MadTraceCounters counters_;
};

}  // namespace ibsm
