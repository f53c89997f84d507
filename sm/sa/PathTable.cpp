#include "sm/sa/PathTable.h"

#include <algorithm>
#include <bit>

#include "routing/multicast/McSl.h"
#include "sm/sa/PathRecords.h"

namespace ibsm::sm::sa {
namespace {

constexpr int kMaxHops = 64;

std::size_t guidSlot(std::uint64_t guid, unsigned shift) {
  return static_cast<std::size_t>((guid * 0x9E3779B97F4A7C15ULL) >> shift);  // Fibonacci hashing
}

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
  indexGuids(fabric);
  lfts_.resize(fabric.size());
  for (NodeId sw = 0; sw < std::min(fabric.size(), routing.lfts.size()); ++sw) {
    const auto& lft = routing.lfts[sw].port;
    lfts_[sw] = {lft.data(), static_cast<std::uint32_t>(lft.size())};
  }
  for (const Sl2VlEntry& e : routing.sl2vl) {
    const std::uint16_t carried = routing::slsCarried(e);
    if (carried != routing::kEverySl) slsCarried_[turnKey(e.sw, e.inPort, e.outPort)] = carried;
    carriedEverywhere_ &= carried;
  }
  // A CA port's own table carries every SL (planSubnet(): all on VL 0), so
  // it leaves slsCarried and carriedEverywhere as they are; the trees' mark
  // is read off the switches' entries alone.
  treesOnTreeSl_ =
      routing.treesShareVl.has_value() || routing::treesHaveAVlOfTheirOwn(fabric, routing.sl2vl);
  indexPairSls(routing.pairSls);
}

void PathTable::indexPairSls(std::span<const PairSl> pairs) {
  if (pairs.empty()) return;
  std::vector<PairSl> sorted;
  if (!std::ranges::is_sorted(pairs)) {
    sorted.assign(pairs.begin(), pairs.end());
    std::ranges::sort(sorted);
    pairs = sorted;
  }
  pairStart_.assign(std::size_t{pairs.back().dlid.value} + 2, 0);
  for (const PairSl& p : pairs) ++pairStart_[p.dlid.value + 1];
  for (std::size_t l = 1; l < pairStart_.size(); ++l) pairStart_[l] += pairStart_[l - 1];
  pairSources_.reserve(pairs.size());
  pairSl_.reserve(pairs.size());
  for (const PairSl& p : pairs) {
    pairSources_.push_back(p.source);
    pairSl_.push_back(static_cast<std::uint8_t>(p.sl & 0xF));
  }
}

std::uint8_t PathTable::engineSlAmong(PortRef from, std::uint32_t first, std::uint32_t last) const {
  const auto begin = pairSources_.begin() + first;
  const auto end = pairSources_.begin() + last;
  const auto it = std::lower_bound(begin, end, from);
  return it != end && *it == from ? pairSl_[static_cast<std::size_t>(it - pairSources_.begin())]
                                  : std::uint8_t{0};
}

void PathTable::indexGuids(const Fabric& fabric) {
  std::size_t size = 2;
  while (size < 2 * hops_.size()) size *= 2;
  byGuid_.assign(size, {});
  guidShift_ = 64 - static_cast<unsigned>(std::countr_zero(size));
  for (const Node& node : fabric.nodes()) {
    for (const Port& port : node.ports) {
      if (port.guid.value == 0) continue;
      const auto owner = fabric.findPort(port.guid);  // the fabric's answer, whatever it is
      if (!owner) continue;
      std::size_t i = guidSlot(port.guid.value, guidShift_);
      while (byGuid_[i].guid != 0 && byGuid_[i].guid != port.guid.value) i = (i + 1) & (size - 1);
      byGuid_[i] = {port.guid.value, *owner};
    }
  }
}

std::optional<PortRef> PathTable::findPort(const Fabric& fabric, Guid portGuid) const {
  if (portGuid.value == 0 || byGuid_.empty()) return fabric.findPort(portGuid);
  for (std::size_t i = guidSlot(portGuid.value, guidShift_);; i = (i + 1) & (byGuid_.size() - 1)) {
    if (byGuid_[i].guid == portGuid.value) return byGuid_[i].port;
    if (byGuid_[i].guid == 0) return std::nullopt;
  }
}

std::uint16_t PathTable::slsCarried(NodeId sw, std::uint8_t in, std::uint8_t out) const {
  if (slsCarried_.empty()) return routing::kEverySl;
  const auto it = slsCarried_.find(turnKey(sw, in, out));
  return it == slsCarried_.end() ? routing::kEverySl : it->second;
}

PathTable::Cursor PathTable::start(PortRef from, Lid dlid, PortRef dest) const {
  Cursor c;
  c.at = from.node;
  c.dlid = dlid;
  c.dest = dest;
  if (isSwitch_[from.node]) return c;  // from its port 0
  if (from == dest) {
    c.state = Cursor::kArrived;
    return c;
  }
  cross(c, hops_[index(from)]);
  return c;
}

// Out through a port: the link counts, and the walk goes on at the switch
// beyond, or ends at the CA there.
void PathTable::cross(Cursor& c, const Hop& hop) const {
  if (hop.far == kNoNode) {
    c.state = Cursor::kFailed;
    return;
  }
  c.route.mtu = std::min(c.route.mtu, hop.mtu);
  c.route.rate = std::min(c.route.rate, unsigned{hop.rate});
  c.route.anyLink = true;
  if (!hop.farIsSwitch) {
    c.state = PortRef{hop.far, hop.farPort} == c.dest ? Cursor::kArrived : Cursor::kFailed;
    return;
  }
  c.at = hop.far;
  c.in = hop.farPort;
}

// One switch's LFT: out by its entry, or the walk ends there.
void PathTable::step(Cursor& c) const {
  if (++c.hops > kMaxHops) {
    c.state = Cursor::kFailed;
    return;
  }
  const Table& lft = lfts_[c.at];
  const std::uint8_t out = c.dlid.value < lft.size ? lft.port[c.dlid.value] : kNoRoute;
  if (out == kNoRoute || out >= first_[c.at + 1] - first_[c.at]) {
    c.state = Cursor::kFailed;
    return;
  }
  if (out == 0) {
    c.state = PortRef{c.at, 0} == c.dest ? Cursor::kArrived : Cursor::kFailed;
    return;
  }
  if (c.in != 0) c.route.sls &= slsCarried(c.at, c.in, out);
  cross(c, hops_[first_[c.at] + out]);
}

std::optional<Route> PathTable::walk(PortRef from, Lid dlid, PortRef dest) const {
  Cursor c = start(from, dlid, dest);
  while (c.state == Cursor::kGoing) step(c);
  return result(c);
}

std::pair<std::optional<Route>, std::optional<Route>> PathTable::walkBoth(PortRef from, Lid dlid,
                                                                          PortRef dest,
                                                                          PortRef back, Lid backLid,
                                                                          PortRef backDest) const {
  Cursor a = start(from, dlid, dest);
  Cursor b = start(back, backLid, backDest);
  while (a.state == Cursor::kGoing || b.state == Cursor::kGoing) {
    if (a.state == Cursor::kGoing) step(a);
    if (b.state == Cursor::kGoing) step(b);
  }
  return {result(a), result(b)};
}

}  // namespace ibsm::sm::sa
