// The comparison with the previous tables as JSON and as lines for people.
#include "routing/analysis/PreviousFormat.h"

#include <fmt/format.h>

namespace ibsm::analysis {
namespace {

// Names shown on one summary line before "and N more".
constexpr std::size_t kNamesShown = 10;

double shareOf(std::uint64_t part, std::uint64_t whole) {
  return whole == 0 ? 0.0 : static_cast<double>(part) / static_cast<double>(whole);
}

// A share as a percentage that never reads 0 when something differs.
std::string percent(std::uint64_t part, std::uint64_t whole) {
  const double p = 100.0 * shareOf(part, whole);
  if (part > 0 && p < 0.01) return "<0.01%";
  return fmt::format("{:.2f}%", p);
}

std::string nameText(const NamedSwitch& s) {
  return fmt::format("\"{}\" ({})", s.description, s.guid);
}

std::string namesText(const std::vector<NamedSwitch>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < kNamesShown; ++i)
    out += (i ? ", " : "") + nameText(names[i]);
  if (names.size() > kNamesShown) out += fmt::format(" and {} more", names.size() - kNamesShown);
  return out;
}

void writeNames(JsonWriter& w, std::string_view key, const std::vector<NamedSwitch>& names) {
  w.key(key).beginArray();
  for (const auto& n : names)
    w.beginObject()
        .key("description")
        .value(n.description)
        .key("guid")
        .value(fmt::format("{}", n.guid))
        .endObject();
  w.endArray();
}

void writeCount(JsonWriter& w, std::string_view key, std::uint64_t differ, std::uint64_t compared) {
  w.key(key).beginObject();
  w.key("compared").value(compared).key("differ").value(differ);
  w.key("share").value(shareOf(differ, compared)).endObject();
}

void writeBusiest(JsonWriter& w, std::string_view key, const LinkLoadStats* l) {
  w.key(key);
  if (!l) {
    w.null();
    return;
  }
  w.beginObject().key("link").value(l->busiest.empty() ? std::string() : l->busiest[0].name);
  w.key("routes").value(l->max).key("mean").value(l->mean);
  w.key("maxOverMean").value(l->maxOverMean).endObject();
}

std::string busiestText(const LinkLoadStats& l) {
  return fmt::format("{} routes, mean {:.1f}, max/mean {:.2f}{}", l.max, l.mean, l.maxOverMean,
                     l.busiest.empty() ? "" : ": " + l.busiest[0].name);
}

}  // namespace

void writePrevious(JsonWriter& w, const PreviousReport& p, const LinkLoadStats& after) {
  const LftChanges& t = p.tables;
  w.key("previous").beginObject().key("tablesFile").value(p.tablesFile);
  w.key("truncated").value(p.truncated);
  w.key("routedAs").value(p.routedAs).key("change").value(p.change);
  w.key("entriesKept").value(p.entriesKept).key("entriesRerouted").value(p.entriesRerouted);
  w.key("blocksRerouted").value(p.blocksRerouted);
  w.key("why").value(p.why);
  w.key("switches").beginObject();
  w.key("compared").value(t.switchesCompared).key("changed").value(t.switchesChanged);
  w.key("topsChanged").value(t.topsChanged).key("gone").value(t.switchesGone.size());
  w.key("new").value(t.switchesNew.size()).key("lidsChanged").value(t.lidsChanged.size());
  w.endObject();
  writeNames(w, "switchesGone", t.switchesGone);
  writeNames(w, "switchesNew", t.switchesNew);
  writeNames(w, "switchLidsChanged", t.lidsChanged);
  writeCount(w, "entries", t.entriesDiffer, t.entriesCompared);
  writeCount(w, "blocks", t.blocksDiffer, t.blocksCompared);
  w.key("mostChanged").beginArray();
  for (const auto& c : t.mostChanged) {
    w.beginObject().key("description").value(c.name.description);
    w.key("guid").value(fmt::format("{}", c.name.guid));
    w.key("blocks").value(c.blocks).key("entries").value(c.entries);
    w.key("previousTop").value(c.previousTop.value).key("top").value(c.top.value).endObject();
  }
  w.endArray();
  writeBusiest(w, "busiestBefore", p.linkLoadBefore ? &*p.linkLoadBefore : nullptr);
  writeBusiest(w, "busiestAfter", &after);
  w.endObject();
}

void summarisePrevious(const PreviousReport& p, const LinkLoadStats& after, std::string& out) {
  const LftChanges& t = p.tables;
  out += fmt::format(
      "previous tables ({}): {} switches compared, {} gone, {} new; {} changed, LinearFDBTop "
      "changed on {}\n",
      p.tablesFile, t.switchesCompared, t.switchesGone.size(), t.switchesNew.size(),
      t.switchesChanged, t.topsChanged);
  for (const auto& cut : p.truncated)
    out += fmt::format("  truncated: {} (switches it did not reach count as new)\n", cut);
  if (p.routedAs == "kept")
    out += fmt::format(
        "  routed under change ({}): {} entries whose previous path holds kept, {} rerouted (in {} "
        "blocks)\n",
        p.change, p.entriesKept, p.entriesRerouted, p.blocksRerouted);
  else if (p.routedAs == "fresh-fallback")
    out += fmt::format("  routed afresh under change ({}): {}\n", p.change, p.why);
  else
    out += "  routed afresh (--rebalance, or routing.stable_routes = false)\n";
  out += fmt::format("  entries that differ: {} of {} ({})\n", t.entriesDiffer, t.entriesCompared,
                     percent(t.entriesDiffer, t.entriesCompared));
  out += fmt::format("  blocks that differ: {} of {} ({}), 64 LIDs a block\n", t.blocksDiffer,
                     t.blocksCompared, percent(t.blocksDiffer, t.blocksCompared));
  for (const auto& c : t.mostChanged)
    out += fmt::format(
        "  changed: {}: {} blocks, {} entries{}\n", nameText(c.name), c.blocks, c.entries,
        c.previousTop == c.top ? "" : fmt::format(", LinearFDBTop {} -> {}", c.previousTop, c.top));
  if (!t.switchesGone.empty()) out += fmt::format("  gone: {}\n", namesText(t.switchesGone));
  if (!t.switchesNew.empty()) out += fmt::format("  new: {}\n", namesText(t.switchesNew));
  if (!t.lidsChanged.empty())
    out += fmt::format(
        "  warning: {} switches have other LIDs than the previous tables give ({}); entries are "
        "compared by LID, so give the guid2lid of the run that wrote them (--guid2lid)\n",
        t.lidsChanged.size(), namesText(t.lidsChanged));
  out += p.linkLoadBefore
             ? fmt::format("  busiest link before: {}\n", busiestText(*p.linkLoadBefore))
             : std::string(
                   "  busiest link before: not computed, it needs the fabric the previous "
                   "tables were routed for (--previous-topology)\n");
  out += fmt::format("  busiest link after:  {}\n", busiestText(after));
}

}  // namespace ibsm::analysis
