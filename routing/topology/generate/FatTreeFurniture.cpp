#include "routing/topology/generate/FatTreeFurniture.h"

#include <fmt/format.h>

#include <algorithm>

namespace ibsm::topogen {

void addIoHosts(NetBuilder& net, const FatTreeSpec& spec, const LevelSwitches& levels) {
  // By level, so the order the options came in changes nothing.
  std::vector<IoHosts> byLevel = spec.ioHosts;
  std::ranges::sort(byLevel, {}, &IoHosts::level);
  for (const IoHosts& io : byLevel) {
    const auto& switches = levels.at(static_cast<std::size_t>(io.level));
    const auto n = static_cast<int>(switches.size());
    for (int i = 0; i < io.count; ++i) {
      const NetNode host = net.addHca(fmt::format("io{}_{}", io.level, i));
      net.cable({switches[static_cast<std::size_t>(i % n)], spec.radix + 1 + i / n}, {host, 1});
    }
  }
}

void addAggregationNodes(NetBuilder& net) {
  const std::size_t nodes = net.nodeCount();  // the switches, before any node is added
  std::uint64_t index = 0;
  for (NetNode sw = 0; sw < nodes; ++sw) {
    if (!net.isSwitch(sw)) continue;
    const NetNode node =
        net.addHca(fmt::format("{} {}", kAggregationNodeDescription, net.name(sw)));
    net.cable({sw, net.ports(sw)}, {node, 1});
    const std::uint64_t image = kAggregationImageGuidBase + index++;
    net.setSystemImageGuid(sw, image);
    net.setSystemImageGuid(node, image);
  }
}

}  // namespace ibsm::topogen
