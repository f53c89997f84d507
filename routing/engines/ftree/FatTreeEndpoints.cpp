#include "routing/engines/ftree/FatTreeEndpoints.h"

#include <algorithm>
#include <cctype>

namespace ibsm::routing::ftree {
namespace {

bool describesAggregationNode(std::string_view description) {
  constexpr std::string_view kName = "aggregation node";
  const auto it = std::ranges::search(description, kName, [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == b;
  });
  return !it.empty();
}

}  // namespace

std::uint8_t aggregationRule(const Fabric& fabric, const SwitchGraph& graph, SwitchIndex s,
                             const Endpoint& ca) {
  const Node& sw = fabric.node(graph.nodeId(s));
  const Node& node = fabric.node(ca.owner.node);
  std::uint8_t rule = kNotAn;
  if (ca.switchPort == sw.numPorts() && node.systemImageGuid.value != 0 &&
      node.systemImageGuid == sw.systemImageGuid)
    rule |= kInternalPort;
  if (describesAggregationNode(node.description)) rule |= kDescription;
  return rule;
}

CaRoles::CaRoles(const Fabric& fabric, const SwitchGraph& graph) : hosts_(graph.size(), 0) {
  first_.push_back(0);
  for (SwitchIndex s = 0; s < graph.size(); ++s) {
    for (const Endpoint& e : graph.endpoints(s).subspan(1)) {
      const std::uint8_t rule = aggregationRule(fabric, graph, s, e);
      role_.push_back(rule == kNotAn ? CaRole::Compute : CaRole::Aggregation);
      ++byRule[rule];
      hosts_[s] += rule == kNotAn;
    }
    first_.push_back(static_cast<std::uint32_t>(role_.size()));
  }
}

}  // namespace ibsm::routing::ftree
