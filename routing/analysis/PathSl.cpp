#include "routing/analysis/PathSl.h"

#include <fmt/format.h>

#include <algorithm>

namespace ibsm::analysis {
namespace {

// The level, when the engine gives the pair its SL: the note says which
// wins, or that the SL asked gets no path.
PathSl withEngineSl(const qos::QosLevel* level, const PathSlQuery& query, std::uint8_t engine) {
  PathSl out{.sl = engine, .level = level, .note = {}};
  if (query.sl && *query.sl != engine) {
    out.sl = *query.sl;
    out.note = fmt::format(
        "the routing engine gives this pair SL {} (its routes are free of credit loops only "
        "there): the SA answers no path for SL {} (walked on SL {} as asked)",
        engine, *query.sl, *query.sl);
  } else if (level && level->sl != engine) {
    out.note = fmt::format(
        "QoS level {} gives SL {}, but the routing engine gives this pair SL {} (its routes are "
        "free of credit loops only there): the SA answers SL {}; the level still caps MTU, rate, "
        "PKey and packet life",
        level->name, level->sl, engine, engine);
  }
  return out;
}

}  // namespace

PathSl pathSl(const qos::ResolvedQos* qos, const Fabric& fabric, PortRef from,
              std::optional<PortRef> to, const PathSlQuery& query,
              std::optional<std::uint8_t> engineSl) {
  PathSl out{.sl = query.sl.value_or(0), .level = nullptr, .note = {}};
  if (qos != nullptr && to) {
    // The SA's ends: a switch by its port 0, as the LID names it.
    const qos::QosQuery match{.source = fabric.port(from).guid,
                              .destination = fabric.port(*to).guid,
                              .serviceId = query.serviceId,
                              .pkey = query.pkey,
                              .qosClass = query.qosClass};
    out.level = qos::matchQos(*qos, match);
  }
  if (engineSl) return withEngineSl(out.level, query, *engineSl);
  if (out.level == nullptr) return out;
  if (query.sl && *query.sl != out.level->sl) {
    out.note = fmt::format(
        "QoS level {} gives SL {}: the SA answers no path for SL {} (walked on SL {} as asked)",
        out.level->name, out.level->sl, *query.sl, *query.sl);
    return out;
  }
  out.sl = out.level->sl;
  return out;
}

std::optional<std::uint8_t> engineSl(std::span<const PairSl> pairSls, PortRef from, Lid dlid) {
  if (pairSls.empty()) return std::nullopt;
  // One pair asked: a pass over them, whatever their order.
  const auto it = std::ranges::find_if(
      pairSls, [&](const PairSl& p) { return p.dlid == dlid && p.source == from; });
  return it == pairSls.end() ? std::uint8_t{0} : static_cast<std::uint8_t>(it->sl & 0xF);
}

}  // namespace ibsm::analysis
