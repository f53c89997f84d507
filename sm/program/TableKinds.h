// The kinds of block table programming keeps in step with the plan. Each
// kind is a traits struct: who owns a table (keyed by GUID, so it outlives
// one sweep's NodeIds), the block type, how a reply's payload decodes, and
// whether a block that could not be written must hold the owner's links out
// of Active (true where forwarding depends on it). Everything generic --
// the held block tables, applying replies, the executor's counters and hold
// backs -- works from these; what is particular to a kind is its diff
// function (LftDiff.cpp, PKeyDiff.cpp, Sl2VlDiff.cpp).
//
// Adding a kind (say multicast forwarding tables): a traits struct here and
// in TableKind, a BlockTable member in HeldSubnet (and its branch of
// HeldSubnet::table()), a step target alternative in ProgramSteps.h, and
// one diff function called from Diff.cpp.
#pragma once

#include <ibsm/Ids.h>
#include <ibsm/MadAttributes.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace ibsm::sm::program {

// A port pair's table (SL2VL): on a switch, input and output port; on a CA,
// in = 0 and out = the CA's port.
struct PortPairKey {
  Guid node;
  std::uint8_t in{0};
  std::uint8_t out{0};
  auto operator<=>(const PortPairKey&) const = default;
};

enum class TableKind : std::uint8_t { Lft, PKey, Sl2Vl, VlArb };
inline constexpr std::size_t kTableKinds = 4;
std::string_view tableKindName(TableKind kind);  // "LFT", "PKey", "SL2VL", "VLArb"

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

// Read only: what the ports' VL arbitration tables hold, for the SA's
// VLArbitrationTableRecords. Index = block number 1..4 (1-2 low priority,
// 3-4 high); on a switch the owner's port is the output port.
struct VlArbKind {
  using Owner = PortKey;
  using Block = VlArbitrationBlock;
  static constexpr TableKind kId = TableKind::VlArb;
  static constexpr bool kHoldsLinks = false;  // never written
  static Block decode(const SmpData& data) { return decodeVlArbitrationBlock(data); }
};

// Per-kind counts, indexed by TableKind.
template <typename T>
struct PerKind {
  std::array<T, kTableKinds> values{};
  T& operator[](TableKind k) { return values[static_cast<std::size_t>(k)]; }
  const T& operator[](TableKind k) const { return values[static_cast<std::size_t>(k)]; }
};

}  // namespace ibsm::sm::program
