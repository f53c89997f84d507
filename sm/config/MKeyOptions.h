// The M_Key keys of [sm] (issue 29) in the option table (Config.cpp), kept
// apart so that the keys of one feature read together, and the parser of a
// 64-bit key value that sm.sm_key shares. Private to sm/config.
#pragma once

#include <optional>
#include <span>

#include "sm/config/Config.h"

namespace ibsm::sm::config {

std::span<const OptionSpec> mKeyOptions();

// A 64-bit key as operators write one: a hex string ("0x00000000000000ff"),
// or a non-negative TOML integer (TOML's stop at 2^63-1).
std::optional<std::uint64_t> key64(const toml::node& value);

}  // namespace ibsm::sm::config
