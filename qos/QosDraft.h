// The tables planQosTables() builds before they are finished: shared by
// QosTables.cpp (OpenSM's tables, the qos-setup scopes) and QosLayers.cpp
// (QoS classes multiplied with a routing engine's VL layers).
#pragma once

#include <ibsm/QosOptions.h>

#include <map>
#include <utility>

namespace ibsm::qos {

using Sl2VlKey = std::pair<PortRef, std::uint8_t>;  // (output port, input port)

struct Draft {
  std::map<PortRef, QosVlArb> vlArb;
  std::map<Sl2VlKey, std::array<std::uint8_t, 16>> sl2vl;
};

// The OperationalVLs the SM gives the port (the smaller VLCap of the link's
// ends) as the mask OpenSM applies to the VLs it writes.
[[nodiscard]] std::uint8_t vlMask(const Fabric& fabric, PortRef ref);

// The draft finished with the engine's VL layers (QosOptions.h says the
// rule): the classes x layers tables, or why they do not fit.
[[nodiscard]] Result<QosTables> layerTables(const Draft& d, const Fabric& fabric,
                                            const QosOptions& options, const ResolvedQos* policy,
                                            const std::vector<Sl2VlEntry>& engine);

}  // namespace ibsm::qos
