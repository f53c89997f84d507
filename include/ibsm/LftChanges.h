// What a change of routing moves on the switches: the tables a fabric held
// before against the tables routed now, entry by entry and per 64-LID block,
// the unit the SM writes. The dry run reports it (`ibsm route --previous`);
// being a pure function of two sets of tables, whatever engine made them,
// the live SM can run it on what it held and what it plans, and an engine
// that takes the previous tables as a hint can be judged by it.
//
//   auto previous = parseLftDump(text, "before/opensm-lfts.dump");
//   LftChanges c = compareLfts(*previous, plan.fabric, plan.routing);
//   fmt::print("{} of {} blocks differ\n", c.blocksDiffer, c.blocksCompared);
//
// Definitions:
// * Switches are matched by node GUID. A switch in only one of the two is
//   gone or new: named, and its table is not compared (all of a new
//   switch's table is written whatever it held).
// * A switch's entries compared are LIDs 1..T, T the higher of the two
//   tables' tops (SwitchInfo:LinearFDBTop, the highest routed LID). An entry
//   differs when the out ports differ; a LID routed in one table and not the
//   other differs too. LID 0 is no destination and is left out.
// * Its blocks compared are 0..T/64: block b holds LIDs 64b..64b+63, as
//   LinearForwardingTable blocks do; a block differs when any of its
//   entries does. So blocks that differ never outnumber entries that differ.
#pragma once

#include <ibsm/Dumps.h>
#include <ibsm/Fabric.h>
#include <ibsm/Routing.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ibsm {

struct NamedSwitch {
  std::string description;
  Guid guid;
  auto operator<=>(const NamedSwitch&) const = default;
};

struct ChangedSwitch {
  NamedSwitch name;
  std::uint32_t blocks{0};   // blocks that differ
  std::uint32_t entries{0};  // entries that differ
  Lid previousTop;           // the tables' LinearFDBTop, before and now
  Lid top;
  auto operator<=>(const ChangedSwitch&) const = default;
};

struct LftChanges {
  std::size_t switchesCompared{0};        // in both, matched by GUID
  std::vector<NamedSwitch> switchesGone;  // in the previous tables only, by GUID
  std::vector<NamedSwitch> switchesNew;   // switches of the fabric only, by GUID
  std::size_t switchesChanged{0};         // compared switches with an entry that differs
  std::size_t topsChanged{0};             // compared switches whose top differs
  // Compared switches whose LID is not the one the previous tables give
  // (their header's): the tables were routed for other LIDs, so comparing
  // entry by LID compares different destinations.
  std::vector<NamedSwitch> lidsChanged;

  std::uint64_t entriesCompared{0};
  std::uint64_t entriesDiffer{0};
  std::uint64_t blocksCompared{0};
  std::uint64_t blocksDiffer{0};

  // The switches with the most blocks that differ (then most entries, then
  // lowest GUID), at most kMostChanged.
  std::vector<ChangedSwitch> mostChanged;
  static constexpr std::size_t kMostChanged = 5;
};

// `previous`: the tables held before, by switch GUID (parseLftDump()'s
// output); `now`: tables indexed by NodeId of `fabric`. Pure: no I/O.
LftChanges compareLfts(const std::vector<DumpedLft>& previous, const Fabric& fabric,
                       const RoutingResult& now);

}  // namespace ibsm
