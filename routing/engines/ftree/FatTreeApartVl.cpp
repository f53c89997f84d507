#include "routing/engines/ftree/FatTreeApartVl.h"

#include <fmt/format.h>

#include <algorithm>

#include "routing/engines/DeclaredVls.h"
#include "routing/engines/ftree/FatTreeApartVlTables.h"

namespace ibsm::routing::ftree {

ChainShape extendShape(bool up, ChainShape rest, bool restClimbsOne) {
  using enum ChainShape;
  if (up) {
    switch (rest) {
      case kTarget:
      case kClimb:
        return kClimb;
      case kDescend:
      case kPeak:
        return kPeak;
      case kValleyOne:
        return kPeakValley;
      default:
        return kBroken;
    }
  }
  switch (rest) {
    case kTarget:
    case kDescend:
      return kDescend;
    case kClimb:
      return restClimbsOne ? kValleyOne : kValley;
    case kValleyOne:
      return kValleyOne;
    case kValley:
      return kValley;
    default:
      return kBroken;
  }
}

std::optional<std::uint8_t> shapeSl(ChainShape shape) {
  using enum ChainShape;
  switch (shape) {
    case kTarget:
    case kClimb:
    case kDescend:
    case kPeak:
      return 0;
    case kValleyOne:
    case kValley:
      return 1;
    case kPeakValley:
      return 2;
    default:
      return std::nullopt;
  }
}

namespace {

constexpr std::uint16_t kUnreached = 0xFFFF;

// Shorter first; at equal length SL 0, then a valley that can still take a
// climb before it (one climb at its end), then the other shapes.
int rank(ChainShape shape) {
  using enum ChainShape;
  switch (shape) {
    case kTarget:
    case kClimb:
    case kDescend:
    case kPeak:
      return 0;
    case kValleyOne:
      return 1;
    case kValley:
      return 2;
    case kPeakValley:
      return 3;
    default:
      return 9;
  }
}

// The columns of switch LIDs, aggregation nodes and upper CAs: every
// switch on the fewest hops whose chain has a shape FatTreeApartVl.h allows,
// among equal next hops the least loaded cable (loads of the CA sources that
// each column's routes carry, summed over the columns routed so far).
class ApartColumns {
 public:
  // `peakValleys`: whether chains may climb, descend and climb (SL 2).
  ApartColumns(const FatTreeLayout& layout, const SwitchGraph& graph, bool peakValleys)
      : layout_(layout), peakValleys_(peakValleys), load_(layout.cables(), 0) {
    for (SwitchIndex s = 0; s < layout.switches(); ++s) sources_.push_back(graph.caCount(s));
  }

  // Next cables toward `target` (kDeliver there); false when some switch has
  // no chain of an allowed shape. `weigh`: the column's CA sources add to
  // the loads (a CA destination), else it only reads them.
  bool column(SwitchIndex target, std::uint32_t spread, bool weigh, std::vector<CableId>& next) {
    settle(target);
    std::ranges::fill(next, kNoCable);
    next[target] = kDeliver;
    flow_.assign(layout_.switches(), 0);
    if (weigh)
      for (SwitchIndex s = 0; s < layout_.switches(); ++s) flow_[s] = sources_[s];
    for (auto it = byDist_.rbegin(); it != byDist_.rend(); ++it)
      if (*it != target) choose(*it, target, spread, weigh, next);
    return byDist_.size() == layout_.switches();
  }

 private:
  bool up(SwitchIndex from, SwitchIndex to) const {
    return layout_.height[to] > layout_.height[from];
  }
  ChainShape through(SwitchIndex r, SwitchIndex s, SwitchIndex target) const {
    return extendShape(up(r, s), shape_[s], layout_.height[target] == layout_.height[s] + 1);
  }

  // Breadth first from the target, level by level, each switch taking the
  // best shape its neighbours one hop nearer offer.
  void settle(SwitchIndex target) {
    const std::size_t n = layout_.switches();
    shape_.assign(n, ChainShape::kBroken);
    dist_.assign(n, kUnreached);
    shape_[target] = ChainShape::kTarget;
    dist_[target] = 0;
    byDist_.assign(1, target);
    std::size_t begin = 0;
    for (std::uint16_t d = 1; begin < byDist_.size(); ++d) {
      const std::size_t end = byDist_.size();
      for (std::size_t i = begin; i < end; ++i) {
        const SwitchIndex s = byDist_[i];
        for (CableId c = layout_.cableBegin(s); c < layout_.cableEnd(s); ++c) {
          const SwitchIndex r = layout_.to[c];
          if (dist_[r] < d) continue;
          const ChainShape shape = through(r, s, target);
          if (shape == ChainShape::kBroken || (!peakValleys_ && shape == ChainShape::kPeakValley))
            continue;
          if (dist_[r] == kUnreached) {
            dist_[r] = d;
            shape_[r] = shape;
            byDist_.push_back(r);
          } else if (rank(shape) < rank(shape_[r])) {
            shape_[r] = shape;
          }
        }
      }
      begin = end;
    }
  }

  void choose(SwitchIndex r, SwitchIndex target, std::uint32_t spread, bool weigh,
              std::vector<CableId>& next) {
    candidates_.clear();
    for (CableId c = layout_.cableBegin(r); c < layout_.cableEnd(r); ++c) {
      const SwitchIndex s = layout_.to[c];
      if (dist_[s] + 1 == dist_[r] && through(r, s, target) == shape_[r]) candidates_.push_back(c);
    }
    std::uint64_t least = ~std::uint64_t{0};
    for (const CableId c : candidates_) least = std::min(least, load_[c]);
    std::erase_if(candidates_, [&](CableId c) { return load_[c] != least; });
    const CableId c = candidates_[(spread + layout_.canon[r]) % candidates_.size()];
    next[r] = c;
    if (!weigh) return;
    load_[c] += flow_[r];
    flow_[layout_.to[c]] += flow_[r];
  }

  const FatTreeLayout& layout_;
  bool peakValleys_;
  std::vector<std::uint64_t> load_;  // per cable
  std::vector<std::uint64_t> sources_, flow_;
  std::vector<ChainShape> shape_;
  std::vector<std::uint16_t> dist_;
  std::vector<SwitchIndex> byDist_;  // reached switches, nearest first
  std::vector<CableId> candidates_;
};

void writeColumn(const SwitchGraph& graph, const FatTreeLayout& layout, Lid lid,
                 std::uint8_t deliver, const std::vector<CableId>& next, RoutingResult& result) {
  for (SwitchIndex s = 0; s < layout.switches(); ++s)
    result.lfts[graph.nodeId(s)].port[lid.value] =
        next[s] == kDeliver ? deliver : layout.port[next[s]];
}

// Switch LIDs and the LIDs of aggregation nodes and upper CAs, in canonical
// order (the loads must not depend on discovery order). Returns the columns
// left as they were (some switch without an allowed shape).
std::size_t routeApartColumns(const SwitchGraph& graph, const FatTreeLayout& layout,
                              ApartColumns& columns, std::uint32_t& spread, RoutingResult& result) {
  std::vector<CableId> next(layout.switches(), kNoCable);
  std::size_t kept = 0;
  for (const auto& level : layout.byHeight)
    for (const SwitchIndex s : level) {
      const auto endpoints = graph.endpoints(s);
      const auto roles = layout.roles.of(s);
      for (std::size_t k = 0; k < endpoints.size(); ++k) {
        const Endpoint& e = endpoints[k];
        const bool isSwitch = k == 0;
        if (e.base.value == 0 || (!isSwitch && roles[k - 1] == CaRole::Compute)) continue;
        for (unsigned layer = 0; layer < (1u << e.lmc); ++layer) {
          const Lid lid{static_cast<std::uint16_t>(e.base.value + layer)};
          if (columns.column(s, spread++, !isSwitch, next))
            writeColumn(graph, layout, lid, e.switchPort, next, result);
          else
            ++kept;
        }
      }
    }
  return kept;
}

}  // namespace

namespace {

struct Attempt {
  PairClasses classes;
  std::size_t kept{0}, rerouted{0};
};

// The apart columns, then the compute columns with a chain of no allowed
// shape (a tree that lost cables: the hub order's detours) routed the same
// way on the same loads, or left the hub order's where some switch has no
// allowed chain. With `hub` (a third VL) chains do not climb, descend and
// climb (SL 2) and the hub order's chains of no level shape go on SL 3.
Attempt attempt(const Fabric& fabric, const SwitchGraph& graph, const FatTreeLayout& layout,
                const HubOrder* hub, const std::vector<Lft>& saved, RoutingResult& result) {
  Attempt out;
  ApartColumns columns(layout, graph, hub == nullptr);
  std::uint32_t spread = 0;
  out.kept = routeApartColumns(graph, layout, columns, spread, result);
  out.classes = classifyPairs(fabric, graph, layout, result, hub);
  if (out.classes.broken == 0) return out;
  std::vector<CableId> next(layout.switches(), kNoCable);
  for (const auto& c : out.classes.brokenColumns) {
    if (columns.column(c.target, spread++, true, next)) {
      writeColumn(graph, layout, c.lid, c.deliver, next, result);
      ++out.rerouted;
    } else {  // the hub order's column, whole
      for (SwitchIndex s = 0; s < layout.switches(); ++s) {
        const NodeId id = graph.nodeId(s);
        result.lfts[id].port[c.lid.value] = saved[id].port[c.lid.value];
      }
    }
  }
  out.classes = classifyPairs(fabric, graph, layout, result, hub);
  return out;
}

}  // namespace

bool apartVlsAllowed(const Fabric& fabric, std::uint8_t maxVls) {
  return std::min(maxVls, routing::declaredDataVls(fabric)) >= 2;
}

ApartVlNote applyApartVls(const Fabric& fabric, const SwitchGraph& graph,
                          const FatTreeLayout& layout, const HubOrder& hub, RoutingResult& result,
                          std::uint8_t maxVls) {
  const std::uint8_t vls = std::min(maxVls, routing::declaredDataVls(fabric));
  if (vls < 2) return {};
  const std::vector<Lft> saved = result.lfts;
  Attempt a = attempt(fabric, graph, layout, nullptr, saved, result);
  const bool third = a.classes.broken > 0 && vls >= 3;
  if (third) {
    result.lfts = saved;
    a = attempt(fabric, graph, layout, &hub, saved, result);
  }
  if (a.classes.broken > 0) {
    result.lfts = saved;
    return {false, a.kept,
            fmt::format("apart pairs stay on one VL (the hub order): {} chains of the "
                        "tables have no shape {} VLs keep free of credit loops (e.g. "
                        "toward LID {} from switch {})",
                        a.classes.broken, std::min<int>(vls, 3), a.classes.exampleLid,
                        switchName(fabric, graph, a.classes.exampleSwitch))};
  }
  result.pairSls = std::move(a.classes.pairs);
  result.sl2vl = apartSl2Vl(fabric, graph, layout, third ? &hub : nullptr);
  result.vlsUsed = third ? 3 : 2;
  result.legalByConstruction = false;
  return {true, a.kept,
          fmt::format("switch LIDs, aggregation nodes and upper CAs routed on the fewest "
                      "switch hops on {} VLs ({} columns kept as they were, {} compute "
                      "columns with a detour rerouted so): {} pairs "
                      "descend then climb (SL 1), {} climb, descend and climb (SL 2), {} "
                      "follow the hub order's detours (SL 3, VL 2); SL2VL drops SL 0 at a "
                      "down->up turn; multicast trees go on SL {}, which no turn drops "
                      "(VL 1)",
                      result.vlsUsed, a.kept, a.rerouted, a.classes.valleys, a.classes.peakValleys,
                      a.classes.hubOrdered, kMulticastSl)};
}

}  // namespace ibsm::routing::ftree
