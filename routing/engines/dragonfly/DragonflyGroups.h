// The groups of a dragonfly (a full mesh of local links in each group, no
// layers) found in the cabling that remains after cables fail, so that a
// group whose mesh lost cables is still one group and the dragonfly engine
// keeps routing it instead of handing the fabric to updn.
//
// 1. Seeds: per router, the largest clique among its switch neighbours,
//    joined by union-find. An intact group is one seed of a routers; global
//    links close triangles only by accident, never cliques that large.
// 2. The group size a is the largest seed. Seeds of a routers are groups,
//    and every cable from them to another seed is global: their groups are
//    full. What remains (seeds short of a, routers in no clique: a group of
//    4 that lost two opposite cables is a 4-cycle without a triangle) joins
//    along the cables among itself, strongest ties first (cables on 4-cycles
//    of the remainder, the way a mesh with holes is still knit), never past
//    a routers.
// 3. A part still short of a routers and cabled to no other short part
//    (a router that lost every local cable) joins the short part whose
//    global links complement its own: a dragonfly links each group pair,
//    so the two together reach each other group, ideally once. Where two
//    parts would do equally well the first is taken: such a router reaches
//    its group through other groups whichever group it is counted in.
// Whatever is then not a routers is reported as groups that differ.
#pragma once

#include <ibsm/Error.h>
#include <ibsm/Fabric.h>

#include <cstdint>
#include <vector>

#include "routing/engines/dragonfly/DragonflyCabling.h"

namespace ibsm::routing::dragonfly {

struct MeshGroups {
  std::vector<std::uint32_t> group;  // by switch index, numbered by first switch
  std::uint32_t count{0};
};

[[nodiscard]] Result<MeshGroups> findMeshGroups(const Fabric& f, const SwitchGraph& g,
                                                const Neighbours& nb);

}  // namespace ibsm::routing::dragonfly
