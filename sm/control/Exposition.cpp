#include "sm/control/Exposition.h"

#include <fmt/format.h>

#include <cassert>
#include <cmath>

namespace ibsm::sm::control {

std::string escapeLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string escapeHelp(std::string_view help) {
  std::string out;
  out.reserve(help.size());
  for (char c : help) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string metricNumber(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", value);  // shortest form that reads back the same double
}

void Exposition::family(std::string_view name, MetricType type, std::string_view help) {
  [[maybe_unused]] const bool fresh = started_.emplace(name).second;
  assert(fresh && "a metric family is written once");
  current_ = std::string(name);
  text_ += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, escapeHelp(help), name,
                       type == MetricType::Counter ? "counter" : "gauge");
}

void Exposition::sample(const std::vector<MetricLabel>& labels, double value) {
  line(labels, metricNumber(value));
}

void Exposition::sample(const std::vector<MetricLabel>& labels, std::uint64_t value) {
  line(labels, std::to_string(value));
}

void Exposition::line(const std::vector<MetricLabel>& labels, std::string_view value) {
  assert(!current_.empty() && "a sample belongs to a family");
  text_ += current_;
  if (!labels.empty()) {
    text_ += '{';
    for (std::size_t i = 0; i < labels.size(); ++i)
      text_ += fmt::format("{}{}=\"{}\"", i ? "," : "", labels[i].name,
                           escapeLabelValue(labels[i].value));
    text_ += '}';
  }
  text_ += fmt::format(" {}\n", value);
}

}  // namespace ibsm::sm::control
