// What the [section] key readers kept apart from Config.cpp share
// (MadOptions.cpp, SaQueueOptions.cpp): an integer key within a range, with
// the error naming file:line, the key and the range, and the apply hook
// that stores one (applyInt); and the line a key stands on, for the
// problems of keys that bound each other. Private to sm/config.
//
//   auto n = intIn(value, where, "mad.window", 1, 1024);
//   if (!n) return std::unexpected(n.error());   // "f.toml:3: expected mad.window to be ..."
#pragma once

#include <fmt/format.h>
#include <ibsm/Error.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "sm/config/Config.h"

namespace ibsm::sm::config {

// An integer key within [lo, hi], or the error naming file:line and range.
inline Result<std::uint32_t> intIn(const toml::node& v, const std::string& where,
                                   std::string_view key, std::int64_t lo, std::int64_t hi) {
  auto n = v.value<std::int64_t>();
  if (!n || *n < lo || *n > hi)
    return fail(fmt::format("{}: expected {} to be an integer from {} to {}", where, key, lo, hi));
  return static_cast<std::uint32_t>(*n);
}

// A key's name as a template argument ("mad.window").
template <std::size_t N>
struct KeyName {
  constexpr KeyName(const char (&s)[N]) { std::copy_n(s, N, text); }  // NOLINT: implicit
  constexpr std::string_view view() const { return {text, N - 1}; }
  char text[N]{};
};

// The OptionSpec apply hook of an integer key within [Lo, Hi] kept in
// config.*Section.*Field: one template for every such key, not a function
// each (MadOptions.cpp, SaQueueOptions.cpp).
//
//   {"mad.window", ..., applyInt<"mad.window", &Config::mad, &MadConfig::window, 1, 1024>}
template <KeyName Key, auto Section, auto Field, std::int64_t Lo, std::int64_t Hi>
Result<void> applyInt(Config& c, const toml::node& v, const std::string& where) {
  auto n = intIn(v, where, Key.view(), Lo, Hi);
  if (!n) return std::unexpected(n.error());
  auto& field = (c.*Section).*Field;
  field = static_cast<std::remove_cvref_t<decltype(field)>>(*n);
  return {};
}

// The line `path` ("section.key") stands on in the file, 0 when unset.
inline std::uint32_t lineOf(const toml::table& root, std::string_view path) {
  const auto node = root.at_path(path);
  return node ? static_cast<std::uint32_t>(node.node()->source().begin.line) : 0;
}

}  // namespace ibsm::sm::config
