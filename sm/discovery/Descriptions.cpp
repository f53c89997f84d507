#include "sm/discovery/Descriptions.h"

namespace ibsm::sm::discovery {

KnownDescriptions knownDescriptions(const DiscoveredSubnet& subnet) {
  KnownDescriptions known;
  for (const Node& n : subnet.fabric.nodes())
    if (!n.description.empty()) known.emplace(n.guid, n.description);
  return known;
}

Result<DescriptionsRead> readDescriptions(MadEngine& engine, const DiscoveredSubnet& subnet,
                                          std::span<const NodeId> nodes) {
  DescriptionsRead read;
  for (const NodeId node : nodes) {
    if (node >= subnet.pathTo.size()) continue;
    ++read.asked;
    engine.submit(SmpRequest::get(AttributeId::NodeDescription, 0, subnet.pathTo[node]),
                  [&read, &subnet, node](const SmpRequest&, const SmpReply& reply) {
                    if (!reply.ok()) {
                      ++read.failed;
                      return;
                    }
                    std::string text = decodeNodeDescription(reply.smp->data).text;
                    if (text != subnet.fabric.node(node).description)
                      read.changed.emplace_back(node, std::move(text));
                  });
  }
  // Every callback has run when this returns, failed or not (MadEngine.h).
  if (auto idle = engine.runUntilIdle(); !idle) return std::unexpected(idle.error());
  return read;
}

}  // namespace ibsm::sm::discovery
