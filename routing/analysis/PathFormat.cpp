#include "routing/analysis/PathFormat.h"

#include <fmt/format.h>

#include <algorithm>

#include "routing/analysis/JsonWriter.h"

namespace ibsm::analysis {
namespace {

std::string_view typeName(NodeType type) {
  switch (type) {
    case NodeType::Switch:
      return "switch";
    case NodeType::Router:
      return "router";
    case NodeType::Ca:
      return "ca";
  }
  return "ca";
}

// What the cable out of `port` runs at; nullopt without a cable. MTU: the
// lower MTUCap of the two ends, what the SM sets as NeighborMTU.
struct LinkView {
  std::string_view width;
  std::string_view speed;
  unsigned mtu{0};
};
std::optional<LinkView> linkOut(const Fabric& fabric, PortRef port) {
  if (port.port == 0 || port.port == kNoRoute) return std::nullopt;
  const Port& p = fabric.port(port);
  if (!p.remote) return std::nullopt;
  const Port& peer = fabric.port(*p.remote);
  return LinkView{widthName(p.link.widthActive), speedName(p.link),
                  mtuBytes(std::min(p.mtuCap, peer.mtuCap))};
}

// The LID a hop shows: a switch's, or the port's the packet enters or leaves by.
Lid hopLid(const Fabric& fabric, const PathHop& hop) {
  const Node& node = fabric.node(hop.node);
  if (node.isSwitch()) return node.ports[0].lid;
  const std::uint8_t p = hop.inPort ? hop.inPort : hop.outPort;
  return p && p < node.ports.size() ? node.ports[p].lid : Lid{};
}

void writeEnd(JsonWriter& w, const Fabric& fabric, PortRef end) {
  const Node& node = fabric.node(end.node);
  const Port& port = fabric.port(end);
  w.beginObject()
      .key("type")
      .value(typeName(node.type))
      .key("name")
      .value(node.description)
      .key("guid")
      .value(fmt::format("{}", node.guid))
      .key("port_guid")
      .value(fmt::format("{}", node.isSwitch() ? node.guid : port.guid))
      .key("port")
      .value(end.port)
      .key("lid")
      .value(port.lid.value)
      .endObject();
}

std::string describeEnd(const Fabric& fabric, PortRef end) {
  const Node& node = fabric.node(end.node);
  const Port& port = fabric.port(end);
  return fmt::format("{} \"{}\" port {} ({}) lid {}", typeName(node.type), node.description,
                     end.port, node.isSwitch() ? node.guid : port.guid, port.lid.value);
}

std::string vlText(std::uint8_t vl) {
  return vl == kUnknownVl ? "-" : fmt::format("VL{}", vl);
}

// The VL hop i came in on: the one hop i-1 went out on (none at the source).
std::uint8_t inVl(const UnicastPath& path, std::size_t i) {
  return i == 0 ? kUnknownVl : path.hops[i - 1].vl;
}

// "VL1", or "VL0>VL1" where the hop's SL2VL moves the packet to another VL.
std::string hopVlText(const UnicastPath& path, std::size_t i) {
  const std::uint8_t in = inVl(path, i);
  const std::uint8_t out = path.hops[i].vl;
  if (in == kUnknownVl || in == out) return vlText(out);
  return fmt::format("{}>{}", vlText(in), vlText(out));
}

std::string portText(std::uint8_t port, bool none) {
  return none || port == kNoRoute ? "-" : fmt::format("{}", port);
}

std::size_t switchHops(const Fabric& fabric, const UnicastPath& path) {
  return static_cast<std::size_t>(std::ranges::count_if(
      path.hops, [&](const PathHop& h) { return fabric.node(h.node).isSwitch(); }));
}

// "SL 1 (QoS level NAME): delivered, 5 switch hops", and the note if any.
std::string slLine(const Fabric& fabric, const UnicastPath& path) {
  const std::string level =
      path.qosLevel.empty() ? std::string() : fmt::format(" (QoS level {})", path.qosLevel);
  std::string out = fmt::format("\nSL {}{}: {}, {} switch hops\n", path.sl, level,
                                pathEndName(path.end), switchHops(fabric, path));
  if (!path.note.empty()) out += fmt::format("note: {}\n", path.note);
  return out;
}

}  // namespace

std::string_view widthName(std::uint8_t widthActive) {
  switch (widthActive) {
    case 1:
      return "1x";
    case 2:
      return "4x";
    case 4:
      return "8x";
    case 8:
      return "12x";
    case 16:
      return "2x";
    default:
      return "?";
  }
}

std::string_view speedName(const LinkAttrs& link) {
  if (link.extSpeedActive & 32) return "XDR";
  if (link.extSpeedActive & 8) return "NDR";
  if (link.extSpeedActive & 4) return "HDR";
  if (link.extSpeedActive & 2) return "EDR";
  if (link.extSpeedActive & 1) return "FDR";
  if (link.speedActive & 4) return "QDR";
  if (link.speedActive & 2) return "DDR";
  if (link.speedActive & 1) return "SDR";
  return "?";
}

unsigned mtuBytes(std::uint8_t mtuCode) {
  return mtuCode >= 1 && mtuCode <= 5 ? 128U << mtuCode : 0;
}

std::string formatUnicastPath(const Fabric& fabric, const UnicastPath& path) {
  std::string out = fmt::format("From {}\nTo   ", describeEnd(fabric, path.from));
  out +=
      path.to ? describeEnd(fabric, *path.to) : fmt::format("LID {} (no port owns it)", path.dlid);
  if (path.to && fabric.port(*path.to).lid != path.dlid)
    out += fmt::format(" (DLID {})", path.dlid);
  out += slLine(fabric, path);
  fmt::format_to(std::back_inserter(out), "{:>3}  {:<6} {:<20} {:<18} {:>5} {:>5} {:<12} {}\n",
                 "hop", "type", "name", "guid", "in", "out", "link", "vl");
  for (std::size_t i = 0; i < path.hops.size(); ++i) {
    const PathHop& h = path.hops[i];
    const Node& node = fabric.node(h.node);
    const bool last = i + 1 == path.hops.size();
    const auto link = last ? std::nullopt : linkOut(fabric, {h.node, h.outPort});
    const std::string linkText =
        link ? fmt::format("{}{} {}", link->width, link->speed, link->mtu) : std::string("-");
    fmt::format_to(std::back_inserter(out), "{:>3}  {:<6} {:<20} {} {:>5} {:>5} {:<12} {}\n", i,
                   typeName(node.type), fmt::format("\"{}\"", node.description), node.guid,
                   portText(h.inPort, i == 0), portText(h.outPort, last && h.outPort == 0),
                   linkText, link ? hopVlText(path, i) : "-");
  }
  return out;
}

namespace {

// A text or a VL, or null when empty or unknown.
void nullableText(JsonWriter& w, const std::string& text) {
  if (text.empty())
    w.null();
  else
    w.value(text);
}
void nullableVl(JsonWriter& w, std::uint8_t vl) {
  if (vl == kUnknownVl)
    w.null();
  else
    w.value(vl);
}

void writeHop(JsonWriter& w, const Fabric& fabric, const UnicastPath& path, std::size_t i) {
  const PathHop& h = path.hops[i];
  const Node& node = fabric.node(h.node);
  const bool last = i + 1 == path.hops.size();
  w.beginObject().key("type").value(typeName(node.type));
  w.key("name").value(node.description).key("guid").value(fmt::format("{}", node.guid));
  w.key("lid").value(hopLid(fabric, h).value).key("in_port");
  if (i == 0)
    w.null();
  else
    w.value(h.inPort);
  w.key("out_port");
  if (h.outPort == kNoRoute || (last && h.outPort == 0))
    w.null();
  else
    w.value(h.outPort);
  const auto link = last ? std::nullopt : linkOut(fabric, {h.node, h.outPort});
  w.key("link");
  if (link)
    w.beginObject()
        .key("width")
        .value(link->width)
        .key("speed")
        .value(link->speed)
        .key("mtu")
        .value(link->mtu)
        .endObject();
  else
    w.null();
  w.key("vl");
  nullableVl(w, link ? h.vl : kUnknownVl);
  w.key("in_vl");
  nullableVl(w, inVl(path, i));
  w.endObject();
}

}  // namespace

std::string unicastPathJson(const Fabric& fabric, const UnicastPath& path) {
  JsonWriter w;
  w.beginObject().key("from");
  writeEnd(w, fabric, path.from);
  w.key("to");
  if (path.to)
    writeEnd(w, fabric, *path.to);
  else
    w.null();
  w.key("dlid").value(path.dlid.value).key("sl").value(path.sl).key("qos_level");
  nullableText(w, path.qosLevel);
  w.key("note");
  nullableText(w, path.note);
  w.key("end").value(pathEndName(path.end)).key("switch_hops").value(switchHops(fabric, path));
  w.key("hops").beginArray();
  for (std::size_t i = 0; i < path.hops.size(); ++i) writeHop(w, fabric, path, i);
  w.endArray().endObject();
  return w.take() + "\n";
}

std::string formatMulticastPath(const Fabric& fabric, const MulticastPath& path) {
  std::string out = fmt::format("From {}\nMLID 0x{:04x}: {} switches, {} receivers\n",
                                describeEnd(fabric, path.from), path.mlid.value,
                                path.branches.size(), path.receivers.size());
  for (const McBranch& b : path.branches) {
    const Node& node = fabric.node(b.node);
    std::string to;
    for (std::uint8_t p : b.outPorts) {
      if (!to.empty()) to += ", ";
      if (p == 0) {
        to += "0 (the switch)";
      } else if (const auto& r = node.ports[p].remote) {
        to += fmt::format("{} -> \"{}\"[{}]", p, fabric.node(r->node).description, r->port);
      } else {
        to += fmt::format("{} (no cable)", p);
      }
    }
    fmt::format_to(std::back_inserter(out), "{:>{}}\"{}\" {} in {}: out {}\n", "", 2 * b.depth + 2,
                   node.description, node.guid, b.inPort, to.empty() ? "none" : to);
  }
  for (const auto& p : path.problems) fmt::format_to(std::back_inserter(out), "problem: {}\n", p);
  return out;
}

std::string multicastPathJson(const Fabric& fabric, const MulticastPath& path) {
  JsonWriter w;
  w.beginObject().key("from");
  writeEnd(w, fabric, path.from);
  w.key("mlid").value(path.mlid.value).key("branches").beginArray();
  for (const McBranch& b : path.branches) {
    const Node& node = fabric.node(b.node);
    w.beginObject().key("name").value(node.description);
    w.key("guid").value(fmt::format("{}", node.guid)).key("in_port").value(b.inPort);
    w.key("out_ports").beginArray();
    for (std::uint8_t p : b.outPorts) w.value(p);
    w.endArray().key("depth").value(b.depth).endObject();
  }
  w.endArray().key("receivers").beginArray();
  for (const PortRef& r : path.receivers) writeEnd(w, fabric, r);
  w.endArray().key("problems").value(path.problems).endObject();
  return w.take() + "\n";
}

}  // namespace ibsm::analysis
