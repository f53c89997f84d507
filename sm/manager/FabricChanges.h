// What changed between two sweeps, in words an operator reads in the log:
// nodes that came or went, cables lost or gained. Pure.
#pragma once

#include <ibsm/Fabric.h>

#include <string>
#include <vector>

namespace ibsm::sm::manager {

std::vector<std::string> describeChanges(const Fabric& before, const Fabric& after);

}  // namespace ibsm::sm::manager
