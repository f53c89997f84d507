// The routing engines ibsm ships, and the registry that picks one by name.
// Names: "minhop", "updn", "ftree", "dragonfly", "auto" (dragonfly on a
// recognised dragonfly or dragonfly+, ftree on a fat tree, else updn).
#pragma once

#include <ibsm/Routing.h>

#include <memory>

namespace ibsm {

std::unique_ptr<RoutingEngine> makeMinHopEngine();
std::unique_ptr<RoutingEngine> makeUpDownEngine();
std::unique_ptr<RoutingEngine> makeFatTreeEngine();
std::unique_ptr<RoutingEngine> makeDragonflyEngine();
std::unique_ptr<RoutingEngine> makeAutoEngine();

EngineRegistry defaultRegistry();

}  // namespace ibsm
