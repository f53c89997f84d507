// The shared value syntax of qos-policy.conf (see QosPolicyText.h).
#include "qos/QosPolicyText.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace ibsm::qos::text {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> splitList(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  while (true) {
    const auto at = s.find(sep);
    out.push_back(trim(s.substr(0, at)));
    if (at == std::string_view::npos) break;
    s.remove_prefix(at + 1);
  }
  return out;
}

std::optional<std::uint64_t> number(std::string_view s, std::uint64_t max) {
  s = trim(s);
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  if (s.empty()) return std::nullopt;
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc{} || end != s.data() + s.size() || v > max) return std::nullopt;
  return v;
}

std::optional<std::vector<Range<std::uint64_t>>> ranges(std::string_view s, std::uint64_t max) {
  std::vector<Range<std::uint64_t>> out;
  for (auto item : splitList(s)) {
    const auto dash = item.find('-');
    auto first = number(item.substr(0, dash), max);
    auto last = dash == std::string_view::npos ? first : number(item.substr(dash + 1), max);
    if (!first || !last || *first > *last) return std::nullopt;
    out.push_back({*first, *last});
  }
  return out;
}

std::optional<std::vector<VlWeight>> vlWeights(std::string_view s) {
  std::vector<VlWeight> out;
  for (auto item : splitList(s)) {
    const auto colon = item.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    auto vl = number(item.substr(0, colon), 15);
    auto weight = number(item.substr(colon + 1), 255);
    if (!vl || !weight) return std::nullopt;
    out.push_back({static_cast<std::uint8_t>(*vl), static_cast<std::uint8_t>(*weight)});
  }
  return out;
}

bool sameWord(std::string_view a, std::string_view b) {
  return std::ranges::equal(a, b, [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

}  // namespace ibsm::qos::text
