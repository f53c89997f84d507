// Where each switch goes, by the structure the routing engines recognise:
// the fat tree's levels (ftree's own level detection and canonical order,
// leaves at the bottom), the dragonfly's groups around a circle, or rings of
// BFS distance from a centre for anything else. Private to routing/draw.
#pragma once

#include <ibsm/Fabric.h>

#include <string>
#include <vector>

#include "routing/draw/Layout.h"

namespace ibsm::draw {

// A host summary's box beside a switch whose label runs across ("12 hosts").
inline constexpr double kHostsBoxWidth = 58.0;

struct Placed {
  NodeId node{0};
  Point at;
  Point out;  // unit direction in which its host summary hangs
  std::uint32_t tier{0};
};

struct Placement {
  Arrangement arrangement{Arrangement::Distance};
  std::string shape;
  std::vector<Placed> switches;  // every switch of the fabric once
  double boxWidth{0};
  double boxHeight{0};
};

// The name a switch is drawn and found by: its description, else its GUID.
std::string switchName(const Node& node);

Placement placeSwitches(const Fabric& fabric);

// Placement helpers, one per arrangement; nullopt when the fabric lacks the shape.
std::optional<Placement> placeByLevels(const Fabric& fabric);
std::optional<Placement> placeByGroups(const Fabric& fabric);
Placement placeByDistance(const Fabric& fabric);

// The box that fits the longest name on one line.
double boxWidthFor(const Fabric& fabric, const std::vector<NodeId>& switches);

}  // namespace ibsm::draw
