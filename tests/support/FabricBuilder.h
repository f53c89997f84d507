// Hand-built fabrics for tests that need one exact shape (a broken trunk, a
// switch with no hosts) rather than a generated family. Nodes are named and
// cabled by name; GUIDs follow ibsim's scheme (CAs from 0x100000 with one GUID
// per port after the node GUID, switches from 0x200000) so failures print the
// GUIDs a simulator run of the same cabling would show.
//
//   FabricBuilder b;
//   b.addSwitch("sw0", 8);
//   b.addSwitch("sw1", 8);
//   b.cable("sw0", 1, "sw1", 1);
//   b.addHost("h0", "sw0", 2);
//   const Fabric f = b.build();  // with LIDs
//
// Cabled ports come out Active with a LinkUp physical state, as after the
// SM's first sweep. Errors throw std::runtime_error: test helpers only.
#pragma once

#include <ibsm/Fabric.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

namespace ibsm::testing {

class FabricBuilder {
 public:
  NodeId addSwitch(std::string name, std::uint8_t ports = 8);
  NodeId addCa(std::string name, std::uint8_t ports = 1);
  FabricBuilder& cable(std::string_view a, std::uint8_t aPort, std::string_view b,
                       std::uint8_t bPort);
  // A one-port CA cabled to `switchName`[switchPort].
  NodeId addHost(std::string name, std::string_view switchName, std::uint8_t switchPort);

  NodeId id(std::string_view name) const;
  // The fabric as built so far, without LIDs.
  const Fabric& fabric() const { return fabric_; }
  // A copy with fresh LIDs.
  Fabric build(std::uint8_t lmc = 0) const;

 private:
  NodeId add(Node node);

  Fabric fabric_;
  std::unordered_map<std::string, NodeId> byName_;
  std::uint64_t nextCaGuid_{0x100000};
  std::uint64_t nextSwitchGuid_{0x200000};
};

}  // namespace ibsm::testing
