#include "sm/manager/DaemonDump.h"

#include <fmt/format.h>
#include <ibsm/Dumps.h>
#include <ibsm/Lids.h>
#include <ibsm/ProgrammedSl2Vl.h>

#include <algorithm>

namespace ibsm::sm::manager {
namespace {

using program::LftKind;
using program::MftKind;
using program::Sl2VlKind;

// Each switch's LFT for LIDs 0..maxLid from its known blocks, by NodeId.
RoutingResult heldLfts(const Fabric& fabric, const program::HeldSubnet& held) {
  RoutingResult out;
  out.lfts.resize(fabric.size());
  const std::size_t maxLid = LidIndex(fabric).maxLid().value;
  const auto& table = held.table<LftKind>();
  for (const NodeId sw : fabric.switches()) {
    const Guid guid = fabric.node(sw).guid;
    // A switch forwards no LID past LinearFDBTop, whatever its blocks say;
    // nullopt (a SwitchInfo Set failed): the top is not known, the blocks are.
    const std::size_t last =
        std::min(maxLid, std::size_t{held.lftTop(guid).value_or(Lid{0xFFFF}).value});
    auto& ports = out.lfts[sw].port;
    ports.assign(maxLid + 1, kNoRoute);
    for (std::size_t first = 0; first <= last; first += kLftBlockSize) {
      const auto block = table.block(guid, static_cast<std::uint16_t>(first / kLftBlockSize));
      if (!block) continue;
      for (std::size_t lid = first; lid <= last && lid < first + kLftBlockSize; ++lid)
        ports[lid] = block->ports[lid - first];
    }
  }
  return out;
}

// Each switch's MFT entries from its known blocks, by NodeId. Blocks past
// those tracked hold nothing the SM wrote (the table is reset with none).
std::vector<SwitchMft> heldMfts(const Fabric& fabric, const program::HeldSubnet& held) {
  std::vector<SwitchMft> out(fabric.size());
  const auto& table = held.table<MftKind>();
  for (const NodeId sw : fabric.switches()) {
    const Guid guid = fabric.node(sw).guid;
    for (std::size_t index = 0; index < table.blocks(guid); ++index) {
      const auto block = table.block(guid, static_cast<std::uint16_t>(index));
      if (!block) continue;
      const auto position = program::mftPosition(static_cast<std::uint16_t>(index));
      const std::size_t firstMlid =
          kFirstMlid.value +
          std::size_t{program::mftMlidBlock(static_cast<std::uint16_t>(index))} * kMftBlockSize;
      for (std::size_t i = 0; i < kMftBlockSize; ++i) {
        if (block->masks[i] == 0) continue;
        out[sw].entries[static_cast<std::uint16_t>(firstMlid + i)] |=
            McPortMask{block->masks[i]} << (position * kMftPortsPerPosition);
      }
    }
  }
  return out;
}

// The SL2VL tables the plan programs (the engine's and the QoS tables:
// ProgrammedSl2Vl.h), as held, in the dry run's sl2vl.dump order.
RoutingResult heldSl2Vl(const SubnetPlan& plan, const program::HeldSubnet& held) {
  RoutingResult out;
  const Fabric& fabric = plan.fabric;
  const auto& table = held.table<Sl2VlKind>();
  for (const Sl2VlEntry& e :
       programmedSl2VlEntries(plan.routing.sl2vl, plan.qosTables ? &*plan.qosTables : nullptr)) {
    if (const auto held = table.block(program::sl2vlOwner(fabric.node(e.sw), e), 0))
      out.sl2vl.push_back({.sw = e.sw, .inPort = e.inPort, .outPort = e.outPort, .vl = held->vl});
  }
  return out;
}

}  // namespace

Result<std::string> dumpHeldTables(control::DumpKind kind, const SubnetPlan* plan,
                                   const program::HeldSubnet& held, bool master) {
  if (!plan || !held.hasObservation())
    return fail("no sweep has programmed the fabric yet: nothing to dump");
  if (!master)
    return fail("this SM is not the master: the tables are the master's to dump (ask it)");
  const Fabric& fabric = plan->fabric;
  switch (kind) {
    case control::DumpKind::Lfts:
      return formatLftDump(fabric, heldLfts(fabric, held));
    case control::DumpKind::Mfts:
      return formatMftDump(fabric, heldMfts(fabric, held));
    case control::DumpKind::Guid2Lid:
      return formatGuid2Lid(toGuid2Lid(plan->lids));
    case control::DumpKind::Sl2Vl:
      return formatSl2VlDump(fabric, heldSl2Vl(*plan, held));
  }
  return fail("unknown table kind");
}

}  // namespace ibsm::sm::manager
