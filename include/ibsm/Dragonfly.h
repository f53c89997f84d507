// What a dragonfly looks like to ibsm, recognised from the cabling alone, so
// that the same code serves a discovered fabric and a topology file. The
// dragonfly engine routes by it; the route report prints it in its notes.
//
//   auto shape = recogniseDragonfly(fabric);
//   if (shape) fmt::print("{}\n", describe(*shape));   // groups, routers, links
//   else       fmt::print("not a dragonfly: {}\n", shape.error().message);
//
// Dragonfly (Kim et al. 2008): groups of routers, each group a full mesh of
// local links, every router with hosts and global links to other groups.
// Dragonfly+ (Shpiner et al. 2017): each group a two-level Clos of leaves
// (the switches with hosts) and spines, global links only between spines.
#pragma once

#include <ibsm/Error.h>
#include <ibsm/Fabric.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ibsm {

inline constexpr std::uint32_t kNoGroup = ~std::uint32_t{0};

enum class DragonflyKind : std::uint8_t { Dragonfly, DragonflyPlus };
// Router: a dragonfly switch; Leaf/Spine: the two layers of a dragonfly+ group.
enum class DragonflyRole : std::uint8_t { None, Router, Leaf, Spine };

struct MinMax {
  std::uint32_t min{0};
  std::uint32_t max{0};
};

// A cable the recognition finds missing, by its ends as far as the cabling
// tells. Local: two routers (a leaf and a spine) of one group not cabled to
// each other. Global: inferred from a group pair with fewer cables than the
// others get and from switches with fewer global links than the others; an
// end it cannot tell is nullopt (groupB kNoGroup when not even its group).
struct MissingCable {
  std::uint32_t groupA{kNoGroup};
  std::uint32_t groupB{kNoGroup};
  std::optional<NodeId> a;
  std::optional<NodeId> b;
};

struct DragonflyShape {
  DragonflyKind kind{DragonflyKind::Dragonfly};
  std::vector<std::uint32_t> groupOf;  // index = NodeId; kNoGroup for CAs and routers
  std::vector<DragonflyRole> roleOf;   // index = NodeId
  std::uint32_t groups{0};
  std::uint32_t switchesPerGroup{0};        // routers (dragonfly), leaves + spines (dragonfly+)
  std::uint32_t leavesPerGroup{0};          // dragonfly+ only
  MinMax hostsPerSwitch;                    // per router, or per leaf
  MinMax globalsPerSwitch;                  // per router, or per spine
  MinMax globalsPerGroupPair;               // parallel global cables between two groups
  std::uint64_t missingLocalLinks{0};       // router pairs (leaf-spine pairs) of a group not cabled
  std::uint64_t unlinkedGroupPairs{0};      // group pairs with no global cable between them
  std::vector<MissingCable> missingLocal;   // missingLocalLinks of them, both ends named
  std::vector<MissingCable> missingGlobal;  // as inferred
  // Routers with no local cable left, placed in a group by their global links.
  std::vector<NodeId> stranded;
};

// Fails, saying why, when the fabric is neither shape: no groups of three or
// more densely cabled routers, groups of different sizes, a dragonfly+ leaf
// cabled to another leaf or to a spine of another group, and so on. A group
// that lost local cables is still recognised from the cabling that remains
// (see routing/engines/dragonfly/DragonflyGroups.h).
[[nodiscard]] Result<DragonflyShape> recogniseDragonfly(const Fabric& fabric);

// One line for notes and logs: "dragonfly: 9 groups of 4 routers, 2 hosts and
// 2 global links per router, 1 global link per group pair, 0 missing links".
std::string describe(const DragonflyShape& shape);

// Notes naming every missing local cable (router pair), every inferred
// missing global link and every stranded router; none on a full fabric.
std::vector<std::string> missingCableNotes(const Fabric& fabric, const DragonflyShape& shape);

}  // namespace ibsm
