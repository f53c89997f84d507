// The records a snapshot serves, made once when it is built: one table per
// attribute, each record encoded as the wire carries it.
#pragma once

#include <cstdint>
#include <map>

#include "sm/sa/SaSubnet.h"

namespace ibsm::sm::sa {

// From `subnet`'s fabric, tables and LIDs (already set) and what `source`
// adds (the PortInfo and SwitchInfo the devices hold, the SM's SMInfo).
std::map<std::uint16_t, RecordTable> buildRecords(const SaSource& source, const SaSubnet& subnet);

}  // namespace ibsm::sm::sa
