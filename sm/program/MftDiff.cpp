// diff()'s MFT part: per switch, the MulticastForwardingTable blocks (32
// MLIDs by one 16-port position) that are not known to hold what the
// trees (in.mfts) want, split between the phases MftPrune and Mfts so that
// no moment of a reprogramming forwards in a loop (ProgramSteps.h says
// why), and SwitchInfo:MulticastFDBTop where the switch supports it.
//
// Which blocks: every position of the MLID blocks up to the highest MLID a
// group holds (OpenSM writes every position of the blocks in use), on every
// switch -- also one on no tree: a switch taken over from another SM may
// hold that SM's entries there (a failover), and unknown blocks are written
// once, then known -- and above them those the held model tracks (known to
// hold entries the plan dropped: cleared; a write that failed: sent again).
// Blocks never written and above every group's MLID are left alone: a
// switch starts with them empty, and MulticastFDBTop hides them where it is
// supported.
#include <fmt/format.h>
#include <ibsm/Multicast.h>

#include <algorithm>
#include <map>

#include "sm/program/Diff.h"
#include "sm/program/DiffParts.h"

namespace ibsm::sm::program {
namespace {

// MulticastFDBTop values below the first MLID all say "no entry".
constexpr std::uint16_t kNoMcastTop = kFirstMlid.value - 1;

struct PlannedMft {
  std::map<std::uint16_t, MftBlock> blocks;  // by MftKind index; only non-empty ones
  std::optional<std::uint16_t> lastBlock;    // highest MLID block with an entry
  std::uint16_t top{kNoMcastTop};            // highest MLID with an entry
  std::size_t beyondCap{0};                  // entries the switch cannot hold
};

// The MLID blocks up to the highest MLID any group holds, members or not.
std::size_t blocksInUse(const MulticastPlan& plan) {
  std::size_t out = 0;
  for (const McTree& t : plan.trees) {
    if (t.mlid.value < kFirstMlid.value || t.mlid.value > kLastMlid.value) continue;
    out = std::max(out, std::size_t{(t.mlid.value - kFirstMlid.value) / kMftBlockSize} + 1);
  }
  return out;
}

PlannedMft plannedBlocks(const SwitchMft* mft, const Node& node, const SwitchInfo& si) {
  PlannedMft out;
  if (!mft) return out;
  const std::uint8_t positions = mftPositions(node.numPorts());
  for (const auto& [mlid, mask] : mft->entries) {
    if (mlid < kFirstMlid.value || mlid > kLastMlid.value) continue;
    const std::size_t offset = mlid - kFirstMlid.value;
    if (offset >= si.multicastFdbCap) {
      ++out.beyondCap;
      continue;
    }
    const auto block = static_cast<std::uint16_t>(offset / kMftBlockSize);
    bool any = false;
    for (std::uint8_t p = 0; p < positions; ++p) {
      const auto bits = static_cast<std::uint16_t>(
          ((mask >> (p * kMftPortsPerPosition)) & McPortMask{0xFFFF}).to_ulong());
      if (bits == 0) continue;
      out.blocks[mftIndex(block, p)].masks[offset % kMftBlockSize] = bits;
      any = true;
    }
    if (!any) continue;
    out.lastBlock = std::max(out.lastBlock.value_or(0), block);
    out.top = std::max(out.top, mlid);
  }
  return out;
}

MftBlock intersect(const MftBlock& a, const MftBlock& b) {
  MftBlock out;
  for (std::size_t i = 0; i < kMftBlockSize; ++i)
    out.masks[i] = static_cast<std::uint16_t>(a.masks[i] & b.masks[i]);
  return out;
}

struct SwitchContext {
  NodeId sw;
  Guid guid;
  const DrPath& path;
};

void write(const SwitchContext& c, std::uint16_t index, const MftBlock& block, ProgramPhase phase,
           ProgramDiff& out) {
  const auto modifier = mftModifier(mftMlidBlock(index), mftPosition(index));
  out.phase(phase).push_back(ProgramStep{
      BlockTarget<MftKind>{.node = c.sw, .owner = c.guid, .index = index, .count = 0},
      SmpRequest::set(AttributeId::MulticastForwardingTable, modifier, c.path, encode(block))});
}

// One block: prune what the plan drops (MftPrune), then write what it adds
// (Mfts). A block whose contents are not known: on a switch taken afresh
// (never written since), written once, empty in MftPrune (clearing never
// makes a loop), with entries in Mfts; after a failed write (it may hold
// the old entries or the asked ones) cleared in MftPrune first, as nothing
// smaller than empty is known to be a subset of what it holds.
void diffOne(const SwitchContext& c, const HeldSubnet& held, std::uint16_t index,
             const MftBlock& want, ProgramDiff& out) {
  const auto& table = held.table<MftKind>();
  const auto have = table.block(c.guid, index);
  if (have == want) return;
  if (!have) {
    static const MftBlock kEmpty;
    const bool failedBefore = index < table.blocks(c.guid);
    if (want == kEmpty || failedBefore) write(c, index, kEmpty, ProgramPhase::MftPrune, out);
    if (want != kEmpty) write(c, index, want, ProgramPhase::Mfts, out);
    return;
  }
  const MftBlock pruned = intersect(*have, want);
  if (pruned != *have) write(c, index, pruned, ProgramPhase::MftPrune, out);
  if (pruned != want) write(c, index, want, ProgramPhase::Mfts, out);
}

// MulticastFDBTop: lowered with the prunes (it only hides entries), raised
// once the entries below it are written.
void diffTop(const DiffInput& in, const SwitchContext& c, const SwitchInfo& si,
             std::uint16_t wantTop, ProgramDiff& out) {
  const auto heldTop = std::max(si.multicastFdbTop, kNoMcastTop);
  if (heldTop == wantTop) return;
  SwitchInfo want = switchInfoAfterLfts(in, c.sw, si);
  want.multicastFdbTop = wantTop;
  out.phase(wantTop < heldTop ? ProgramPhase::MftPrune : ProgramPhase::MftTop)
      .push_back(ProgramStep{SwitchInfoTarget{c.sw, Lid{want.linearFdbTop}, Lid{wantTop}},
                             SmpRequest::set(AttributeId::SwitchInfo, 0, c.path, encode(want))});
}

bool supportsMcastTop(const discovery::DiscoveredSubnet& seen, NodeId sw) {
  auto it = seen.portInfo.find(PortRef{sw, 0});
  return it != seen.portInfo.end() &&
         (it->second.capabilityMask & capability::kIsMulticastFdbTopSupported) != 0;
}

void diffSwitch(const DiffInput& in, NodeId sw, std::size_t inUse, ProgramDiff& out) {
  const Node& node = in.seen.fabric.node(sw);
  const auto& mfts = in.mfts->mfts;
  const SwitchMft* mft = sw < mfts.size() ? &mfts[sw] : nullptr;
  auto si = in.seen.switchInfo.find(sw);
  auto path = pathToPort(in.seen, PortRef{sw, 0});
  if (si == in.seen.switchInfo.end() || !path) {
    if (mft && !mft->entries.empty())
      out.notes.push_back(fmt::format("switch {} ({}): SwitchInfo not read, its MFT is left alone",
                                      node.description, node.guid));
    return;
  }
  const PlannedMft plan = plannedBlocks(mft, node, si->second);
  if (plan.beyondCap > 0) {
    out.notes.push_back(
        fmt::format("switch {} ({}): {} multicast entries past its MulticastFDBCap {} are left out",
                    node.description, node.guid, plan.beyondCap, si->second.multicastFdbCap));
  }
  const SwitchContext c{sw, node.guid, *path};
  const std::uint8_t positions = mftPositions(node.numPorts());
  const std::size_t tracked = in.held.table<MftKind>().blocks(node.guid);
  const std::size_t capBlocks =
      (std::size_t{si->second.multicastFdbCap} + kMftBlockSize - 1) / kMftBlockSize;
  const std::size_t planned =
      std::max(plan.lastBlock ? *plan.lastBlock + std::size_t{1} : 0, std::min(inUse, capBlocks));
  const std::size_t upTo =
      std::max(planned, (tracked + kMftPortsPerPosition - 1) / kMftPortsPerPosition);
  static const MftBlock kEmpty;
  for (std::size_t b = 0; b < upTo; ++b) {
    for (std::uint8_t p = 0; p < positions; ++p) {
      const std::uint16_t index = mftIndex(static_cast<std::uint16_t>(b), p);
      if (b >= planned && index >= tracked) continue;  // never written, not used
      auto want = plan.blocks.find(index);
      diffOne(c, in.held, index, want == plan.blocks.end() ? kEmpty : want->second, out);
    }
  }
  if (supportsMcastTop(in.seen, sw)) diffTop(in, c, si->second, plan.top, out);
}

}  // namespace

void diffMfts(const DiffInput& in, ProgramDiff& out) {
  const std::size_t inUse = blocksInUse(*in.mfts);
  for (const NodeId sw : in.seen.fabric.switches()) diffSwitch(in, sw, inUse, out);
}

}  // namespace ibsm::sm::program
