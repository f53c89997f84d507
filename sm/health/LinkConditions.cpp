#include "sm/health/LinkConditions.h"

#include <fmt/format.h>

#include <array>
#include <utility>

namespace ibsm::sm::health {
namespace {

// PortInfo width bits by lane count, widest first: 12x 8x 4x 2x 1x.
constexpr std::array<std::pair<std::uint8_t, unsigned>, 5> kWidths{
    {{8, 12}, {4, 8}, {2, 4}, {16, 2}, {1, 1}}};

bool trained(const Port& p) {
  return p.state != PortState::Down && p.link.widthActive != 0 && p.link.speedActive != 0;
}

Speed activeSpeed(const LinkAttrs& l) {
  return fastest(l.speedActive, l.extSpeedActive);
}

std::string describeEnd(const Fabric& f, const EndRate& e) {
  return fmt::format("{} {}x {} expected, {}x {} active", f.describe(e.port), e.expectedLanes,
                     speedName(e.expectedSpeed), e.activeLanes, speedName(e.activeSpeed));
}

bool lowerEnd(const Fabric& f, PortRef a, PortRef b) {
  return std::pair{f.node(a.node).guid, a.port} < std::pair{f.node(b.node).guid, b.port};
}

}  // namespace

std::string_view speedName(Speed s) {
  static constexpr std::array<std::string_view, 8> kNames{"none", "SDR", "DDR", "QDR",
                                                          "FDR",  "EDR", "HDR", "NDR"};
  return kNames.at(static_cast<std::size_t>(s));
}

unsigned widestLanes(std::uint8_t widthMask) {
  for (const auto& [bit, lanes] : kWidths)
    if ((widthMask & bit) != 0) return lanes;
  return 0;
}

unsigned activeLanes(std::uint8_t widthActive) {
  return widestLanes(widthActive);
}

Speed fastest(std::uint8_t speedMask, std::uint8_t extSpeedMask) {
  // Extended bits 1=FDR 2=EDR 4=HDR 8=NDR; base bits 1=SDR 2=DDR 4=QDR.
  for (int bit = 3; bit >= 0; --bit)
    if ((extSpeedMask & (1U << bit)) != 0) return static_cast<Speed>(4 + bit);
  for (int bit = 2; bit >= 0; --bit)
    if ((speedMask & (1U << bit)) != 0) return static_cast<Speed>(1 + bit);
  return Speed::None;
}

EndRate endRate(const Fabric& fabric, PortRef end) {
  const Port& self = fabric.port(end);
  EndRate r{.port = end,
            .activeLanes = activeLanes(self.link.widthActive),
            .activeSpeed = activeSpeed(self.link)};
  if (!self.remote) return r;
  const LinkAttrs& me = self.link;
  const LinkAttrs& peer = fabric.port(*self.remote).link;
  r.expectedLanes = widestLanes(me.widthSupported & me.widthEnabled & peer.widthSupported);
  r.expectedSpeed = fastest(me.speedSupported & me.speedEnabled & peer.speedSupported,
                            me.extSpeedSupported & me.extSpeedEnabled & peer.extSpeedSupported);
  return r;
}

std::vector<DowngradedLink> downgradedLinks(const Fabric& fabric) {
  std::vector<DowngradedLink> out;
  for (NodeId id = 0; id < fabric.size(); ++id) {
    const Node& node = fabric.node(id);
    for (std::uint8_t p = 1; p < node.ports.size(); ++p) {
      const PortRef here{id, p};
      const auto& remote = node.ports[p].remote;
      // Each link once, from its lower end.
      if (!remote || !lowerEnd(fabric, here, *remote)) continue;
      if (!trained(node.ports[p]) || !trained(fabric.port(*remote))) continue;
      DowngradedLink d{.a = endRate(fabric, here), .b = endRate(fabric, *remote)};
      if (!d.a.downgraded() && !d.b.downgraded()) continue;
      d.detail = describeEnd(fabric, d.a) + "; " + describeEnd(fabric, d.b);
      out.push_back(std::move(d));
    }
  }
  return out;
}

}  // namespace ibsm::sm::health
