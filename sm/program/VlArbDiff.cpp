// diff()'s VLArbitration part (IBA 14.2.5.9). A port's low-priority table
// is blocks 1 (entries 0-31) and 2 (32-63), its high-priority table blocks
// 3 and 4; PortInfo:VLArbitrationLowCap and HighCap say how many entries
// the port uses, so block 2 (4) exists only with a cap above 32 -- ibsim
// refuses it below. Ports: every CA port the plan gives a LID (modifier
// port 0, reached through that port), every external port of a switch and
// its port 0 where the caps offer a table (modifier port = the output port).
//
// Where plan.qosTables gives the port its tables (QoS), each block is read
// when Unknown (ReadTables) and written when it differs, in the Sl2Vl
// phase, as OpenSM does: only the entries below the cap are the plan's
// (the others are kept as held, zero when unknown, so a port that
// answers them otherwise is not written every sweep), and each entry's VL
// is masked by the port's OperationalVLs (vlMask()). Every other port's
// blocks are read once for the SA's VLArbitrationTableRecords (ReadVlArb),
// when the held model does not know them; SubnetProgrammer::program()
// never sends those: readForSa() does, once the subnet is up, so bring-up
// waits on none of them.
#include <ibsm/QosPolicy.h>

#include <algorithm>
#include <array>
#include <span>

#include "sm/program/Diff.h"
#include "sm/program/DiffParts.h"

namespace ibsm::sm::program {
namespace {

constexpr std::uint8_t kPerBlock = 32;

struct PortTables {
  PortKey owner;
  NodeId node{0};
  std::uint8_t modifierPort{0};
  const DrPath& path;
};

// The entries of a table a block holds, and how many of them the port uses.
struct BlockSpan {
  std::uint16_t block{0};
  std::uint8_t cap{0};     // the table's entries (VLArbitrationLowCap or HighCap)
  std::uint8_t offset{0};  // of the block's first entry in the table
  std::span<const qos::VlWeight> planned{};
  std::uint8_t used() const {
    return cap > offset ? static_cast<std::uint8_t>(std::min<int>(cap - offset, kPerBlock)) : 0;
  }
};

std::array<BlockSpan, 4> blocksOf(const PortInfo& info, const qos::QosVlArb* q) {
  auto planned = [q](bool high) {
    return q ? std::span<const qos::VlWeight>(high ? q->high : q->low)
             : std::span<const qos::VlWeight>{};
  };
  return {BlockSpan{vlArbBlock::kLowFirst, info.vlArbitrationLowCap, 0, planned(false)},
          BlockSpan{vlArbBlock::kLowSecond, info.vlArbitrationLowCap, kPerBlock, planned(false)},
          BlockSpan{vlArbBlock::kHighFirst, info.vlArbitrationHighCap, 0, planned(true)},
          BlockSpan{vlArbBlock::kHighSecond, info.vlArbitrationHighCap, kPerBlock, planned(true)}};
}

BlockTarget<VlArbKind> targetOf(const PortTables& port, std::uint16_t block) {
  return BlockTarget<VlArbKind>{.node = port.node, .owner = port.owner, .index = block, .count = 5};
}

void readBlock(const DiffInput& in, const PortTables& port, std::uint16_t block, ProgramDiff& out) {
  if (in.held.state<VlArbKind>(port.owner, block) != BlockState::Unknown) return;
  out.phase(ProgramPhase::ReadVlArb)
      .push_back(
          ProgramStep{targetOf(port, block),
                      SmpRequest::get(AttributeId::VlArbitrationTable,
                                      vlArbitrationModifier(block, port.modifierPort), port.path)});
}

void writeBlock(const DiffInput& in, const PortTables& port, const BlockSpan& b, std::uint8_t mask,
                ProgramDiff& out) {
  VlArbitrationBlock want =
      in.held.table<VlArbKind>().block(port.owner, b.block).value_or(VlArbitrationBlock{});
  for (std::uint8_t i = 0; i < b.used(); ++i) {
    const std::size_t at = b.offset + i;
    const qos::VlWeight e = at < b.planned.size() ? b.planned[at] : qos::VlWeight{};
    want.entries[i] = {.vl = static_cast<std::uint8_t>(e.vl & mask), .weight = e.weight};
  }
  const auto modifier = vlArbitrationModifier(b.block, port.modifierPort);
  diffBlock(
      in.held, targetOf(port, b.block), want, ProgramPhase::Sl2Vl,
      [&] { return SmpRequest::get(AttributeId::VlArbitrationTable, modifier, port.path); },
      [&] {
        return SmpRequest::set(AttributeId::VlArbitrationTable, modifier, port.path, encode(want));
      },
      out);
}

}  // namespace

const qos::QosVlArb* findQosVlArb(const SubnetPlan& plan, PortRef port) {
  if (!plan.qosTables) return nullptr;
  const auto& all = plan.qosTables->vlArb;
  // Sorted by port (QosPolicy.h); a search keeps a large fabric linear.
  auto it = std::ranges::lower_bound(all, port, {}, &qos::QosVlArb::port);
  return it != all.end() && it->port == port ? &*it : nullptr;
}

void diffVlArb(const DiffInput& in, ProgramDiff& out) {
  const Fabric& fabric = in.seen.fabric;
  for (const auto& [port, info] : in.seen.portInfo) {
    const Node& node = fabric.node(port.node);
    // The plan's LID, not the held one: on a fresh fabric the CA ports get
    // theirs in this very sweep, after this diff was made.
    if (!node.isSwitch() && !in.plan.fabric.port(port).lid.isUnicast()) continue;
    const PortKey owner{node.guid, port.port};
    const qos::QosVlArb* planned = findQosVlArb(in.plan, port);
    const auto blocks = blocksOf(info, planned);
    // Cheap when nothing is to be done (every sweep after the first): no
    // route worked out for a port whose blocks are all known and not the
    // plan's.
    if (!planned && !in.saReads) continue;
    if (!planned && std::ranges::none_of(blocks, [&](const BlockSpan& b) {
          return b.used() != 0 && in.held.state<VlArbKind>(owner, b.block) == BlockState::Unknown;
        }))
      continue;
    // A switch takes the SMP on any route; a CA only for the port it came in on.
    const PortRef via = node.isSwitch() ? PortRef{port.node, 0} : port;
    auto path = pathToPort(in.seen, via);
    if (!path) continue;
    const PortTables tables{.owner = owner,
                            .node = port.node,
                            .modifierPort = node.isSwitch() ? port.port : std::uint8_t{0},
                            .path = *path};
    const std::uint8_t mask = vlMask(operationalVlsAfterSweep(in.seen, port));
    for (const BlockSpan& b : blocks) {
      if (b.used() == 0) continue;
      if (planned) {
        writeBlock(in, tables, b, mask, out);
      } else {
        readBlock(in, tables, b.block, out);
      }
    }
  }
}

}  // namespace ibsm::sm::program
