#include "sm/sa/PathTable.h"

#include <algorithm>

#include "sm/sa/PathRecords.h"

namespace ibsm::sm::sa {
namespace {

constexpr std::uint8_t kDropVl = 15;  // IBA 7.6.6: an SL mapped to VL15 is dropped
constexpr std::uint16_t kAllSls = 0xFFFF;
constexpr int kMaxHops = 64;

std::uint64_t turnKey(NodeId sw, std::uint8_t in, std::uint8_t out) {
  return (std::uint64_t{sw} << 16) | (std::uint64_t{in} << 8) | out;
}

}  // namespace

PathTable::PathTable(const Fabric& fabric, const RoutingResult& routing) {
  first_.reserve(fabric.size() + 1);
  isSwitch_.reserve(fabric.size());
  for (NodeId id = 0; id < fabric.size(); ++id) {
    const Node& node = fabric.node(id);
    first_.push_back(static_cast<std::uint32_t>(hops_.size()));
    isSwitch_.push_back(node.isSwitch());
    for (const Port& port : node.ports) {
      Hop hop;
      if (port.remote) {
        const Port& far = fabric.port(*port.remote);
        hop = {.far = port.remote->node,
               .farPort = port.remote->port,
               .farIsSwitch = fabric.node(port.remote->node).isSwitch(),
               .mtu = std::min(port.mtuCap, far.mtuCap),
               .rate = static_cast<std::uint16_t>(rateHalfGbps(rateCode(port.link)))};
      }
      hops_.push_back(hop);
    }
  }
  first_.push_back(static_cast<std::uint32_t>(hops_.size()));
  lfts_.resize(fabric.size());
  for (NodeId sw = 0; sw < std::min(fabric.size(), routing.lfts.size()); ++sw) {
    const auto& lft = routing.lfts[sw].port;
    lfts_[sw] = {lft.data(), static_cast<std::uint32_t>(lft.size())};
  }
  for (const Sl2VlEntry& e : routing.sl2vl) {
    std::uint16_t carried = 0;
    for (std::size_t sl = 0; sl < e.vl.size(); ++sl)
      if (e.vl[sl] != kDropVl) carried = static_cast<std::uint16_t>(carried | (1U << sl));
    if (carried != kAllSls) slsCarried_[turnKey(e.sw, e.inPort, e.outPort)] = carried;
  }
}

std::uint16_t PathTable::slsCarried(NodeId sw, std::uint8_t in, std::uint8_t out) const {
  if (slsCarried_.empty()) return kAllSls;
  const auto it = slsCarried_.find(turnKey(sw, in, out));
  return it == slsCarried_.end() ? kAllSls : it->second;
}

std::optional<Route> PathTable::walk(PortRef from, Lid dlid, PortRef dest) const {
  Route route;
  const auto cross = [&](const Hop& hop) {
    route.mtu = std::min(route.mtu, hop.mtu);
    route.rate = std::min(route.rate, unsigned{hop.rate});
    route.anyLink = true;
  };
  NodeId at = from.node;
  std::uint8_t in = 0;
  if (!isSwitch_[from.node]) {
    if (from == dest) return route;
    const Hop& hop = hops_[index(from)];
    if (hop.far == kNoNode) return std::nullopt;
    cross(hop);
    if (!hop.farIsSwitch)
      return PortRef{hop.far, hop.farPort} == dest ? std::optional(route) : std::nullopt;
    at = hop.far;
    in = hop.farPort;
  }
  for (int n = 0; n < kMaxHops; ++n) {
    const Table& lft = lfts_[at];
    const std::uint8_t out = dlid.value < lft.size ? lft.port[dlid.value] : kNoRoute;
    if (out == kNoRoute || out >= first_[at + 1] - first_[at]) return std::nullopt;
    if (out == 0) return PortRef{at, 0} == dest ? std::optional(route) : std::nullopt;
    if (in != 0) route.sls &= slsCarried(at, in, out);
    const Hop& hop = hops_[first_[at] + out];
    if (hop.far == kNoNode) return std::nullopt;
    cross(hop);
    if (!hop.farIsSwitch)
      return PortRef{hop.far, hop.farPort} == dest ? std::optional(route) : std::nullopt;
    at = hop.far;
    in = hop.farPort;
  }
  return std::nullopt;
}

}  // namespace ibsm::sm::sa
