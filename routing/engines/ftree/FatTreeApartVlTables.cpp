#include "routing/engines/ftree/FatTreeApartVlTables.h"

#include <algorithm>

#include "routing/engines/ftree/FatTreeApartVl.h"
#include "routing/multicast/McSl.h"

namespace ibsm::routing::ftree {
namespace {

// Per switch, the cable leaving each port (kNoCable: a CA, nothing, port 0).
class PortCables {
 public:
  PortCables(const Fabric& fabric, const SwitchGraph& graph, const FatTreeLayout& layout) {
    first_.push_back(0);
    for (SwitchIndex s = 0; s < layout.switches(); ++s) {
      const std::size_t width = fabric.node(graph.nodeId(s)).ports.size();
      cables_.resize(first_.back() + width, kNoCable);
      for (CableId c = layout.cableBegin(s); c < layout.cableEnd(s); ++c)
        if (layout.port[c] < width) cables_[first_.back() + layout.port[c]] = c;
      first_.push_back(static_cast<std::uint32_t>(cables_.size()));
    }
  }
  CableId at(SwitchIndex s, std::uint8_t port) const {
    return first_[s] + port < first_[s + 1] ? cables_[first_[s] + port] : kNoCable;
  }

 private:
  std::vector<std::uint32_t> first_;
  std::vector<CableId> cables_;
};

// The shape of every switch's chain toward one LID of `target`.
class Shapes {
 public:
  Shapes(const FatTreeLayout& layout, const PortCables& cables, const HubOrder* hub)
      : layout_(layout), cables_(cables), hub_(hub) {}

  void walk(const std::vector<const std::uint8_t*>& rows, Lid lid, SwitchIndex target) {
    const std::size_t n = layout_.switches();
    shape_.assign(n, ChainShape::kBroken);
    hubShape_.assign(n, kHubBroken);
    state_.assign(n, kUnknown);
    shape_[target] = ChainShape::kTarget;
    hubShape_[target] = kHubDescends;
    state_[target] = kDone;
    for (SwitchIndex s = 0; s < n; ++s) resolve(s, rows, lid, target);
  }
  ChainShape operator[](SwitchIndex s) const { return shape_[s]; }
  // Climbs then descends in the hub order (false without one).
  bool hubLegal(SwitchIndex s) const { return hubShape_[s] != kHubBroken; }

 private:
  enum : std::uint8_t { kUnknown, kOnStack, kDone };
  enum : std::uint8_t { kHubDescends, kHubClimbs, kHubBroken };

  void resolve(SwitchIndex from, const std::vector<const std::uint8_t*>& rows, Lid lid,
               SwitchIndex target) {
    stack_.assign(1, from);
    while (!stack_.empty()) {
      const SwitchIndex x = stack_.back();
      if (state_[x] == kDone) {
        stack_.pop_back();
        continue;
      }
      const CableId c = cables_.at(x, rows[x][lid.value]);
      const SwitchIndex y = c == kNoCable ? x : layout_.to[c];
      if (c == kNoCable || state_[y] == kOnStack) {  // no way on, or a loop
        state_[x] = kDone;
      } else if (state_[y] == kDone) {
        const bool up = layout_.height[y] > layout_.height[x];
        shape_[x] = extendShape(up, shape_[y], layout_.height[target] == layout_.height[y] + 1);
        if (hub_ && hubShape_[y] != kHubBroken)
          hubShape_[x] = hub_->isUp(x, y)               ? kHubClimbs
                         : hubShape_[y] == kHubDescends ? kHubDescends
                                                        : kHubBroken;
        state_[x] = kDone;
      } else {
        state_[x] = kOnStack;
        stack_.push_back(y);
      }
    }
  }

  const FatTreeLayout& layout_;
  const PortCables& cables_;
  const HubOrder* hub_;
  std::vector<ChainShape> shape_;
  std::vector<std::uint8_t> hubShape_;
  std::vector<std::uint8_t> state_;
  std::vector<SwitchIndex> stack_;
};

}  // namespace

PairClasses classifyPairs(const Fabric& fabric, const SwitchGraph& graph,
                          const FatTreeLayout& layout, const RoutingResult& result,
                          const HubOrder* hub) {
  const PortCables cables(fabric, graph, layout);
  std::vector<const std::uint8_t*> rows(layout.switches());
  for (SwitchIndex s = 0; s < layout.switches(); ++s)
    rows[s] = result.lfts[graph.nodeId(s)].port.data();
  Shapes shapes(layout, cables, hub);
  PairClasses out;
  for (SwitchIndex t = 0; t < layout.switches(); ++t)
    for (const Endpoint& e : graph.endpoints(t)) {
      if (e.base.value == 0) continue;
      for (unsigned layer = 0; layer < (1u << e.lmc); ++layer) {
        const Lid lid{static_cast<std::uint16_t>(e.base.value + layer)};
        shapes.walk(rows, lid, t);
        const std::size_t before = out.broken;
        for (SwitchIndex s = 0; s < layout.switches(); ++s) {
          auto sl = shapeSl(shapes[s]);
          if (hub && sl == 2) sl.reset();  // SL 2 is SL 0's twin beside SL 3
          if (!sl && shapes.hubLegal(s)) sl = 3;
          if (!sl) {
            if (out.broken++ == 0) out.exampleLid = lid, out.exampleSwitch = s;
            continue;
          }
          if (*sl == 0) continue;
          for (const Endpoint& source : graph.endpoints(s)) {
            if (source.base.value == 0) continue;
            out.pairs.push_back({lid, source.owner, *sl});
            ++(*sl == 1 ? out.valleys : *sl == 2 ? out.peakValleys : out.hubOrdered);
          }
        }
        if (out.broken > before) out.brokenColumns.push_back({lid, t, e.switchPort});
      }
    }
  std::ranges::sort(out.pairs);
  return out;
}

std::uint8_t apartVl(std::uint8_t sl, InKind in, OutKind out) {
  const bool up = out == OutKind::kUp;
  switch (sl) {
    case kMulticastSl:
      return out == OutKind::kToCa ? 0 : 1;
    case 1:
      if (up && in != InKind::kSource) return 1;
      return in == InKind::kFromBelow && out == OutKind::kDown ? kDropVl : 0;
    case 2:
      if (up && in == InKind::kFromAbove) return 1;
      return up && in == InKind::kFromBelow ? kDropVl : 0;
    default:  // SL 0 and the SLs no pair is given
      return up && in == InKind::kFromAbove ? kDropVl : 0;
  }
}

std::uint8_t hubVl(bool arrivedDescending, bool leavesClimbing) {
  return arrivedDescending && leavesClimbing ? 15 : 2;
}

std::vector<Sl2VlEntry> apartSl2Vl(const Fabric& fabric, const SwitchGraph& graph,
                                   const FatTreeLayout& layout, const HubOrder* hub) {
  std::vector<Sl2VlEntry> out;
  for (SwitchIndex s = 0; s < layout.switches(); ++s) {
    const NodeId id = graph.nodeId(s);
    const Node& sw = fabric.node(id);
    // 0: a CA or port 0; 1: a switch below; 2: a switch above; 3: nothing.
    std::vector<std::uint8_t> kind(sw.ports.size(), 3);
    std::vector<SwitchIndex> peer(sw.ports.size(), kNoSwitch);
    kind[0] = 0;
    for (std::size_t p = 1; p < sw.ports.size(); ++p) {
      const auto& remote = sw.ports[p].remote;
      if (!remote) continue;
      const SwitchIndex t = graph.index(remote->node);
      peer[p] = t;
      if (t == kNoSwitch)
        kind[p] = 0;
      else if (t != s)
        kind[p] = layout.height[t] < layout.height[s] ? 1 : 2;
    }
    for (std::size_t in = 0; in < sw.ports.size(); ++in) {
      if (kind[in] == 3) continue;
      const auto inKind = static_cast<InKind>(kind[in]);
      for (std::size_t o = 1; o < sw.ports.size(); ++o) {
        if (o == in || kind[o] == 3) continue;
        const OutKind outKind = kind[o] == 0   ? OutKind::kToCa
                                : kind[o] == 1 ? OutKind::kDown
                                               : OutKind::kUp;
        Sl2VlEntry e{.sw = id,
                     .inPort = static_cast<std::uint8_t>(in),
                     .outPort = static_cast<std::uint8_t>(o)};
        for (std::uint8_t sl = 0; sl < 16; ++sl) e.vl[sl] = apartVl(sl, inKind, outKind);
        if (hub) {
          e.vl[2] = e.vl[0];
          // A hop from an earlier switch descended; one toward an earlier climbs.
          const bool descended = peer[in] != kNoSwitch && hub->isUp(s, peer[in]);
          const bool climbs = peer[o] != kNoSwitch && hub->isUp(s, peer[o]);
          e.vl[3] = hubVl(descended, climbs);
        }
        out.push_back(e);
      }
    }
  }
  return out;
}

}  // namespace ibsm::routing::ftree
