// diff()'s VLArbitration part: read only. The SA answers
// VLArbitrationTableRecords from what the ports hold, so the blocks each
// port's caps offer are read once (PortInfo:VLArbitrationLowCap entries of
// the low table: block 1 holds entries 0-31, block 2 entries 32-63, so
// block 2 only with a cap above 32 -- ibsim refuses it below; the same for
// the high table's blocks 3 and 4), when the held model
// does not know them (a new port, or one whose state was forgotten); a
// Known block is never read again. Ports: every CA port the plan gives a LID
// (modifier port 0, reached through that port), every external port of a
// switch and its port 0 where the caps offer a table (modifier port = the
// output port). SubnetProgrammer::program() never sends them: readForSa()
// does, once the subnet is up, so bring-up waits on none of them.
#include "sm/program/Diff.h"
#include "sm/program/DiffParts.h"

namespace ibsm::sm::program {
namespace {

void readBlocks(const DiffInput& in, PortRef port, const PortInfo& info, const DrPath& path,
                ProgramDiff& out) {
  const Node& node = in.seen.fabric.node(port.node);
  const PortKey owner{node.guid, port.port};
  const std::uint8_t modifierPort = node.isSwitch() ? port.port : std::uint8_t{0};
  const auto& table = in.held.table<VlArbKind>();
  auto read = [&](std::uint16_t block) {
    if (table.state(owner, block) != BlockState::Unknown) return;
    out.phase(ProgramPhase::ReadVlArb)
        .push_back(ProgramStep{
            BlockTarget<VlArbKind>{.node = port.node, .owner = owner, .index = block, .count = 5},
            SmpRequest::get(AttributeId::VlArbitrationTable,
                            vlArbitrationModifier(block, modifierPort), path)});
  };
  constexpr std::uint8_t kPerBlock = 32;
  if (info.vlArbitrationLowCap > 0) read(vlArbBlock::kLowFirst);
  if (info.vlArbitrationLowCap > kPerBlock) read(vlArbBlock::kLowSecond);
  if (info.vlArbitrationHighCap > 0) read(vlArbBlock::kHighFirst);
  if (info.vlArbitrationHighCap > kPerBlock) read(vlArbBlock::kHighSecond);
}

}  // namespace

void diffVlArb(const DiffInput& in, ProgramDiff& out) {
  const Fabric& fabric = in.seen.fabric;
  for (const auto& [port, info] : in.seen.portInfo) {
    const Node& node = fabric.node(port.node);
    // The plan's LID, not the held one: on a fresh fabric the CA ports get
    // theirs in this very sweep, after this diff was made.
    if (!node.isSwitch() && !in.plan.fabric.port(port).lid.isUnicast()) continue;
    // A switch takes the SMP on any route; a CA only for the port it came in on.
    const PortRef via = node.isSwitch() ? PortRef{port.node, 0} : port;
    auto path = pathToPort(in.seen, via);
    if (!path) continue;
    readBlocks(in, port, info, *path, out);
  }
}

}  // namespace ibsm::sm::program
