#include "routing/engines/ftree/FatTreeRecognition.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <string_view>

#include "routing/engines/ftree/FatTreeRails.h"

namespace ibsm::routing::ftree {
namespace {

std::string levelSummary(const FatTreeLayout& layout) {
  std::vector<std::string> parts;
  for (std::size_t h = 0; h < layout.byHeight.size(); ++h) {
    const auto n = layout.byHeight[h].size();
    if (h == 0)
      parts.push_back(fmt::format("{} leaves", n));
    else if (h == layout.top)
      parts.push_back(fmt::format("{} tops", n));
    else
      parts.push_back(fmt::format("{} at level {}", n, h));
  }
  return fmt::format("fat tree of {} levels ranked from {}: {}", layout.top + 1,
                     layout.fromRoots ? "the root GUIDs down" : "the compute leaves up",
                     fmt::join(parts, ", "));
}

std::string leafNote(const Fabric& fabric, const SwitchGraph& graph, const FatTreeLayout& layout) {
  std::size_t cas = 0, raised = 0;
  SwitchIndex example = kNoSwitch;
  for (const SwitchIndex leaf : layout.leaves) {
    cas += layout.computeCas[leaf];
    if (layout.height[leaf] > 0 && ++raised == 1) example = leaf;
  }
  std::string note = fmt::format(
      "compute leaves: {} switches with {} compute CA ports (rule: hosts and no switch below)",
      layout.leaves.size(), cas);
  if (raised > 0)
    note += fmt::format(
        "; {} of them above level 0, e.g. {} at level {} (leaves of uneven height, as a "
        "director's line-card chips beside top-of-rack switches)",
        raised, switchName(fabric, graph, example), layout.height[example]);
  return note;
}

std::string aggregationNote(const FatTreeLayout& layout) {
  const auto& r = layout.roles.byRule;
  return fmt::format(
      "aggregation nodes: {} (routed, not balanced): {} by the switch's last port and its system "
      "image GUID with an \"Aggregation Node\" NodeDescription, {} by port and system image GUID "
      "only, {} by NodeDescription only",
      r[kInternalPort | kDescription] + r[kInternalPort] + r[kDescription],
      r[kInternalPort | kDescription], r[kInternalPort], r[kDescription]);
}

std::vector<std::string> upperNotes(const Fabric& fabric, const SwitchGraph& graph,
                                    const FatTreeLayout& layout) {
  std::map<std::uint16_t, std::pair<std::size_t, std::vector<std::string>>> byLevel;
  for (SwitchIndex s = 0; s < layout.switches(); ++s) {
    if (layout.upperCas[s] == 0) continue;
    auto& [cas, names] = byLevel[layout.height[s]];
    cas += layout.upperCas[s];
    if (names.size() < 3) names.push_back(switchName(fabric, graph, s));
  }
  std::vector<std::string> out;
  for (const auto& [level, entry] : byLevel)
    out.push_back(fmt::format(
        "upper CAs (I/O, storage, management): {} on level {} (rule: hosts on a switch with "
        "switches below it; routed, not balanced), on {}{}",
        entry.first, level, fmt::join(entry.second, ", "),
        entry.second.size() == 3 ? ", ..." : ""));
  return out;
}

}  // namespace

Rails findRails(const Fabric& fabric, const SwitchGraph& graph, const FatTreeLayout& layout) {
  struct Server {
    std::set<SwitchIndex> leaves;
    std::set<std::uint32_t> indices;
    std::uint32_t cas{0};
  };
  std::map<std::string_view, Server> servers;
  for (const SwitchIndex leaf : layout.leaves) {
    const auto roles = layout.roles.of(leaf);
    const auto cas = graph.endpoints(leaf).subspan(1);
    for (std::size_t k = 0; k < cas.size(); ++k) {
      if (roles[k] != CaRole::Compute) continue;
      const auto name = parseHcaName(fabric.node(cas[k].owner.node).description);
      if (!name) continue;
      Server& server = servers[name->host];
      server.leaves.insert(leaf);
      server.indices.insert(name->index);
      ++server.cas;
    }
  }
  Rails rails;
  std::set<std::uint32_t> indices;
  for (const auto& [host, server] : servers) {
    if (server.cas < 2 || server.leaves.size() != server.cas) continue;
    ++rails.servers;
    rails.cas += server.cas;
    indices.insert(server.indices.begin(), server.indices.end());
  }
  rails.count = rails.servers > 0 ? static_cast<std::uint32_t>(indices.size()) : 0;
  return rails;
}

std::vector<std::string> recognitionNotes(const Fabric& fabric, const SwitchGraph& graph,
                                          const FatTreeLayout& layout) {
  std::vector<std::string> out{levelSummary(layout), leafNote(fabric, graph, layout)};
  const auto& r = layout.roles.byRule;
  if (r[kInternalPort] + r[kDescription] + r[kInternalPort | kDescription] > 0)
    out.push_back(aggregationNote(layout));
  for (auto& note : upperNotes(fabric, graph, layout)) out.push_back(std::move(note));
  const Rails rails = findRails(fabric, graph, layout);
  if (rails.count > 1)
    out.push_back(fmt::format(
        "rails: {} (rule: NodeDescription \"<host> mlx5_N\" or \"<host> HCA-N\", a server's "
        "HCAs on different leaves): {} servers, {} of the compute CA ports; each leaf's CAs "
        "dealt by server then HCA index",
        rails.count, rails.servers, rails.cas));
  return out;
}

}  // namespace ibsm::routing::ftree
