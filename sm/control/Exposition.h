// Prometheus' text exposition format 0.0.4, written right by construction:
// each family's HELP and TYPE once, before its samples; label values and
// help text escaped; numbers a scraper parses. What the metrics say is in
// Metrics.cpp; this only keeps the format.
//
//   Exposition e;
//   e.family("ibsm_isolated_links", MetricType::Gauge, "Links the SM isolated.");
//   e.sample({}, std::uint64_t{2});
//   e.family("ibsm_unhealthy", MetricType::Gauge, "Unhealthy ports and links.");
//   e.sample({{"condition", "errors"}}, std::uint64_t{1});
//   std::string text = e.text();
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace ibsm::sm::control {

enum class MetricType : std::uint8_t { Counter, Gauge };

struct MetricLabel {
  std::string_view name;  // [a-zA-Z_][a-zA-Z0-9_]*: the writer's own names
  std::string value;      // anything: escaped when written
};

class Exposition {
 public:
  // Starts a family: its samples follow, until the next family. A name may
  // start one family only (asserted: the format forbids two).
  void family(std::string_view name, MetricType type, std::string_view help);
  void sample(const std::vector<MetricLabel>& labels, double value);
  // Integers as integers: a 64-bit counter past 2^53 keeps every digit.
  void sample(const std::vector<MetricLabel>& labels, std::uint64_t value);

  const std::string& text() const { return text_; }

 private:
  void line(const std::vector<MetricLabel>& labels, std::string_view value);

  std::string text_;
  std::string current_;
  std::set<std::string, std::less<>> started_;
};

// Backslash, double quote and newline escaped, as the format asks of label values.
std::string escapeLabelValue(std::string_view value);
// Backslash and newline escaped, as the format asks of HELP text.
std::string escapeHelp(std::string_view help);
// A float as the format reads it: shortest round-trip digits, NaN, +Inf, -Inf.
std::string metricNumber(double value);

}  // namespace ibsm::sm::control
