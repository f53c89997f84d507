// The [qos] keys of the option table (Config.cpp): opensm.conf's qos_*
// options under the same names less the prefix, in the same value syntax
// (qos.vlarb_high = "0:4,1:0,..."). Private to sm/config.
#pragma once

#include <span>

#include "sm/config/Config.h"

namespace ibsm::sm::config {

std::span<const OptionSpec> qosOptions();

}  // namespace ibsm::sm::config
