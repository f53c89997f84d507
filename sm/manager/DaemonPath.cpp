#include "sm/manager/DaemonPath.h"

#include <fmt/format.h>
#include <ibsm/Lids.h>
#include <ibsm/ProgrammedSl2Vl.h>

#include "routing/analysis/PathFormat.h"
#include "routing/analysis/PathSl.h"
#include "routing/analysis/PathWalk.h"
#include "sm/control/PathRequest.h"

namespace ibsm::sm::manager {
namespace {

// A switch's entry for a LID: from the block the SM knows it holds, else
// the plan's.
std::uint8_t heldEntry(const SubnetPlan& plan, const program::HeldSubnet& held, NodeId sw,
                       Lid lid) {
  const auto block = held.table<program::LftKind>().block(
      plan.fabric.node(sw).guid, static_cast<std::uint16_t>(lid.value / kLftBlockSize));
  if (block) return block->ports[lid.value % kLftBlockSize];
  return sw < plan.routing.lfts.size() ? plan.routing.lfts[sw].at(lid) : kNoRoute;
}

// The SL2VL tables the plan programs (the engine's and the QoS tables, as
// sm/program writes them), each with what the port is known to hold.
std::vector<Sl2VlEntry> heldSl2Vl(const SubnetPlan& plan, const program::HeldSubnet& held) {
  std::vector<Sl2VlEntry> entries =
      programmedSl2VlEntries(plan.routing.sl2vl, plan.qosTables ? &*plan.qosTables : nullptr);
  const auto& table = held.table<program::Sl2VlKind>();
  for (Sl2VlEntry& e : entries)
    if (auto block = table.block(program::sl2vlOwner(plan.fabric.node(e.sw), e), 0))
      e.vl = block->vl;
  return entries;
}

// The planned MFTs with what the switches are known to hold for `mlid`.
std::vector<SwitchMft> heldMfts(const SubnetPlan& plan, const MulticastPlan* planned,
                                const program::HeldSubnet& held, Lid mlid) {
  std::vector<SwitchMft> mfts = planned ? planned->mfts : std::vector<SwitchMft>{};
  mfts.resize(plan.fabric.size());
  const auto& table = held.table<program::MftKind>();
  const auto offset = static_cast<std::uint16_t>(mlid.value - 0xC000);
  const auto mlidBlock = static_cast<std::uint16_t>(offset / kMftBlockSize);
  for (const NodeId sw : plan.fabric.switches()) {
    const Node& node = plan.fabric.node(sw);
    McPortMask mask;
    bool known = true;
    for (std::uint8_t p = 0; p < mftPositions(node.numPorts()) && known; ++p) {
      const auto block = table.block(node.guid, program::mftIndex(mlidBlock, p));
      if (!block) {
        known = false;
        break;
      }
      for (std::size_t bit = 0; bit < kMftPortsPerPosition; ++bit)
        if (block->masks[offset % kMftBlockSize] & (1U << bit))
          mask.set(p * kMftPortsPerPosition + bit);
    }
    if (!known) continue;
    if (mask.none())
      mfts[sw].entries.erase(mlid.value);
    else
      mfts[sw].entries[mlid.value] = mask;
  }
  return mfts;
}

std::string errorLine(std::string_view message) {
  return fmt::format("error: {}\n", message);
}

}  // namespace

std::string answerPath(std::string_view line, const SubnetPlan* plan, const MulticastPlan* planned,
                       const program::HeldSubnet& held,
                       const std::vector<std::pair<Gid, Lid>>& groups) {
  auto request = control::decodePathRequest(line);
  if (!request) return errorLine(request.error().message);
  if (!plan) return errorLine("no sweep has planned the fabric yet: no tables to walk");
  const Fabric& fabric = plan->fabric;
  auto from = analysis::findEndPort(fabric, request->from);
  if (!from) return errorLine(from.error().message);
  if (request->mgid) {
    auto mlid = analysis::resolveMlid(*request->mgid, groups);
    if (!mlid) return errorLine(mlid.error().message);
    const auto mfts = heldMfts(*plan, planned, held, *mlid);
    const auto walk = analysis::walkMulticast(fabric, mfts, *from, *mlid);
    return request->json ? analysis::multicastPathJson(fabric, walk)
                         : analysis::formatMulticastPath(fabric, walk);
  }
  auto to = analysis::findDestinationLid(fabric, request->to);
  if (!to) return errorLine(to.error().message);
  const auto sl2vl = heldSl2Vl(*plan, held);
  const analysis::PathTables tables{.lfts = {}, .sl2vl = sl2vl, .entry = [&](NodeId sw, Lid lid) {
                                      return heldEntry(*plan, held, sw, lid);
                                    }};
  const auto chosen =
      analysis::pathSl(plan->qos.get(), fabric, *from, LidIndex(fabric).owner(*to), request->query,
                       analysis::engineSl(plan->routing.pairSls, *from, *to));
  auto walk = analysis::walkUnicast(fabric, tables, *from, *to, chosen.sl);
  if (chosen.level) walk.qosLevel = chosen.level->name;
  walk.note = chosen.note;
  return request->json ? analysis::unicastPathJson(fabric, walk)
                       : analysis::formatUnicastPath(fabric, walk);
}

}  // namespace ibsm::sm::manager
