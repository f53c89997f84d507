#include <ibsm/FatTree.h>

#include "routing/engines/ftree/FatTreeDestinations.h"
#include "routing/engines/ftree/FatTreeLayout.h"
#include "routing/engines/ftree/FatTreeReach.h"
#include "routing/graph/SwitchGraph.h"

namespace ibsm {

Result<FatTreeShape> recogniseFatTree(const Fabric& fabric, const std::vector<Guid>& rootGuids) {
  const routing::SwitchGraph graph(fabric);
  const auto layout = routing::ftree::layoutFatTree(fabric, graph, rootGuids);
  if (!layout) return std::unexpected(layout.error());
  FatTreeShape shape;
  shape.rankedFromRoots = layout->fromRoots;
  for (const auto& level : layout->byHeight) {
    auto& ids = shape.levels.emplace_back();
    for (const routing::SwitchIndex s : level) ids.push_back(graph.nodeId(s));
  }
  for (const auto& d : routing::ftree::caDestinations(*layout, graph)) {
    if (d.layer != 0) break;
    shape.caOrder.push_back(*fabric.port({graph.nodeId(d.leaf), d.port}).remote);
  }
  shape.completeAndRegular =
      routing::ftree::completeAndRegular(*layout, routing::ftree::FatTreeReach(*layout));
  return shape;
}

}  // namespace ibsm
