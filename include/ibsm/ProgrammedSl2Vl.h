// The SL2VL tables a plan programs, read off its two sources: the routing
// engine's (RoutingResult::sl2vl, dragonfly's VL layers) and the QoS plan's
// (SubnetPlan::qosTables: the [qos] options and the policy's qos-setup). One
// reader for the live SM's programming (sm/program's SL2VL diff), `ibsm path`
// (the VL of every hop, dry run and daemon) and `ibsm dump sl2vl`, so the
// three agree on what a port holds.
//
// A (node, in port, out port) the engine gives a table keeps the engine's:
// its VLs are what keeps its routes deadlock free. Elsewhere the QoS table
// of that switch pair or CA/router port (in port 0, the port as out port).
// A port neither gives one is not written: it holds what it had, SL 0 on
// VL 0 after a reset (sl2vlOf: nullopt).
//
//   const auto tables = programmedSl2VlEntries(plan.routing.sl2vl, qosOf(plan));
//   auto vl = sl2vlOf(tables, sw, in, out, sl);  // nullopt: no table programmed
#pragma once

#include <ibsm/QosPolicy.h>
#include <ibsm/Routing.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace ibsm {

struct ProgrammedSl2Vl {
  Sl2VlEntry entry;  // a CA or router port: inPort 0, the port as outPort
  bool qos{false};   // from the QoS tables (else the engine's)
};
struct ProgrammedSl2VlTables {
  // The engine's tables in its order, then the QoS tables it leaves, in theirs.
  std::vector<ProgrammedSl2Vl> tables;
  std::size_t engineWins{0};  // QoS tables the engine's took the place of
};

// `qos` null: the engine's tables alone, as without QoS.
[[nodiscard]] ProgrammedSl2VlTables programmedSl2Vl(std::span<const Sl2VlEntry> engine,
                                                    const qos::QosTables* qos);
// The same as plain entries; with QoS sorted by (node, in port, out port),
// the order of the dry run's sl2vl.dump (without: the engine's order).
[[nodiscard]] std::vector<Sl2VlEntry> programmedSl2VlEntries(std::span<const Sl2VlEntry> engine,
                                                             const qos::QosTables* qos);

// The VL `sl` takes out of `out` having come in by `in` on `node` (a CA or
// router port: in 0, out the port) in `tables`; nullopt where no table is
// programmed there.
[[nodiscard]] std::optional<std::uint8_t> sl2vlOf(std::span<const Sl2VlEntry> tables, NodeId node,
                                                  std::uint8_t in, std::uint8_t out,
                                                  std::uint8_t sl);

}  // namespace ibsm
