#include "sm/health/Thresholds.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <optional>
#include <string>

#include "sm/files/FileIo.h"

namespace ibsm::sm::health {
namespace {

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

std::string expectedNames() {
  std::string names;
  for (std::size_t i = 0; i < kThresholdCounterCount; ++i)
    names += fmt::format("{}{}", i == 0 ? "" : ", ", counterName(counterAt(i)));
  return names;
}

// As ibqueryerrors reads it (strtoul, base 0): decimal, 0x hex, 0 octal;
// but all of it must be the number.
std::optional<std::uint64_t> parseNumber(std::string_view text) {
  const std::string s{trim(text)};
  if (s.empty() || s.front() == '-' || s.front() == '+') return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(s.c_str(), &end, 0);
  if (errno != 0 || end != s.c_str() + s.size()) return std::nullopt;
  return value;
}

struct Line {
  Counter counter;
  std::uint64_t value;
};

Result<Line> parseLine(std::string_view line, std::string_view file, std::size_t number) {
  const auto eq = line.find('=');
  if (eq == std::string_view::npos)
    return std::unexpected(Error::at(file, number, "expected CounterName=value"));
  const std::string_view name = line.substr(0, eq);
  if (trim(name) != name)
    return std::unexpected(Error::at(
        file, number,
        fmt::format("'{}': no spaces around the name (ibqueryerrors would skip this line)",
                    trim(name))));
  const auto counter = counterNamed(name);
  if (!counter || index(*counter) >= kThresholdCounterCount)
    return std::unexpected(
        Error::at(file, number,
                  fmt::format("unknown counter '{}': expected one of {}", name, expectedNames())));
  const auto value = parseNumber(line.substr(eq + 1));
  if (!value)
    return std::unexpected(
        Error::at(file, number,
                  fmt::format("{}: expected a number (decimal, or 0x hex), got '{}'", name,
                              trim(line.substr(eq + 1)))));
  return Line{*counter, *value};
}

}  // namespace

Result<Thresholds> parseThresholds(std::string_view text, std::string_view fileName) {
  Thresholds t;
  std::array<std::size_t, kThresholdCounterCount> setOn{};  // line numbers, 0 = not set
  std::size_t number = 0;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    const std::string_view raw = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    ++number;
    const std::string_view content = trim(raw);
    if (content.empty() || content.front() == '#') continue;
    // Leading blanks stay, for parseLine to refuse; trailing ones are dropped.
    auto parsed = parseLine(
        raw.substr(0, static_cast<std::size_t>(content.data() - raw.data()) + content.size()),
        fileName, number);
    if (!parsed) return std::unexpected(parsed.error());
    const std::size_t i = index(parsed->counter);
    if (setOn[i] != 0)
      return std::unexpected(Error::at(
          fileName, number,
          fmt::format("{} set again (first on line {})", counterName(parsed->counter), setOn[i])));
    setOn[i] = number;
    t.limit[i] = parsed->value;
  }
  return t;
}

Result<Thresholds> loadThresholds(const std::filesystem::path& path) {
  auto text = files::readFile(path);
  if (!text) return std::unexpected(text.error());
  return parseThresholds(*text, path.string());
}

std::vector<Counter> exceeds(const Thresholds& thresholds, const CounterTotals& totals) {
  std::vector<Counter> over;
  for (std::size_t i = 0; i < kThresholdCounterCount; ++i)
    if (totals[i].value > thresholds.limit[i]) over.push_back(counterAt(i));
  return over;
}

std::vector<Counter> exceeds(const Thresholds& thresholds, const PerCounter<double>& perHour) {
  std::vector<Counter> over;
  for (std::size_t i = 0; i < kThresholdCounterCount; ++i)
    if (perHour[i] > static_cast<double>(thresholds.limit[i])) over.push_back(counterAt(i));
  return over;
}

}  // namespace ibsm::sm::health
