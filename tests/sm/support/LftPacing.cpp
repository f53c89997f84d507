#include "tests/sm/support/LftPacing.h"

#include <ibsm/MadAttributes.h>
#include <spdlog/logger.h>

#include <algorithm>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "sm/mad/MadEngine.h"
#include "tests/sm/support/FakeFabricTransport.h"

namespace ibsm::testing {
namespace {

// A directed route from the SM's CA to every switch, breadth first.
std::vector<std::pair<NodeId, DrPath>> routesToSwitches(const Fabric& fabric, PortRef sm) {
  std::vector<std::optional<DrPath>> route(fabric.size());
  std::vector<std::pair<NodeId, DrPath>> found;
  std::deque<NodeId> next;
  const auto& first = fabric.port(sm).remote;
  if (!first) return found;
  route[first->node] = *DrPath::fromPorts(std::vector<std::uint8_t>{sm.port});
  next.push_back(first->node);
  while (!next.empty()) {
    const NodeId n = next.front();
    next.pop_front();
    found.emplace_back(n, *route[n]);
    const Node& node = fabric.node(n);
    for (std::uint8_t p = 1; p <= node.numPorts(); ++p) {
      const auto& remote = node.ports[p].remote;
      if (!remote || route[remote->node] || !fabric.node(remote->node).isSwitch()) continue;
      route[remote->node] = *route[n]->extended(p);
      next.push_back(remote->node);
    }
  }
  return found;
}

}  // namespace

LftPass runLftPass(const Fabric& fabric, const LftPassSpec& spec) {
  const PortRef sm{fabric.endNodes().front(), 1};
  FakeFabricTransport wire(fabric, sm);
  wire.setServiceTimes({.switchSmp = spec.service, .caSmp = spec.service});
  MadEngineOptions o;
  o.window = spec.window;
  o.perNodeWindow = spec.perNodeWindow;
  o.clock = wire.clock();
  o.logger = std::make_shared<spdlog::logger>("lft-pacing");  // no sinks: quiet
  MadEngine engine(wire, o);

  // A LID for every switch and CA port, and the blocks that hold them.
  const std::size_t lids = fabric.size() + 1;
  const auto blocks = spec.blocksPerSwitch != 0
                          ? spec.blocksPerSwitch
                          : static_cast<std::uint32_t>((lids + kLftBlockSize - 1) / kLftBlockSize);
  const auto routes = routesToSwitches(fabric, sm);
  LftPass pass;
  pass.switches = routes.size();
  SmpData data{};
  auto submit = [&](const DrPath& path, std::uint32_t b) {
    engine.submit(SmpRequest::set(AttributeId::LinearForwardingTable, b, path, data),
                  [&pass](const SmpRequest&, const SmpReply& r) { pass.answered += r.ok(); });
    ++pass.blocks;
  };
  if (spec.roundRobin) {
    for (std::uint32_t b = 0; b < blocks; ++b)
      for (const auto& [sw, path] : routes) submit(path, b);
  } else {
    for (const auto& [sw, path] : routes)
      for (std::uint32_t b = 0; b < blocks; ++b) submit(path, b);
  }
  const auto start = wire.now();
  if (!engine.runUntilIdle()) return pass;
  pass.took = std::chrono::duration_cast<std::chrono::microseconds>(wire.now() - start);
  pass.sent = engine.counters().sent;
  pass.retries = engine.counters().retries;
  pass.deepestQueue = wire.sma().deepestQueue();
  const auto& perNode = wire.sma().smpsPerNode();
  pass.busiestSmps = perNode.empty() ? 0 : *std::ranges::max_element(perNode);
  pass.busiestBound = spec.service * static_cast<std::int64_t>(blocks);  // each switch's
  const std::size_t perNodeCap =
      spec.perNodeWindow == 0 ? spec.window : pass.switches * spec.perNodeWindow;
  const std::size_t busy = std::max<std::size_t>(1, std::min(spec.window, perNodeCap));
  pass.spreadBound =
      spec.service * static_cast<std::int64_t>(pass.blocks) / static_cast<std::int64_t>(busy);
  const std::size_t perSwitch = spec.perNodeWindow == 0 ? 1 : spec.perNodeWindow;
  const std::size_t smas =
      std::max<std::size_t>(1, std::min(pass.switches, (spec.window + perSwitch - 1) / perSwitch));
  pass.smaBound =
      spec.service * static_cast<std::int64_t>(pass.blocks) / static_cast<std::int64_t>(smas);
  return pass;
}

}  // namespace ibsm::testing
