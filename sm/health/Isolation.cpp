#include "sm/health/Isolation.h"

#include <fmt/format.h>
#include <ibsm/GuidList.h>

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <optional>

namespace ibsm::sm::health {
namespace {

std::optional<PortRef> refOf(const Fabric& f, PortKey k) {
  auto node = f.findNode(k.node);
  if (!node || k.port >= f.node(*node).ports.size()) return std::nullopt;
  return PortRef{*node, k.port};
}

// The nodes reachable from `from` over the cables of `f`.
std::vector<bool> reachable(const Fabric& f, NodeId from) {
  std::vector<bool> seen(f.size(), false);
  std::deque<NodeId> todo{from};
  seen[from] = true;
  while (!todo.empty()) {
    const NodeId n = todo.front();
    todo.pop_front();
    for (const Port& p : f.node(n).ports)
      if (p.remote && !seen[p.remote->node]) {
        seen[p.remote->node] = true;
        todo.push_back(p.remote->node);
      }
  }
  return seen;
}

// Why the far side would be cut off: the nodes no longer reachable from
// `near` once the cable is gone, named (the first few).
std::string cutOff(const Fabric& f, const std::vector<bool>& seen) {
  std::vector<std::string> names;
  std::size_t count = 0;
  for (NodeId n = 0; n < f.size(); ++n)
    if (!seen[n] && ++count <= 3)
      names.push_back(fmt::format("\"{}\" ({})", f.node(n).description, f.node(n).guid));
  return fmt::format("the only way to reach {}{}", fmt::join(names, ", "),
                     count > 3 ? fmt::format(" and {} more", count - 3) : "");
}

}  // namespace

IsolatedFabric isolateLinks(Fabric fabric, std::vector<LinkKey> links) {
  std::ranges::sort(links);
  links.erase(std::unique(links.begin(), links.end()), links.end());
  IsolatedFabric out;
  for (const LinkKey& link : links) {
    const auto a = refOf(fabric, link.a);
    const auto b = refOf(fabric, link.b);
    if (!a || !b || fabric.port(*a).remote != b) continue;
    // The near side is the one the other nodes are counted from: the whole
    // component of `a` before the cut, less what `b` no longer reaches.
    const std::vector<bool> before = reachable(fabric, a->node);
    fabric.disconnect(*a);
    const std::vector<bool> fromA = reachable(fabric, a->node);
    if (fromA[b->node]) {
      out.isolated.push_back(link);
      continue;
    }
    // Put it back; name whichever side is smaller (a host, usually).
    const std::vector<bool> fromB = reachable(fabric, b->node);
    if (auto ok = fabric.connect(*a, *b); !ok) continue;  // it was cabled a moment ago
    const auto sideSize = [](const std::vector<bool>& s) { return std::ranges::count(s, true); };
    std::vector<bool> lost = sideSize(fromB) <= sideSize(fromA) ? fromB : fromA;
    for (NodeId n = 0; n < fabric.size(); ++n) lost[n] = !lost[n] || !before[n];
    out.refused.push_back({link, cutOff(fabric, lost)});
  }
  out.fabric = std::move(fabric);
  return out;
}

Result<PortRef> parseLinkEnd(const Fabric& f, std::string_view text) {
  if (text.starts_with('"')) {
    const auto close = text.find("\"[", 1);
    if (close == std::string_view::npos || !text.ends_with(']'))
      return fail(fmt::format("'{}': expected \"node description\"[port]", text));
    const std::string desc{text.substr(1, close - 1)};
    const auto port = std::atoi(std::string(text.substr(close + 2)).c_str());
    std::optional<NodeId> found;
    for (NodeId n = 0; n < f.size(); ++n) {
      if (f.node(n).description != desc) continue;
      if (found) return fail(fmt::format("more than one node is \"{}\": give GUID/port", desc));
      found = n;
    }
    if (!found) return fail(fmt::format("no node \"{}\" in the fabric", desc));
    if (port <= 0 || port >= static_cast<int>(f.node(*found).ports.size()))
      return fail(fmt::format("\"{}\" has no port {}", desc, port));
    return PortRef{*found, static_cast<std::uint8_t>(port)};
  }
  const auto slash = text.find('/');
  const auto guid = parseHex64(text.substr(0, slash));
  if (slash == std::string_view::npos || !guid)
    return fail(fmt::format("'{}': expected GUID/port or \"node description\"[port]", text));
  const auto port = std::atoi(std::string(text.substr(slash + 1)).c_str());
  auto node = f.findNode(Guid{*guid});
  if (!node)
    if (auto p = f.findPort(Guid{*guid})) node = p->node;
  if (!node) return fail(fmt::format("no node or port {} in the fabric", Guid{*guid}));
  if (port <= 0 || port >= static_cast<int>(f.node(*node).ports.size()))
    return fail(fmt::format("{} has no port {}", Guid{*guid}, port));
  return PortRef{*node, static_cast<std::uint8_t>(port)};
}

std::string describeLink(const Fabric& fabric, const LinkKey& link) {
  const auto end = [&](PortKey k) {
    if (auto r = refOf(fabric, k)) return fabric.describe(*r);
    return fmt::format("{}/{}", k.node, k.port);
  };
  return fmt::format("{} - {}", end(link.a), end(link.b));
}

}  // namespace ibsm::sm::health
