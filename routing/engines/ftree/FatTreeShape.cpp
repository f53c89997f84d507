#include <ibsm/FatTree.h>

#include "routing/engines/ftree/FatTreeDestinations.h"
#include "routing/engines/ftree/FatTreeLayout.h"
#include "routing/engines/ftree/FatTreeReach.h"
#include "routing/engines/ftree/FatTreeRecognition.h"
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
  for (const auto& d : routing::ftree::caDestinations(*layout, graph, fabric)) {
    if (d.layer != 0) break;
    shape.caOrder.push_back(*fabric.port({graph.nodeId(d.leaf), d.port}).remote);
  }
  for (const routing::SwitchIndex leaf : layout->leaves) shape.leaves.push_back(graph.nodeId(leaf));
  for (routing::SwitchIndex s = 0; s < graph.size(); ++s) {
    const auto roles = layout->roles.of(s);
    const auto cas = graph.endpoints(s).subspan(1);
    for (std::size_t k = 0; k < cas.size(); ++k) {
      if (roles[k] == routing::ftree::CaRole::Aggregation)
        shape.aggregationNodes.push_back(cas[k].owner);
      if (roles[k] == routing::ftree::CaRole::Upper) shape.upperCas.push_back(cas[k].owner);
    }
  }
  shape.rails = routing::ftree::findRails(fabric, graph, *layout).count;
  shape.unevenLeaves = layout->unevenLeaves;
  shape.completeAndRegular =
      routing::ftree::completeAndRegular(*layout, routing::ftree::FatTreeReach(*layout));
  return shape;
}

}  // namespace ibsm
