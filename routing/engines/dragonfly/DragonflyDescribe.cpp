// The recognised shape in words for the route report's notes: one line of
// figures, then the cables it lacks by name, since "2 local links missing"
// sends an operator looking while "g0r0 - g0r1" sends them to the cable.
#include <fmt/format.h>
#include <ibsm/Dragonfly.h>

namespace ibsm {
namespace {

std::string range(MinMax m) {
  return m.min == m.max ? fmt::format("{}", m.min) : fmt::format("{}-{}", m.min, m.max);
}

std::string end(const Fabric& f, std::optional<NodeId> node, std::uint32_t group) {
  if (node) return fmt::format("\"{}\" (group {})", f.node(*node).description, group);
  if (group != kNoGroup) return fmt::format("a switch of group {}", group);
  return "another group";
}

}  // namespace

std::string describe(const DragonflyShape& s) {
  const std::string layout =
      s.kind == DragonflyKind::Dragonfly
          ? fmt::format(
                "dragonfly: {} groups of {} routers, {} hosts and {} global links per "
                "router",
                s.groups, s.switchesPerGroup, range(s.hostsPerSwitch), range(s.globalsPerSwitch))
          : fmt::format(
                "dragonfly+: {} groups of {} leaves and {} spines, {} hosts per leaf, {} "
                "global links per spine",
                s.groups, s.leavesPerGroup, s.switchesPerGroup - s.leavesPerGroup,
                range(s.hostsPerSwitch), range(s.globalsPerSwitch));
  return fmt::format(
      "{}, {} global links per group pair, {} local links missing, {} group pairs "
      "unlinked",
      layout, range(s.globalsPerGroupPair), s.missingLocalLinks, s.unlinkedGroupPairs);
}

std::vector<std::string> missingCableNotes(const Fabric& f, const DragonflyShape& s) {
  std::vector<std::string> notes;
  if (!s.missingLocal.empty()) {
    std::vector<std::string> pairs;
    for (const MissingCable& c : s.missingLocal)
      pairs.push_back(
          fmt::format("\"{}\" - \"{}\"", f.node(*c.a).description, f.node(*c.b).description));
    notes.push_back(
        fmt::format("missing local links ({}): {}", pairs.size(), fmt::join(pairs, ", ")));
  }
  if (!s.missingGlobal.empty()) {
    std::vector<std::string> links;
    for (const MissingCable& c : s.missingGlobal)
      links.push_back(fmt::format("{} - {}", end(f, c.a, c.groupA), end(f, c.b, c.groupB)));
    notes.push_back(fmt::format(
        "missing global links ({}), inferred from group pairs with fewer cables and switches "
        "with fewer global links than the others: {}",
        links.size(), fmt::join(links, ", ")));
  }
  for (const NodeId r : s.stranded)
    notes.push_back(fmt::format(
        "router \"{}\" has no local link left: placed in group {} by its global links, it "
        "reaches its group through other groups",
        f.node(r).description, s.groupOf[r]));
  return notes;
}

}  // namespace ibsm
