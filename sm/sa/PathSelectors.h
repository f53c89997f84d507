// A PathRecord query's selectors (IBA 15.2.5.16: MTU, rate and
// PacketLifeTime, each "greater", "less", "exactly" or "best") applied to
// the path the routes offer (PathSelectors.cpp, with the rate codes of
// PathRecords.h); for findPaths (PathRecords.cpp).
#pragma once

#include "sm/sa/PathRecords.h"

namespace ibsm::sm::sa {

// False when the path cannot satisfy the query's selectors; else `pr`
// holds what it answers ("less" and "exactly" lower what the path offers).
[[nodiscard]] bool applySelectors(const PathQuery& q, PathRecord& pr);

}  // namespace ibsm::sm::sa
