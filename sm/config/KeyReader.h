// What the [section] key readers kept apart from Config.cpp share
// (MadOptions.cpp, SaQueueOptions.cpp): an integer key within a range, with
// the error naming file:line, the key and the range; and the line a key
// stands on, for the problems of keys that bound each other. Private to
// sm/config.
//
//   auto n = intIn(value, where, "mad.window", 1, 1024);
//   if (!n) return std::unexpected(n.error());   // "f.toml:3: expected mad.window to be ..."
#pragma once

#include <fmt/format.h>
#include <ibsm/Error.h>
#include <toml++/toml.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace ibsm::sm::config {

// An integer key within [lo, hi], or the error naming file:line and range.
inline Result<std::uint32_t> intIn(const toml::node& v, const std::string& where,
                                   std::string_view key, std::int64_t lo, std::int64_t hi) {
  auto n = v.value<std::int64_t>();
  if (!n || *n < lo || *n > hi)
    return fail(fmt::format("{}: expected {} to be an integer from {} to {}", where, key, lo, hi));
  return static_cast<std::uint32_t>(*n);
}

// The line `path` ("section.key") stands on in the file, 0 when unset.
inline std::uint32_t lineOf(const toml::table& root, std::string_view path) {
  const auto node = root.at_path(path);
  return node ? static_cast<std::uint32_t>(node.node()->source().begin.line) : 0;
}

}  // namespace ibsm::sm::config
