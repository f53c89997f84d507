// checkMulticastSls(): a multicast packet travels on its group's SL, and a
// switch whose SL2VL table sends that SL to VL 15 at some turn drops every
// copy crossing it. An engine may map SL 0 to VL 15 where unicast must never
// turn (its layering), which would cut a tree on SL 0 there: each tree is
// walked from every member on its SL, and each dropping turn it crosses is
// named.
#include <fmt/format.h>
#include <ibsm/Dumps.h>
#include <ibsm/Report.h>

#include <algorithm>
#include <set>
#include <tuple>
#include <unordered_map>

#include "routing/multicast/McSl.h"

namespace ibsm {
namespace {

using routing::kDropVl;

using Turn = std::tuple<NodeId, std::uint8_t, std::uint8_t>;  // (node, in, out)

// The turns that drop `sl`, by (node, in, out).
std::set<Turn> droppingTurns(std::span<const Sl2VlEntry> sl2vl, std::uint8_t sl) {
  std::set<Turn> out;
  for (const Sl2VlEntry& e : sl2vl)
    if (e.vl[sl & 0xF] == kDropVl) out.emplace(e.sw, e.inPort, e.outPort);
  return out;
}

// The dropping turns a packet from `sender` crosses on its way through the
// tree of `mlid` (breadth first, each switch once).
void walkFrom(const Fabric& fabric, const std::vector<SwitchMft>& mfts, PortRef sender,
              std::uint16_t mlid, const std::set<Turn>& drops, std::set<Turn>& crossed) {
  if (drops.contains(Turn{sender.node, 0, sender.port})) {
    crossed.emplace(sender.node, 0, sender.port);
    return;
  }
  const auto& first = fabric.port(sender).remote;
  if (!first || !fabric.node(first->node).isSwitch()) return;
  std::vector<PortRef> queue{*first};  // (switch, in port)
  std::set<NodeId> seen{first->node};
  for (std::size_t i = 0; i < queue.size(); ++i) {
    const auto [sw, in] = queue[i];
    if (sw >= mfts.size()) continue;
    const auto it = mfts[sw].entries.find(mlid);
    if (it == mfts[sw].entries.end()) continue;
    const Node& node = fabric.node(sw);
    for (std::size_t p = 1; p <= node.numPorts(); ++p) {
      if (p == in || !it->second.test(p)) continue;
      const auto out = static_cast<std::uint8_t>(p);
      if (drops.contains(Turn{sw, in, out})) {
        crossed.emplace(sw, in, out);
        continue;
      }
      const auto& far = node.ports[p].remote;
      if (far && fabric.node(far->node).isSwitch() && seen.insert(far->node).second)
        queue.push_back(*far);
    }
  }
}

}  // namespace

std::vector<std::string> checkMulticastSls(const Fabric& fabric, const std::vector<SwitchMft>& mfts,
                                           const std::vector<McGroupRoute>& groups,
                                           const std::vector<std::uint8_t>& sls,
                                           std::span<const Sl2VlEntry> sl2vl) {
  std::vector<std::string> out;
  if (sl2vl.empty()) return out;
  std::unordered_map<std::uint8_t, std::set<Turn>> dropsBySl;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const std::uint8_t sl = g < sls.size() ? static_cast<std::uint8_t>(sls[g] & 0xF) : 0;
    auto found = dropsBySl.find(sl);
    if (found == dropsBySl.end()) found = dropsBySl.emplace(sl, droppingTurns(sl2vl, sl)).first;
    if (found->second.empty()) continue;  // no turn drops this SL: nothing to walk
    std::set<Turn> crossed;
    for (const McRouteMember& m : groups[g].members)
      if (const auto port = fabric.findPort(m.portGuid))
        walkFrom(fabric, mfts, *port, groups[g].mlid.value, found->second, crossed);
    for (const auto& [node, in, outPort] : crossed)
      out.push_back(fmt::format(
          "group {} (MLID {:#06x}) on SL {}: {} maps SL {} to VL 15 from port {} to port {}: the "
          "copies the tree sends that way are dropped",
          gidText(groups[g].mgid), groups[g].mlid.value, sl,
          fabric.describe(PortRef{node, outPort}), sl, in, outPort));
  }
  return out;
}

}  // namespace ibsm
