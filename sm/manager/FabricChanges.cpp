#include "sm/manager/FabricChanges.h"

#include <fmt/format.h>

#include <set>
#include <tuple>

namespace ibsm::sm::manager {
namespace {

// A cable named by GUIDs and ports, the same in any Fabric.
using CableKey = std::tuple<Guid, std::uint8_t, Guid, std::uint8_t>;

std::set<CableKey> cables(const Fabric& f) {
  std::set<CableKey> out;
  for (NodeId id = 0; id < f.size(); ++id) {
    const Node& n = f.node(id);
    for (const Port& p : n.ports) {
      if (!p.remote) continue;
      const Guid other = f.node(p.remote->node).guid;
      CableKey key{n.guid, p.number, other, p.remote->port};
      if (std::tie(std::get<2>(key), std::get<3>(key)) <
          std::tie(std::get<0>(key), std::get<1>(key)))
        key = {other, p.remote->port, n.guid, p.number};
      out.insert(key);
    }
  }
  return out;
}

std::string nodeName(const Fabric& f, Guid g) {
  const auto id = f.findNode(g);
  return id ? fmt::format("\"{}\" ({})", f.node(*id).description, g) : fmt::format("{}", g);
}

}  // namespace

std::vector<std::string> describeChanges(const Fabric& before, const Fabric& after) {
  std::vector<std::string> out;
  for (const Node& n : before.nodes())
    if (!after.findNode(n.guid))
      out.push_back(fmt::format("node gone: {}", nodeName(before, n.guid)));
  for (const Node& n : after.nodes())
    if (!before.findNode(n.guid))
      out.push_back(fmt::format("node new: {}", nodeName(after, n.guid)));
  const auto was = cables(before);
  const auto now = cables(after);
  const auto name = [](const Fabric& f, const CableKey& c) {
    return fmt::format("{}[{}] - {}[{}]", nodeName(f, std::get<0>(c)), std::get<1>(c),
                       nodeName(f, std::get<2>(c)), std::get<3>(c));
  };
  for (const auto& c : was)
    if (!now.contains(c)) out.push_back("cable lost: " + name(before, c));
  for (const auto& c : now)
    if (!was.contains(c)) out.push_back("cable new: " + name(after, c));
  return out;
}

}  // namespace ibsm::sm::manager
