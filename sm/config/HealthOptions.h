// The [health] keys of the option table (Config.cpp), kept apart so that
// the health book's options read together. Private to sm/config.
#pragma once

#include <span>

#include "sm/config/Config.h"

namespace ibsm::sm::config {

std::span<const OptionSpec> healthOptions();

}  // namespace ibsm::sm::config
