// What the MFT programming tests share: a ProgramBench whose switches hold
// multicast tables, plans of MFT entries given by switch GUID (the plan's
// NodeIds are discovery's, the wire's the fixture's), and a walker that
// finds a forwarding loop in one MLID's masks.
#pragma once

#include <ibsm/Multicast.h>

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "tests/sm/program/ProgramBench.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::sm::program {

inline McPortMask portsOf(std::initializer_list<int> ports) {
  McPortMask m;
  for (int p : ports) m.set(static_cast<std::size_t>(p));
  return m;
}

// MLID -> ports, per switch GUID.
using MftEntries = std::map<Guid, std::map<std::uint16_t, McPortMask>>;

// Switches with 1024 MLIDs (as ibsim's); `topSupported`: switch port 0
// advertises IsMulticastFDBTopSupported.
inline std::unique_ptr<ProgramBench> mftBench(Fabric f, PortRef smPort, const std::string& engine,
                                              bool topSupported = false) {
  for (NodeId n = 0; n < f.size(); ++n) {
    Node& node = f.node(n);
    if (!node.isSwitch()) continue;
    node.switchData->multicastFdbCap = 1024;
    if (topSupported) node.ports[0].capabilityMask |= capability::kIsMulticastFdbTopSupported;
  }
  return std::make_unique<ProgramBench>(std::move(f), smPort, engine);
}

// The plan edit that asks for `entries` (and no other MFT entry).
inline std::function<void(SubnetPlan&)> withMfts(MftEntries entries) {
  return [entries = std::move(entries)](SubnetPlan& plan) {
    MulticastPlan mc;
    mc.mfts.resize(plan.fabric.size());
    for (const auto& [guid, byMlid] : entries) {
      const auto n = plan.fabric.findNode(guid);
      if (!n) throw std::runtime_error("no such switch in the plan");
      for (const auto& [mlid, mask] : byMlid) mc.mfts[*n].entries[mlid] = mask;
    }
    plan.multicast = std::move(mc);
  };
}

inline Guid guidOf(ProgramBench& b, std::string_view name) {
  return b.wire().fabric().node(ibsm::testing::nodeNamed(b.wire().fabric(), name)).guid;
}

// A loop: some packet of the MLID comes back to a switch port it entered
// before. States are (switch, port it entered by); a switch sends a copy
// out of every port of its mask but the one it came in by, and a copy that
// reaches a switch becomes a new state. A loop is a cycle among states.
inline bool forwardsInALoop(const Fabric& f, const std::map<NodeId, McPortMask>& masks) {
  std::map<PortRef, int> colour;  // 0 new, 1 on the stack, 2 done
  std::function<bool(PortRef)> visit = [&](PortRef at) {
    colour[at] = 1;
    auto it = masks.find(at.node);
    if (it != masks.end()) {
      for (std::uint8_t q = 1; q <= f.node(at.node).numPorts(); ++q) {
        if (q == at.port || !it->second.test(q)) continue;
        const auto& remote = f.node(at.node).ports[q].remote;
        if (!remote || !f.node(remote->node).isSwitch()) continue;
        const int c = colour[*remote];
        if (c == 1) return true;
        if (c == 0 && visit(*remote)) return true;
      }
    }
    colour[at] = 2;
    return false;
  };
  for (NodeId n = 0; n < f.size(); ++n) {
    if (!f.node(n).isSwitch()) continue;
    for (std::uint8_t p = 0; p <= f.node(n).numPorts(); ++p)
      if (colour[PortRef{n, p}] == 0 && visit(PortRef{n, p})) return true;
  }
  return false;
}

// A switch's MFT as the SMPs it was sent leave it: (switch, block index) ->
// block, starting from what the wire holds.
class MftImage {
 public:
  MftImage(const ibsm::testing::FakeFabricTransport& wire, std::uint16_t mlid) : mlid_(mlid) {
    const Fabric& f = wire.fabric();
    for (NodeId n = 0; n < f.size(); ++n)
      if (f.node(n).isSwitch()) masks_[n] = wire.mft(n, mlid);
  }
  // Applies an MFT Set taken from a diff made on `plan` (its NodeIds).
  void apply(const SubnetPlan& plan, const Fabric& wireFabric, const ProgramStep& step) {
    const auto& t = std::get<BlockTarget<MftKind>>(step.target);
    const NodeId sw = *wireFabric.findNode(plan.fabric.node(t.node).guid);
    const std::size_t offset = mlid_ - std::size_t{kFirstMlid.value};
    if (offset / kMftBlockSize != mftMlidBlock(t.index)) return;
    const std::uint16_t bits = decodeMftBlock(step.request.data).masks[offset % kMftBlockSize];
    for (std::size_t b = 0; b < kMftPortsPerPosition; ++b)
      masks_[sw].set(mftPosition(t.index) * kMftPortsPerPosition + b, ((bits >> b) & 1U) != 0);
  }
  const std::map<NodeId, McPortMask>& masks() const { return masks_; }

 private:
  std::uint16_t mlid_;
  std::map<NodeId, McPortMask> masks_;
};

}  // namespace ibsm::sm::program
