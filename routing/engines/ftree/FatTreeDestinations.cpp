#include "routing/engines/ftree/FatTreeDestinations.h"

#include <algorithm>
#include <optional>

#include "routing/engines/ftree/FatTreeRails.h"

namespace ibsm::routing::ftree {

std::vector<Endpoint> computeOrder(const FatTreeLayout& layout, const SwitchGraph& graph,
                                   const Fabric& fabric, SwitchIndex leaf) {
  std::vector<Endpoint> out;
  std::vector<std::optional<HcaName>> names;
  const auto roles = layout.roles.of(leaf);
  const auto cas = graph.endpoints(leaf).subspan(1);
  for (std::size_t k = 0; k < cas.size(); ++k) {
    if (roles[k] != CaRole::Compute) continue;
    out.push_back(cas[k]);
    names.push_back(parseHcaName(fabric.node(cas[k].owner.node).description));
  }
  if (!std::ranges::all_of(names, [](const auto& n) { return n.has_value(); })) return out;
  std::vector<std::size_t> idx(out.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::ranges::stable_sort(idx, [&](std::size_t a, std::size_t b) {
    if (const auto c = naturalCompare(names[a]->host, names[b]->host); c != 0) return c < 0;
    return names[a]->index < names[b]->index;
  });
  std::vector<Endpoint> sorted;
  for (const std::size_t i : idx) sorted.push_back(out[i]);
  return sorted;
}

std::vector<Destination> caDestinations(const FatTreeLayout& layout, const SwitchGraph& graph,
                                        const Fabric& fabric) {
  std::vector<std::vector<Endpoint>> perLeaf;
  std::uint8_t lmc = 0;
  for (const SwitchIndex leaf : layout.leaves) {
    perLeaf.push_back(computeOrder(layout, graph, fabric, leaf));
    for (const Endpoint& e : perLeaf.back()) lmc = std::max(lmc, e.lmc);
  }
  std::vector<Destination> out;
  for (unsigned layer = 0; layer < (1u << lmc); ++layer)
    for (std::size_t l = 0; l < layout.leaves.size(); ++l)
      for (const Endpoint& e : perLeaf[l]) {
        if (e.base.value == 0 || layer >= (1u << e.lmc)) continue;
        out.push_back(Destination{Lid{static_cast<std::uint16_t>(e.base.value + layer)},
                                  layout.leaves[l], e.switchPort, static_cast<std::uint8_t>(layer),
                                  CaRole::Compute});
      }
  return out;
}

std::vector<Destination> otherDestinations(const FatTreeLayout& layout, const SwitchGraph& graph) {
  std::vector<Destination> out;
  for (SwitchIndex s = 0; s < graph.size(); ++s) {
    const auto roles = layout.roles.of(s);
    const auto cas = graph.endpoints(s).subspan(1);
    for (std::size_t k = 0; k < cas.size(); ++k) {
      const Endpoint& e = cas[k];
      if (roles[k] == CaRole::Compute || e.base.value == 0) continue;
      for (unsigned layer = 0; layer < (1u << e.lmc); ++layer)
        out.push_back(Destination{Lid{static_cast<std::uint16_t>(e.base.value + layer)}, s,
                                  e.switchPort, static_cast<std::uint8_t>(layer), roles[k]});
    }
  }
  return out;
}

}  // namespace ibsm::routing::ftree
