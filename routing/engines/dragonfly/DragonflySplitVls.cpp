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
  if (tables.laterTurns.empty()) {
    out.later = planVls(graph, ports, only(tables, true), threads);
    return out;
  }
  // Planned with the routes (DragonflyValiant.h): every turn taken at one
  // level by the routes going on from it, the level climbing after each of
  // a route's at most two global links and nowhere else, so that the only
  // dependencies on one level run from a local channel to a global one.
  for (const auto& turns : tables.laterTurns) {
    VlPlan& p = out.valiant.emplace_back();
    p.turn = turns;
    p.levels = static_cast<std::uint8_t>(1 + std::ranges::max(turns));
  }
  // Minimal base routes climb once, after their global link, and end one
  // local hop later at most: their top level only ends routes.
  out.lastOnBaseTop = out.base.levels == 2 && out.base.climbs == 0 && tables.detourRoutes == 0;
  return out;
}

std::vector<Sl2VlEntry> splitSl2Vl(const Fabric& fabric, const SwitchGraph& graph,
                                   const PortMap& ports, const SplitVls& plan, unsigned threads) {
  auto entries = sl2vlEntries(fabric, graph, ports, plan.base, threads);
  const std::size_t stride = ports.stride;
  for (Sl2VlEntry& e : entries) {
    const std::size_t s = graph.index(e.sw);
    const std::size_t turn = (s * stride + e.inPort) * stride + e.outPort;
    if (plan.valiant.empty()) {
      e.vl[kLaterSl] = static_cast<std::uint8_t>(plan.base.levels + plan.later.turn[turn]);
      continue;
    }
    for (std::size_t i = 0; i < plan.valiant.size(); ++i)
      e.vl[kLaterSl + i] = plan.valiantVl(plan.valiant[i].turn[turn]);
  }
  return entries;
}

std::vector<PairSl> laterPairSls(const SwitchGraph& graph, const DragonflyTables& tables) {
  std::vector<std::pair<PortRef, SwitchIndex>> sources;  // and the switch it sends through
  for (SwitchIndex s = 0; s < graph.size(); ++s)
    for (const Endpoint& e : graph.endpoints(s)) sources.emplace_back(e.owner, s);
  std::ranges::sort(sources);
  std::vector<PairSl> out;
  std::size_t later = 0;
  for (const LidTarget& t : tables.targets) later += isLater(t);
  out.reserve(later * sources.size());
  const std::size_t n = graph.size();
  for (std::size_t lid = 1; lid < tables.targets.size(); ++lid) {
    if (!isLater(tables.targets[lid])) continue;
    for (const auto& [from, s] : sources)
      if (const std::uint8_t sl = tables.laterSl.empty() ? 1 : tables.laterSl[lid * n + s]; sl != 0)
        out.push_back(PairSl{.dlid = Lid{static_cast<std::uint16_t>(lid)},
                             .source = from,
                             .sl = static_cast<std::uint8_t>(kLaterSl + sl - 1)});
  }
  return out;
}

}  // namespace ibsm::routing::dragonfly
