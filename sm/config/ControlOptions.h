// The control socket's access keys of the option table (Config.cpp):
// sm.control_group and sm.control_timeout_ms, kept apart so that who may
// use the socket reads together. Private to sm/config.
#pragma once

#include <span>

#include "sm/config/Config.h"

namespace ibsm::sm::config {

std::span<const OptionSpec> controlOptions();

}  // namespace ibsm::sm::config
