// What the text dump readers (sl2vl.dump, pair-sls) share: a line split into
// its words, and a word read as a whole number.
#pragma once

#include <charconv>
#include <string_view>
#include <system_error>
#include <vector>

namespace ibsm::analysis {

// The whitespace-separated words of a line (a trailing '\r' is whitespace).
inline std::vector<std::string_view> dumpWords(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

// The whole word as a number in `base`; false if any of it is not.
template <typename T>
bool dumpNumber(std::string_view text, T& value, int base = 10) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  return ec == std::errc{} && end == text.data() + text.size();
}

// The same, hexadecimal when the word starts with "0x".
template <typename T>
bool dumpNumberOrHex(std::string_view text, T& value) {
  if (text.starts_with("0x")) return dumpNumber(text.substr(2), value, 16);
  return dumpNumber(text, value);
}

}  // namespace ibsm::analysis
