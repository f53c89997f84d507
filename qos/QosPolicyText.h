// Internal to qos/: the value syntax of qos-policy.conf that every section
// shares -- numbers (decimal or 0x hex), ranges "a-b", comma lists -- so the
// section parser (QosPolicyFile.cpp) and the qos-ulps lines (QosUlps.cpp)
// read values alike. Each reader returns nullopt on anything it does not
// take; the caller words the error, since only it knows what was expected.
#pragma once

#include <ibsm/QosPolicy.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ibsm::qos::text {

std::string_view trim(std::string_view s);

// "a, b ,c" -> {"a","b","c"}; an empty item (",,") is kept as "" so the
// caller can reject it.
std::vector<std::string_view> splitList(std::string_view s, char sep = ',');

// Decimal or 0x hex, at most `max`.
std::optional<std::uint64_t> number(std::string_view s, std::uint64_t max);

// "7-9, 11, 0x10 - 0x1f": every value at most `max`, first <= last.
std::optional<std::vector<Range<std::uint64_t>>> ranges(std::string_view s, std::uint64_t max);

template <typename T>
std::optional<std::vector<Range<T>>> rangesOf(std::string_view s, std::uint64_t max) {
  auto wide = ranges(s, max);
  if (!wide) return std::nullopt;
  std::vector<Range<T>> out;
  for (const auto& r : *wide) out.push_back({static_cast<T>(r.first), static_cast<T>(r.last)});
  return out;
}

// "0:4, 1:64": VL at most 15, weight at most 255.
std::optional<std::vector<VlWeight>> vlWeights(std::string_view s);

// Case-insensitive equality, for the words OpenSM reads in any case
// (node types, ULP names).
bool sameWord(std::string_view a, std::string_view b);

}  // namespace ibsm::qos::text
