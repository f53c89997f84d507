// The routing engines ibsm ships, and the registry that picks one by name.
// Names: "minhop", "updn", "ftree", "ftree-vl" (ftree with the pairs
// apart on the fewest hops over a second VL), "dragonfly", "sssp" (balanced shortest
// paths on VL layers), "auto" (dragonfly on a recognised dragonfly or
// dragonfly+ unless sssp spreads it better, ftree on a fat tree, else sssp,
// else updn; see AutoEngine.cpp).
#pragma once

#include <ibsm/Routing.h>

#include <memory>

namespace ibsm {

std::unique_ptr<RoutingEngine> makeMinHopEngine();
std::unique_ptr<RoutingEngine> makeUpDownEngine();
std::unique_ptr<RoutingEngine> makeFatTreeEngine();
std::unique_ptr<RoutingEngine> makeFatTreeVlEngine();
std::unique_ptr<RoutingEngine> makeDragonflyEngine();
std::unique_ptr<RoutingEngine> makeSsspEngine();
std::unique_ptr<RoutingEngine> makeAutoEngine();

EngineRegistry defaultRegistry();

}  // namespace ibsm
