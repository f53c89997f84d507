#include <ibsm/ProgrammedSl2Vl.h>

#include <algorithm>
#include <set>
#include <tuple>

namespace ibsm {

ProgrammedSl2VlTables programmedSl2Vl(std::span<const Sl2VlEntry> engine,
                                      const qos::QosTables* qos) {
  ProgrammedSl2VlTables out;
  out.tables.reserve(engine.size());
  for (const Sl2VlEntry& e : engine) out.tables.push_back({.entry = e, .qos = false});
  if (qos == nullptr) return out;
  // A QoS table of a CA has in port 0, as the CA tables planSubnet() adds
  // to the engine's (which qos::adoptLayeredSl2Vl drops under QoS), so the
  // raw (node, in, out) keys both.
  std::set<std::tuple<NodeId, std::uint8_t, std::uint8_t>> engineKeys;
  for (const Sl2VlEntry& e : engine) engineKeys.emplace(e.sw, e.inPort, e.outPort);
  for (const qos::QosSl2Vl& t : qos->sl2vl) {
    if (engineKeys.contains({t.port.node, t.inPort, t.port.port})) {
      ++out.engineWins;
      continue;
    }
    out.tables.push_back(
        {.entry = {.sw = t.port.node, .inPort = t.inPort, .outPort = t.port.port, .vl = t.vl},
         .qos = true});
  }
  return out;
}

std::vector<Sl2VlEntry> programmedSl2VlEntries(std::span<const Sl2VlEntry> engine,
                                               const qos::QosTables* qos) {
  std::vector<Sl2VlEntry> out;
  for (const ProgrammedSl2Vl& t : programmedSl2Vl(engine, qos).tables) out.push_back(t.entry);
  if (qos != nullptr)
    std::ranges::stable_sort(
        out, {}, [](const Sl2VlEntry& e) { return std::tuple(e.sw, e.inPort, e.outPort); });
  return out;
}

std::optional<std::uint8_t> sl2vlOf(std::span<const Sl2VlEntry> tables, NodeId node,
                                    std::uint8_t in, std::uint8_t out, std::uint8_t sl) {
  const auto it = std::ranges::find_if(tables, [&](const Sl2VlEntry& e) {
    return e.sw == node && e.inPort == in && e.outPort == out;
  });
  if (it == tables.end()) return std::nullopt;
  return it->vl[sl & 0xF];
}

}  // namespace ibsm
