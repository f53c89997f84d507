// The kinds of block table programming keeps in step with the plan. Each
// kind is a traits struct: who owns a table (keyed by GUID, so it outlives
// one sweep's NodeIds), the block type, how a reply's payload decodes, and
// whether a block that could not be written must hold the owner's links out
// of Active (true where forwarding depends on it). Everything generic --
// the held block tables, applying replies, the executor's counters and hold
// backs -- works from these; what is particular to a kind is its diff
// function (LftDiff.cpp, PKeyDiff.cpp, Sl2VlDiff.cpp, MftDiff.cpp).
//
// Adding a kind: a traits struct here and in TableKind, a BlockTable member in HeldSubnet (and its
// branch of HeldSubnet::table()), a step target alternative in ProgramSteps.h, and one diff
// function called from Diff.cpp.
#pragma once

#include <ibsm/Fabric.h>
#include <ibsm/Ids.h>
#include <ibsm/MadAttributes.h>
#include <ibsm/Routing.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "sm/program/PerKind.h"

namespace ibsm::sm::program {

// A port pair's table (SL2VL): on a switch, input and output port; on a CA,
// in = 0 and out = the CA's port.
struct PortPairKey {
  Guid node;
  std::uint8_t in{0};
  std::uint8_t out{0};
  auto operator<=>(const PortPairKey&) const = default;
};

// The owner of an SL2VL table as programming keys it: a CA's one table has
// input port 0 whatever the entry names.
inline PortPairKey sl2vlOwner(const Node& node, const Sl2VlEntry& e) {
  return {node.guid, node.isSwitch() ? e.inPort : std::uint8_t{0}, e.outPort};
}

enum class TableKind : std::uint8_t { Lft, PKey, Sl2Vl, VlArb, Mft };
inline constexpr std::size_t kTableKinds = 5;
std::string_view tableKindName(TableKind kind);  // "LFT", "PKey", "SL2VL", "VLArb", "MFT"

struct LftKind {
  using Owner = Guid;  // the switch
  using Block = LftBlock;
  static constexpr TableKind kId = TableKind::Lft;
  static constexpr bool kHoldsLinks = true;  // a wrong LFT forwards into the void
  static Block decode(const SmpData& data) { return decodeLftBlock(data); }
};

struct PKeyKind {
  using Owner = PortKey;
  using Block = PKeyBlock;
  static constexpr TableKind kId = TableKind::PKey;
  static constexpr bool kHoldsLinks = false;  // sent again by the next sweep; links unaffected
  static Block decode(const SmpData& data) { return decodePKeyBlock(data); }
};

struct Sl2VlKind {
  using Owner = PortPairKey;
  using Block = SlToVlTable;
  static constexpr TableKind kId = TableKind::Sl2Vl;
  static constexpr bool kHoldsLinks = true;  // a wrong VL breaks the routes' deadlock freedom
  static Block decode(const SmpData& data) { return decodeSlToVlTable(data); }
};

// The ports' VL arbitration tables: written where plan.qosTables gives
// them, read for the SA's VLArbitrationTableRecords everywhere else
// (VlArbDiff.cpp). Index = block number 1..4 (1-2 low priority, 3-4 high);
// on a switch the owner's port is the output port.
struct VlArbKind {
  using Owner = PortKey;
  using Block = VlArbitrationBlock;
  static constexpr TableKind kId = TableKind::VlArb;
  // A table the port would not take shares the link's bandwidth among its
  // VLs otherwise than QoS asked -- every packet still gets through on the
  // VL its SL2VL table picks, so no route breaks, while holding the links
  // would cut every path through the node for it. The block stays Stale
  // and the next sweep writes it again (as PKey).
  static constexpr bool kHoldsLinks = false;
  static Block decode(const SmpData& data) { return decodeVlArbitrationBlock(data); }
};

// A switch's multicast forwarding table. Index = MLID block * 16 +
// position (block = (MLID - 0xC000) / 32, position = port / 16), so one
// MLID block's positions are neighbours and a table used up to MLID block
// b takes 16 * (b + 1) slots at most.
struct MftKind {
  using Owner = Guid;  // the switch
  using Block = MftBlock;
  static constexpr TableKind kId = TableKind::Mft;
  // A switch whose MFT could not be written still forwards unicast right:
  // holding its links out of Active would cut every path through it for a
  // table whose worst is a lost or missing multicast datagram (UD, which
  // IPoIB and rdma_cm retry). What must not happen -- old and new trees
  // mixed into a loop -- is kept out by deferring the grow writes of an
  // MLID block whose prune failed (SubnetProgrammer), not by links.
  static constexpr bool kHoldsLinks = false;
  static Block decode(const SmpData& data) { return decodeMftBlock(data); }
};
inline constexpr std::uint16_t mftIndex(std::uint16_t mlidBlock, std::uint8_t position) {
  return static_cast<std::uint16_t>(mlidBlock * kMftPortsPerPosition + position);
}
inline constexpr std::uint16_t mftMlidBlock(std::uint16_t index) {
  return static_cast<std::uint16_t>(index / kMftPortsPerPosition);
}
inline constexpr std::uint8_t mftPosition(std::uint16_t index) {
  return static_cast<std::uint8_t>(index % kMftPortsPerPosition);
}

// Per-kind counts, indexed by TableKind.
template <typename T>
using PerKind = ibsm::PerKind<TableKind, T, kTableKinds>;

}  // namespace ibsm::sm::program
