// The base and later LIDs' VLs planned apart; see DragonflySplitVls.h.
#include "routing/engines/dragonfly/DragonflySplitVls.h"

#include <algorithm>

namespace ibsm::routing::dragonfly {
namespace {

bool isLater(const LidTarget& t) {
  return t.sw != kNoSwitch && t.kind == LidKind::Ca && t.rangeOffset > 0;
}

// The tables with only the LIDs `keep` says: the others unrouted for planVls.
DragonflyTables only(const DragonflyTables& tables, bool later) {
  DragonflyTables part = tables;
  for (auto& t : part.targets)
    if (t.sw != kNoSwitch && isLater(t) != later) t.sw = kNoSwitch;
  return part;
}

}  // namespace

SplitVls splitVls(const SwitchGraph& graph, const PortMap& ports, const DragonflyTables& tables,
                  unsigned threads) {
  SplitVls out;
  out.base = planVls(graph, ports, only(tables, false), threads);
  out.later = planVls(graph, ports, only(tables, true), threads);
  return out;
}

std::vector<Sl2VlEntry> splitSl2Vl(const Fabric& fabric, const SwitchGraph& graph,
                                   const PortMap& ports, const SplitVls& plan, unsigned threads) {
  auto entries = sl2vlEntries(fabric, graph, ports, plan.base, threads);
  const std::size_t stride = ports.stride;
  for (Sl2VlEntry& e : entries) {
    const std::size_t s = graph.index(e.sw);
    e.vl[kLaterSl] = static_cast<std::uint8_t>(
        plan.base.levels + plan.later.turn[(s * stride + e.inPort) * stride + e.outPort]);
  }
  return entries;
}

std::vector<PairSl> laterPairSls(const SwitchGraph& graph, const DragonflyTables& tables) {
  std::vector<PortRef> sources;
  for (SwitchIndex s = 0; s < graph.size(); ++s)
    for (const Endpoint& e : graph.endpoints(s)) sources.push_back(e.owner);
  std::ranges::sort(sources);
  std::vector<PairSl> out;
  std::size_t later = 0;
  for (const LidTarget& t : tables.targets) later += isLater(t);
  out.reserve(later * sources.size());
  for (std::size_t lid = 1; lid < tables.targets.size(); ++lid) {
    if (!isLater(tables.targets[lid])) continue;
    for (const PortRef& from : sources)
      out.push_back(
          PairSl{.dlid = Lid{static_cast<std::uint16_t>(lid)}, .source = from, .sl = kLaterSl});
  }
  return out;
}

}  // namespace ibsm::routing::dragonfly
