// The two phases of routeDragonfly (DragonflyRoutes.h). First every group
// plans its own switches' entries toward every LID, LID by LID, balancing
// loads on its own ports: a group's choices read only its own loads and
// entries, so groups are planned independently (in parallel) and the tables
// are those of planning them one after another. Then, LID by LID (in
// parallel), the hops are measured along the entries, switches the pattern
// left without a route join the routes breadth first, and detours are
// counted. Either phase gives the same tables on any number of threads.
#pragma once

#include <ibsm/Dragonfly.h>

#include <cstdint>
#include <cstring>

#include "routing/engines/dragonfly/DragonflyGroupIndex.h"
#include "routing/engines/dragonfly/DragonflyRoutes.h"

namespace ibsm::routing::dragonfly {

// Fills tables.out (every switch's entry toward every LID; kNoRoute where
// the pattern gives none) from tables.targets.
// A group's row of a few dozen bytes, a word at a time: a copy of a size
// known only at run time would be a library call per LID.
inline void copyRow(const std::uint8_t* from, std::size_t bytes, std::uint8_t* to) {
  std::size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    std::uint64_t word;
    std::memcpy(&word, from + i, 8);
    std::memcpy(to + i, &word, 8);
  }
  for (; i < bytes; ++i) to[i] = from[i];
}

void planGroups(const SwitchGraph& graph, const DragonflyShape& shape, const PortMap& ports,
                const GroupIndex& gi, DragonflyTables& tables, unsigned threads);

// Fills tables.len, extends the routes to unrouted switches, counts detours.
void extendRoutes(const SwitchGraph& graph, const DragonflyShape& shape, const PortMap& ports,
                  const GroupIndex& gi, DragonflyTables& tables, unsigned threads);

}  // namespace ibsm::routing::dragonfly
