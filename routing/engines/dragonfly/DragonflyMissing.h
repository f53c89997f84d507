// Which cables a recognised dragonfly lacks, so that the report names them
// for the operator instead of counting them: a route that detours around a
// missing cable should say which cable it goes around.
#pragma once

#include <ibsm/Dragonfly.h>

#include <cstdint>
#include <vector>

#include "routing/engines/dragonfly/DragonflyCabling.h"

namespace ibsm::routing::dragonfly {

// Fills shape.missingLocal, missingGlobal and stranded from the groups and
// roles (by switch index) and the cable counts summarise() left in shape.
void findMissingCables(const SwitchGraph& g, const Neighbours& nb,
                       const std::vector<std::uint32_t>& group,
                       const std::vector<DragonflyRole>& role, DragonflyShape& shape);

}  // namespace ibsm::routing::dragonfly
