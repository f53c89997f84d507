// sl2vl.dump (format in Dumps.h): what the dry run writes beside the LFT dump
// and what the live SM's programming can be compared with.
#include <fmt/format.h>
#include <ibsm/Dumps.h>
#include <ibsm/ProgrammedSl2Vl.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <set>
#include <tuple>

namespace ibsm {
namespace {

// Splits a line into whitespace-separated words.
std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

template <typename T>
bool number(std::string_view text, T& value, int base = 10) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  return ec == std::errc{} && end == text.data() + text.size();
}

}  // namespace

void writeSl2VlDump(const Fabric& fabric, const RoutingResult& result, const DumpSink& sink) {
  writeSl2VlDump(fabric, result, nullptr, sink);
}

void writeSl2VlDump(const Fabric& fabric, const RoutingResult& result, const qos::QosTables* qos,
                    const DumpSink& sink) {
  std::string chunk;
  NodeId current = ~NodeId{0};
  // What the plan programs (ProgrammedSl2Vl.h), as `ibsm dump sl2vl` lists
  // what the ports hold of it: the engine's order without QoS, else by
  // (node, in port, out port).
  for (const Sl2VlEntry& e : programmedSl2VlEntries(result.sl2vl, qos)) {
    if (e.sw != current && !chunk.empty()) {
      sink(chunk);
      chunk.clear();
    }
    current = e.sw;
    const Node& node = fabric.node(e.sw);
    if (node.isSwitch())
      fmt::format_to(std::back_inserter(chunk), "switch {} in_port {} out_port {} : {}\n",
                     node.guid, e.inPort, e.outPort, fmt::join(e.vl, " "));
    else
      fmt::format_to(std::back_inserter(chunk), "{} {} port {} : {}\n",
                     node.type == NodeType::Router ? "router" : "ca", node.guid, e.outPort,
                     fmt::join(e.vl, " "));
  }
  if (!chunk.empty()) sink(chunk);
}

std::string formatSl2VlDump(const Fabric& fabric, const RoutingResult& result) {
  std::string out;
  writeSl2VlDump(fabric, result, [&](std::string_view chunk) { out += chunk; });
  return out;
}

namespace {

// `ca|router 0xGUID port N : v0 ... v15`, split in words; nullopt when a
// field is wrong.
std::optional<DumpedSl2Vl> portLine(const std::vector<std::string_view>& w) {
  std::uint64_t guid = 0;
  unsigned port = 0;
  if (!w[1].starts_with("0x") || !number(w[1].substr(2), guid, 16) || !number(w[3], port) ||
      port < 1 || port > 254)
    return std::nullopt;
  DumpedSl2Vl e{.switchGuid = Guid{guid},
                .inPort = 0,
                .outPort = static_cast<std::uint8_t>(port),
                .vl = {},
                .portTable = true};
  for (std::size_t sl = 0; sl < 16; ++sl)
    if (!number(w[5 + sl], e.vl[sl]) || e.vl[sl] > 15) return std::nullopt;
  return e;
}

}  // namespace

Result<std::vector<DumpedSl2Vl>> parseSl2VlDump(std::string_view text, std::string_view fileName,
                                                bool withPortTables) {
  std::vector<DumpedSl2Vl> out;
  std::set<std::tuple<std::uint64_t, int, int>> seen;
  std::size_t lineNo = 0;
  while (!text.empty()) {
    const std::size_t eol = text.find('\n');
    const std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
    ++lineNo;
    const auto w = words(line);
    if (w.empty() || w[0].starts_with('#')) continue;
    const auto bad = [&](std::string_view what) {
      return fail(fmt::format("{}:{}: expected {}", fileName, lineNo, what));
    };
    if ((w[0] == "ca" || w[0] == "router") && w.size() == 21 && w[2] == "port" && w[4] == ":") {
      const auto e = portLine(w);
      if (!e) return bad("'ca 0xGUID port N : v0 ... v15' (N 1-254, 16 VLs 0-15)");
      if (!withPortTables) continue;
      if (!seen.emplace(e->switchGuid.value, -1, e->outPort).second)
        return bad(fmt::format("each CA or router port once; {} port {} is listed again",
                               e->switchGuid, e->outPort));
      out.push_back(*e);
      continue;
    }
    if (w.size() != 23 || w[0] != "switch" || w[2] != "in_port" || w[4] != "out_port" ||
        w[6] != ":")
      return bad("'switch 0xGUID in_port N out_port M : v0 ... v15' (16 VLs)");
    DumpedSl2Vl e;
    if (!w[1].starts_with("0x") || !number(w[1].substr(2), e.switchGuid.value, 16))
      return bad(fmt::format("a switch GUID like 0x0002c90200000001, not '{}'", w[1]));
    if (!number(w[3], e.inPort) || !number(w[5], e.outPort))
      return bad(fmt::format("port numbers 0-254, not '{}' and '{}'", w[3], w[5]));
    for (std::size_t sl = 0; sl < 16; ++sl)
      if (!number(w[7 + sl], e.vl[sl]) || e.vl[sl] > 15)
        return bad(fmt::format("a VL 0-15 for SL {}, not '{}'", sl, w[7 + sl]));
    if (!seen.emplace(e.switchGuid.value, e.inPort, e.outPort).second)
      return bad(
          fmt::format("each (switch, in port, out port) once; {} in_port {} out_port {} "
                      "is listed again",
                      e.switchGuid, e.inPort, e.outPort));
    out.push_back(e);
  }
  return out;
}

Result<std::vector<Sl2VlEntry>> sl2vlByNode(const Fabric& fabric,
                                            const std::vector<DumpedSl2Vl>& dumped) {
  std::vector<Sl2VlEntry> out;
  out.reserve(dumped.size());
  for (const DumpedSl2Vl& d : dumped) {
    const auto node = fabric.findNode(d.switchGuid);
    if (d.portTable) {
      if (!node || fabric.node(*node).isSwitch() || d.outPort > fabric.node(*node).numPorts())
        return fail(fmt::format("sl2vl: {} port {} is not a CA or router port of the fabric",
                                d.switchGuid, d.outPort));
      out.push_back(Sl2VlEntry{*node, 0, d.outPort, d.vl});
      continue;
    }
    if (!node || !fabric.node(*node).isSwitch())
      return fail(fmt::format("sl2vl: {} is not a switch of the fabric", d.switchGuid));
    const std::uint8_t ports = fabric.node(*node).numPorts();
    if (d.inPort > ports || d.outPort > ports)
      return fail(fmt::format("sl2vl: switch {} has {} ports, not in_port {} out_port {}",
                              d.switchGuid, ports, d.inPort, d.outPort));
    out.push_back(Sl2VlEntry{*node, d.inPort, d.outPort, d.vl});
  }
  return out;
}

}  // namespace ibsm
