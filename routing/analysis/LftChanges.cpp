// compareLfts: the previous tables against the tables routed now, switch by
// switch (definitions in LftChanges.h).
#include <ibsm/LftChanges.h>
#include <ibsm/MadAttributes.h>

#include <algorithm>
#include <unordered_set>

namespace ibsm {
namespace {

// Entries and blocks of one switch that differ, over LIDs 1..the higher top.
ChangedSwitch compareSwitch(const Lft& before, const Lft& now, LftChanges& totals) {
  ChangedSwitch c;
  c.previousTop = before.top();
  c.top = now.top();
  const std::uint32_t last = std::max(c.previousTop.value, c.top.value);
  if (last == 0) return c;  // nothing routed in either
  totals.entriesCompared += last;
  const std::uint32_t blocks = last / kLftBlockSize + 1;
  totals.blocksCompared += blocks;
  for (std::uint32_t b = 0; b < blocks; ++b) {
    const std::uint32_t first = std::max<std::uint32_t>(1, b * kLftBlockSize);
    const std::uint32_t end = std::min<std::uint32_t>(last, (b + 1) * kLftBlockSize - 1);
    std::uint32_t differ = 0;
    for (std::uint32_t lid = first; lid <= end; ++lid) {
      const Lid l{static_cast<std::uint16_t>(lid)};
      differ += before.at(l) != now.at(l) ? 1 : 0;
    }
    c.entries += differ;
    c.blocks += differ > 0 ? 1 : 0;
  }
  return c;
}

bool moreChanged(const ChangedSwitch& a, const ChangedSwitch& b) {
  if (a.blocks != b.blocks) return a.blocks > b.blocks;
  if (a.entries != b.entries) return a.entries > b.entries;
  return a.name.guid < b.name.guid;
}

void keepMostChanged(std::vector<ChangedSwitch> changed, LftChanges& out) {
  const std::size_t n = std::min(LftChanges::kMostChanged, changed.size());
  std::partial_sort(changed.begin(), changed.begin() + static_cast<std::ptrdiff_t>(n),
                    changed.end(), moreChanged);
  changed.resize(n);
  out.mostChanged = std::move(changed);
}

}  // namespace

LftChanges compareLfts(const std::vector<DumpedLft>& previous, const Fabric& fabric,
                       const RoutingResult& now) {
  static const Lft kNothingRouted;
  LftChanges out;
  std::vector<ChangedSwitch> changed;
  std::unordered_set<Guid> held;
  for (const DumpedLft& d : previous) {
    held.insert(d.switchGuid);
    const auto id = fabric.findNode(d.switchGuid);
    if (!id || !fabric.node(*id).isSwitch()) {
      out.switchesGone.push_back(NamedSwitch{d.description, d.switchGuid});
      continue;
    }
    const Node& sw = fabric.node(*id);
    ++out.switchesCompared;
    // A dump that does not say the LID (dump_fts by DR path) cannot disagree.
    if (d.switchLid.value != 0 && d.switchLid != sw.ports[0].lid)
      out.lidsChanged.push_back(NamedSwitch{sw.description, sw.guid});
    ChangedSwitch c =
        compareSwitch(d.lft, *id < now.lfts.size() ? now.lfts[*id] : kNothingRouted, out);
    if (c.entries == 0) continue;
    ++out.switchesChanged;
    out.topsChanged += c.previousTop != c.top ? 1 : 0;
    out.entriesDiffer += c.entries;
    out.blocksDiffer += c.blocks;
    c.name = NamedSwitch{sw.description, sw.guid};
    changed.push_back(std::move(c));
  }
  for (const NodeId id : fabric.switches()) {
    const Node& sw = fabric.node(id);
    if (!held.contains(sw.guid)) out.switchesNew.push_back(NamedSwitch{sw.description, sw.guid});
  }
  std::ranges::sort(out.switchesGone, {}, &NamedSwitch::guid);
  std::ranges::sort(out.switchesNew, {}, &NamedSwitch::guid);
  std::ranges::sort(out.lidsChanged, {}, &NamedSwitch::guid);
  keepMostChanged(std::move(changed), out);
  return out;
}

}  // namespace ibsm
