// Judges for discovery tests, shared by the unit tests (fake fabric) and the
// ibsim program: compare a discovered Fabric with the Fabric it should equal
// by GUID (NodeIds differ: discovery numbers nodes in the order they answer),
// and follow a directed route through a Fabric.
//
//   auto diffs = compareFabrics(truth, subnet->fabric, Compare::Everything);
//   EXPECT_THAT(diffs, IsEmpty());   // each entry names the node and port
#pragma once

#include <ibsm/Fabric.h>
#include <ibsm/MadPath.h>

#include <optional>
#include <string>
#include <vector>

namespace ibsm::testing {

enum class Compare {
  // Node types, GUIDs, system image GUIDs, descriptions, port counts, GUIDs
  // of cabled ports, and cables: what a live fabric and its net file share.
  Identity,
  // Also vendor/device ids, partition cap, every PortInfo-derived field of
  // every switch port and cabled CA port, and SwitchData.
  Everything,
};

// Differences in words; empty when equal. A CA port without a cable is
// skipped: an SMP can never enter it, so discovery cannot know it.
std::vector<std::string> compareFabrics(const Fabric& expected, const Fabric& actual, Compare what);

// The port an SMP following `path` from `smPort` enters at its last hop, as
// the hardware would take it (only switches forward); nullopt if it is lost.
std::optional<PortRef> followPath(const Fabric& fabric, PortRef smPort, const DrPath& path);
// Same for the raw initial path of an SMP, with every node passed through.
std::vector<NodeId> nodesOnPath(const Fabric& fabric, PortRef smPort,
                                std::span<const std::uint8_t> ports);

// Where ibsim attaches the SM: port 0 of a switch, or the first cabled port
// of a CA, of the fabric's first node.
PortRef firstNodePort(const Fabric& fabric);

// Cables as "guid[port]-guid[port]" strings, sorted: for set comparisons.
std::vector<std::string> cableList(const Fabric& fabric);

}  // namespace ibsm::testing
