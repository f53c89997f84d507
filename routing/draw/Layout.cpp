#include "routing/draw/Layout.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

#include "routing/draw/Placement.h"

namespace ibsm::draw {
namespace {

constexpr double kMargin = 40.0;
constexpr double kHeader = 110.0;  // title and legend above the fabric
constexpr double kHostGap = 16.0;

struct Builder {
  const Fabric& fabric;
  Layout layout;
  std::unordered_map<NodeId, std::size_t> boxOf;
  std::map<std::pair<std::size_t, std::size_t>, std::size_t> bundleOf;

  void addSwitches(const Placement& placed) {
    layout.arrangement = placed.arrangement;
    layout.shape = placed.shape;
    layout.boxWidth = placed.boxWidth;
    layout.boxHeight = placed.boxHeight;
    const bool upright = placed.boxWidth < placed.boxHeight;
    layout.hostsWidth = upright ? placed.boxWidth : kHostsBoxWidth;
    layout.hostsHeight = upright ? 58.0 : 16.0;
    for (const Placed& p : placed.switches) {
      const Node& node = fabric.node(p.node);
      std::set<NodeId> hosts;
      for (const Port& port : node.ports)
        if (port.remote && !fabric.node(port.remote->node).isSwitch())
          hosts.insert(port.remote->node);
      // Far enough along `out` that the two boxes clear each other, no further.
      const double offset = std::abs(p.out.x) * (placed.boxWidth + layout.hostsWidth) / 2 +
                            std::abs(p.out.y) * (placed.boxHeight + layout.hostsHeight) / 2 +
                            kHostGap / 2;
      boxOf[p.node] = layout.switches.size();
      layout.switches.push_back({.node = p.node,
                                 .name = switchName(node),
                                 .guid = node.guid,
                                 .at = p.at,
                                 .tier = p.tier,
                                 .hosts = static_cast<std::uint32_t>(hosts.size()),
                                 .hostsAt = {p.at.x + p.out.x * offset, p.at.y + p.out.y * offset},
                                 .marks = {},
                                 .hostMarks = {}});
    }
  }

  void addBundles() {
    for (const SwitchBox& box : layout.switches) {
      const Node& node = fabric.node(box.node);
      for (const Port& port : node.ports) {
        if (!port.remote || !fabric.node(port.remote->node).isSwitch()) continue;
        const std::size_t a = boxOf.at(box.node), b = boxOf.at(port.remote->node);
        // Each cable once, from its lower end; a cable looping back to its own switch is not drawn.
        if (a >= b) continue;
        auto [it, fresh] = bundleOf.try_emplace({a, b}, layout.bundles.size());
        if (fresh)
          layout.bundles.push_back(
              {.a = a, .b = b, .cables = 0, .maxRoutes = 0, .totalRoutes = 0, .marks = {}});
        ++layout.bundles[it->second].cables;
      }
    }
  }

  // The bundle a switch port's cable belongs to, if it joins two switches.
  std::optional<std::size_t> bundleAt(NodeId node, std::uint8_t port) const {
    const auto& remote = fabric.node(node).ports[port].remote;
    if (!remote || !fabric.node(remote->node).isSwitch()) return std::nullopt;
    auto a = boxOf.at(node), b = boxOf.at(remote->node);
    if (a > b) std::swap(a, b);
    const auto it = bundleOf.find({a, b});
    if (it == bundleOf.end()) return std::nullopt;
    return it->second;
  }

  Result<void> addLoads(const std::vector<LinkLoadEntry>& loads, std::string_view from) {
    layout.hasLoads = true;
    for (std::size_t i = 0; i < loads.size(); ++i) {
      const LinkLoadEntry& l = loads[i];
      const auto node = fabric.findNode(l.from);
      const auto bundle = node && fabric.node(*node).isSwitch() && l.port > 0 &&
                                  l.port < fabric.node(*node).ports.size()
                              ? bundleAt(*node, l.port)
                              : std::nullopt;
      if (!bundle)
        return fail(
            fmt::format("{}: linkLoad.perLink[{}]: {} port {} is not a cable between two "
                        "switches of this fabric",
                        from, i, l.from, l.port));
      Bundle& b = layout.bundles[*bundle];
      b.maxRoutes = std::max(b.maxRoutes, l.routes);
      b.totalRoutes += l.routes;
      layout.maxRoutes = std::max(layout.maxRoutes, l.routes);
    }
    return {};
  }

  Result<void> addMark(std::size_t i, const HealthMark& m, std::string_view from) {
    const auto node = fabric.findNode(m.node);
    if (!node || m.port >= fabric.node(*node).ports.size())
      return fail(fmt::format("{}: unhealthy[{}].port: {} port {} is not in this fabric", from, i,
                              m.node, m.port));
    const std::string port = fabric.describe({*node, m.port});
    const std::string text = m.detail.empty()
                                 ? fmt::format("{} {}", m.condition, port)
                                 : fmt::format("{} {}: {}", m.condition, port, m.detail);
    const Node& n = fabric.node(*node);
    const auto& remote = n.ports[m.port].remote;
    if (n.isSwitch()) {
      if (auto bundle = m.port == 0 ? std::nullopt : bundleAt(*node, m.port))
        layout.bundles[*bundle].marks.push_back(text);
      else if (m.port != 0 && remote && remote->node != *node)
        layout.switches[boxOf.at(*node)].hostMarks.push_back(text);
      else
        layout.switches[boxOf.at(*node)].marks.push_back(text);
    } else if (remote && fabric.node(remote->node).isSwitch()) {
      layout.switches[boxOf.at(remote->node)].hostMarks.push_back(text);
    } else {
      return fail(
          fmt::format("{}: unhealthy[{}].port: {} is not cabled to a switch", from, i, port));
    }
    return {};
  }

  // Shifts everything so the picture starts at the margin, under the header.
  void frame() {
    double minX = std::numeric_limits<double>::max(), minY = minX;
    double maxX = std::numeric_limits<double>::lowest(), maxY = maxX;
    const double halfW = layout.boxWidth / 2 + 4, halfH = layout.boxHeight / 2 + 4;
    auto extend = [&](Point p, double w, double h) {
      minX = std::min(minX, p.x - w);
      maxX = std::max(maxX, p.x + w);
      minY = std::min(minY, p.y - h);
      maxY = std::max(maxY, p.y + h);
    };
    for (const SwitchBox& s : layout.switches) {
      extend(s.at, halfW, halfH);
      if (s.hosts > 0) extend(s.hostsAt, layout.hostsWidth / 2, layout.hostsHeight / 2);
    }
    if (layout.switches.empty()) minX = minY = maxX = maxY = 0;
    const double dx = kMargin - minX, dy = kMargin + kHeader - minY;
    for (SwitchBox& s : layout.switches) {
      s.at = {s.at.x + dx, s.at.y + dy};
      s.hostsAt = {s.hostsAt.x + dx, s.hostsAt.y + dy};
    }
    layout.width = std::max(maxX - minX + 2 * kMargin, 640.0);
    layout.height = maxY - minY + 2 * kMargin + kHeader;
  }
};

}  // namespace

Result<Layout> layoutFabric(const Fabric& fabric, const LayoutInputs& inputs) {
  Builder b{.fabric = fabric, .layout = {}, .boxOf = {}, .bundleOf = {}};
  b.addSwitches(placeSwitches(fabric));
  b.addBundles();
  if (inputs.loads)
    if (auto ok = b.addLoads(*inputs.loads, inputs.loadsFrom); !ok)
      return std::unexpected(ok.error());
  for (std::size_t i = 0; i < inputs.marks.size(); ++i)
    if (auto ok = b.addMark(i, inputs.marks[i], inputs.marksFrom); !ok)
      return std::unexpected(ok.error());
  // Busiest last, so they are drawn over the quiet ones; marked links last of all.
  std::ranges::stable_sort(b.layout.bundles, [](const Bundle& x, const Bundle& y) {
    return std::pair{!x.marks.empty(), x.maxRoutes} < std::pair{!y.marks.empty(), y.maxRoutes};
  });
  b.frame();
  return std::move(b.layout);
}

}  // namespace ibsm::draw
