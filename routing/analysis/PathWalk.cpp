#include "routing/analysis/PathWalk.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <ibsm/Lids.h>
#include <ibsm/ProgrammedSl2Vl.h>

#include <algorithm>
#include <charconv>
#include <deque>

namespace ibsm::analysis {
namespace {

// The VL the tables give; where no table is programmed the port holds
// what it had: SL 0 runs on VL 0 there, another SL is not known.
std::uint8_t vlOf(const PathTables& tables, NodeId node, std::uint8_t in, std::uint8_t out,
                  std::uint8_t sl) {
  if (auto vl = sl2vlOf(tables.sl2vl, node, in, out, sl)) return *vl;
  return sl == 0 ? 0 : kUnknownVl;
}

bool owns(const Port& port, Lid lid) {
  if (port.lid.value == 0) return false;
  const unsigned range = 1U << port.lmc;
  return lid.value >= port.lid.value && lid.value < port.lid.value + range;
}

const Lft* tableOf(const PathTables& tables, NodeId sw) {
  return sw < tables.lfts.size() ? &tables.lfts[sw] : nullptr;
}

// One switch's step: the hop it adds and where the packet goes next (the
// port at the other end of the cable), or nullopt when the walk ends there.
std::optional<PortRef> stepSwitch(const Fabric& fabric, const PathTables& tables, NodeId sw,
                                  std::uint8_t in, UnicastPath& path) {
  const Node& node = fabric.node(sw);
  const Lft* lft = tableOf(tables, sw);
  const std::uint8_t out = tables.entry ? tables.entry(sw, path.dlid)
                           : lft        ? lft->at(path.dlid)
                                        : kNoRoute;
  PathHop hop{.node = sw, .inPort = in, .outPort = out, .vl = kUnknownVl};
  if (out == 0) {
    path.hops.push_back(hop);
    path.end = owns(node.ports[0], path.dlid) ? PathEnd::Delivered : PathEnd::WrongPort;
    return std::nullopt;
  }
  if (out == kNoRoute || out > node.numPorts()) {
    hop.outPort = kNoRoute;
    path.hops.push_back(hop);
    path.end = PathEnd::NoEntry;
    return std::nullopt;
  }
  hop.vl = vlOf(tables, sw, in, out, path.sl);
  path.hops.push_back(hop);
  const auto& remote = node.ports[out].remote;
  if (!remote) {
    path.end = PathEnd::DeadPort;
    return std::nullopt;
  }
  return *remote;
}

std::optional<Lid> parseLid(std::string_view text) {
  int base = 10;
  if (text.starts_with("0x") || text.starts_with("0X")) {
    text.remove_prefix(2);
    if (text.empty() || text.size() > 4) return std::nullopt;
    base = 16;
  }
  std::uint32_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (ec != std::errc{} || end != text.data() + text.size() || value == 0 || value > 0xBFFF)
    return std::nullopt;
  return Lid{static_cast<std::uint16_t>(value)};
}

std::optional<Guid> parseGuid(std::string_view text) {
  if (!(text.starts_with("0x") || text.starts_with("0X")) || text.size() <= 6) return std::nullopt;
  text.remove_prefix(2);
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return Guid{value};
}

// A node's end port an operator means by naming the node.
std::optional<PortRef> endPortOf(const Fabric& fabric, NodeId id) {
  const Node& node = fabric.node(id);
  if (node.isSwitch()) return PortRef{id, 0};
  for (std::uint8_t p : node.endpointPorts())
    if (node.ports[p].connected() && node.ports[p].lid.value != 0) return PortRef{id, p};
  for (std::uint8_t p : node.endpointPorts())
    if (node.ports[p].connected()) return PortRef{id, p};
  return std::nullopt;
}

Result<PortRef> endPortOrFail(const Fabric& fabric, NodeId id, std::string_view name) {
  if (auto port = endPortOf(fabric, id)) return *port;
  return fail(fmt::format("'{}': node {} has no cabled port", name, fabric.node(id).guid));
}

}  // namespace

std::string_view pathEndName(PathEnd end) {
  switch (end) {
    case PathEnd::Delivered:
      return "delivered";
    case PathEnd::NoEntry:
      return "no-entry";
    case PathEnd::DeadPort:
      return "dead-port";
    case PathEnd::Loop:
      return "loop";
    case PathEnd::WrongPort:
      return "wrong-port";
    case PathEnd::NoOwner:
      return "no-owner";
  }
  return "unknown";
}

UnicastPath walkUnicast(const Fabric& fabric, const PathTables& tables, PortRef from, Lid dlid,
                        std::uint8_t sl) {
  UnicastPath path{.from = from, .dlid = dlid, .to = LidIndex(fabric).owner(dlid), .sl = sl};
  std::optional<PortRef> at;  // where the packet arrives next
  if (fabric.node(from.node).isSwitch()) {
    at = PortRef{from.node, 0};
  } else {
    path.hops.push_back({.node = from.node,
                         .inPort = 0,
                         .outPort = from.port,
                         .vl = vlOf(tables, from.node, 0, from.port, sl)});
    if (owns(fabric.port(from), dlid)) {
      path.hops.back().outPort = 0;
      path.end = PathEnd::Delivered;
      return path;
    }
    at = fabric.port(from).remote;
    if (!at) path.end = PathEnd::DeadPort;
  }
  std::vector<bool> passed(fabric.size(), false);
  while (at) {
    if (!fabric.node(at->node).isSwitch()) {
      path.hops.push_back({.node = at->node, .inPort = at->port, .outPort = 0, .vl = kUnknownVl});
      path.end = owns(fabric.port(*at), dlid) ? PathEnd::Delivered : PathEnd::WrongPort;
      break;
    }
    if (passed[at->node]) {
      path.hops.push_back(
          {.node = at->node, .inPort = at->port, .outPort = kNoRoute, .vl = kUnknownVl});
      path.end = PathEnd::Loop;
      break;
    }
    passed[at->node] = true;
    at = stepSwitch(fabric, tables, at->node, at->port, path);
  }
  if (!path.to && path.end != PathEnd::Delivered) path.end = PathEnd::NoOwner;
  return path;
}

Result<PortRef> findEndPort(const Fabric& fabric, std::string_view name) {
  if (auto lid = parseLid(name)) {
    if (auto owner = LidIndex(fabric).owner(*lid)) return *owner;
    return fail(fmt::format("'{}': no port has LID {}", name, lid->value));
  }
  if (auto guid = parseGuid(name)) {
    if (auto id = fabric.findNode(*guid)) return endPortOrFail(fabric, *id, name);
    if (auto port = fabric.findPort(*guid)) return *port;
    return fail(fmt::format("'{}': no node or port has GUID {}", name, *guid));
  }
  std::vector<NodeId> named;
  for (NodeId id = 0; id < fabric.size(); ++id)
    if (fabric.node(id).description == name) named.push_back(id);
  if (named.empty())
    return fail(fmt::format(
        "'{}': no node has this name (expected a node name, a node or port GUID, or a LID)", name));
  if (named.size() > 1)
    return fail(fmt::format("'{}': {} nodes have this name (nodes {} and {}): name one by GUID",
                            name, named.size(), fabric.node(named[0]).guid,
                            fabric.node(named[1]).guid));
  return endPortOrFail(fabric, named[0], name);
}

Result<Lid> findDestinationLid(const Fabric& fabric, std::string_view name) {
  if (auto lid = parseLid(name)) {
    if (!LidIndex(fabric).owner(*lid))
      return fail(fmt::format("'{}': no port has LID {}", name, lid->value));
    return *lid;
  }
  auto port = findEndPort(fabric, name);
  if (!port) return std::unexpected(port.error());
  const Lid lid = fabric.port(*port).lid;
  if (lid.value == 0) return fail(fmt::format("'{}': {} has no LID", name, fabric.describe(*port)));
  return lid;
}

Result<Lid> resolveMlid(std::string_view text, const std::vector<std::pair<Gid, Lid>>& groups) {
  if ((text.starts_with("0x") || text.starts_with("0X")) && text.size() <= 6) {
    std::uint32_t value = 0;
    const auto [end, ec] = std::from_chars(text.data() + 2, text.data() + text.size(), value, 16);
    if (ec == std::errc{} && end == text.data() + text.size() && value >= 0xC000 && value <= 0xFFFE)
      return Lid{static_cast<std::uint16_t>(value)};
    return fail(fmt::format("'{}': expected an MGID or an MLID from 0xc000 to 0xfffe", text));
  }
  Gid gid{};
  const std::string copy(text);
  if (::inet_pton(AF_INET6, copy.c_str(), gid.data()) != 1)
    return fail(fmt::format("'{}': expected an MGID (ff12:401b:ffff::ffff:ffff) or an MLID", text));
  for (const auto& [mgid, mlid] : groups)
    if (mgid == gid) return mlid;
  return fail(
      fmt::format("'{}': no multicast group has this MGID ({} groups known)", text, groups.size()));
}

MulticastPath walkMulticast(const Fabric& fabric, std::span<const SwitchMft> mfts, PortRef from,
                            Lid mlid) {
  MulticastPath out{.from = from, .mlid = mlid};
  std::vector<bool> reached(fabric.size(), false);
  std::deque<McBranch> queue;
  auto arrive = [&](PortRef at, std::uint16_t depth) {
    if (!fabric.node(at.node).isSwitch()) {
      out.receivers.push_back(at);
      return;
    }
    if (reached[at.node]) {
      out.problems.push_back(fmt::format("{} reached a second time: a loop or two branches meeting",
                                         fabric.describe(at)));
      return;
    }
    reached[at.node] = true;
    queue.push_back({.node = at.node, .inPort = at.port, .outPorts = {}, .depth = depth});
  };
  if (fabric.node(from.node).isSwitch()) {
    arrive({from.node, 0}, 0);
  } else if (const auto& remote = fabric.port(from).remote) {
    arrive(*remote, 0);
  } else {
    out.problems.push_back(fmt::format("{} has no cable", fabric.describe(from)));
  }
  while (!queue.empty()) {
    McBranch branch = std::move(queue.front());
    queue.pop_front();
    const Node& node = fabric.node(branch.node);
    if (branch.node < mfts.size())
      if (auto it = mfts[branch.node].entries.find(mlid.value);
          it != mfts[branch.node].entries.end())
        for (std::size_t p = 0; p <= node.numPorts(); ++p)
          if (it->second.test(p) && p != branch.inPort)
            branch.outPorts.push_back(static_cast<std::uint8_t>(p));
    for (std::uint8_t p : branch.outPorts) {
      if (p == 0) {
        out.receivers.push_back({branch.node, 0});
      } else if (const auto& remote = node.ports[p].remote) {
        arrive(*remote, static_cast<std::uint16_t>(branch.depth + 1));
      } else {
        out.problems.push_back(
            fmt::format("{} is in the MFT but has no cable", fabric.describe({branch.node, p})));
      }
    }
    out.branches.push_back(std::move(branch));
  }
  return out;
}

}  // namespace ibsm::analysis
