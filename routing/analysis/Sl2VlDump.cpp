// sl2vl.dump (format in Dumps.h): what the dry run writes beside the LFT dump
// and what the live SM's programming can be compared with. Without QoS too
// the engine's switch pairs are followed by `ca`/`router` lines: where the
// engine layers SLs, planSubnet() gives every linked CA and router port its
// own table (every SL on VL 0), and the dump lists what the SM programs.
#include <fmt/format.h>
#include <ibsm/Dumps.h>
#include <ibsm/ProgrammedSl2Vl.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <optional>
#include <set>
#include <span>
#include <tuple>

#include "routing/analysis/DumpWords.h"

namespace ibsm {
namespace {

using analysis::dumpNumber;
using analysis::dumpWords;

}  // namespace

void writeSl2VlDump(const Fabric& fabric, const RoutingResult& result, const DumpSink& sink) {
  writeSl2VlDump(fabric, result, nullptr, sink);
}

namespace {

// Appends v (a port or a VL, below 1000) in decimal.
void appendNumber(std::string& out, unsigned v) {
  std::array<char, 3> digits{};
  std::size_t n = 0;
  do {
    digits[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (n > 0) out.push_back(digits[--n]);
}

// The lines of sl2vl.dump, built by hand: a dragonfly's dump has millions of
// lines (158 MB at a16 p8 h8), where fmt's parsing of each line's format was
// most of the writing. The node's words are made once per node and the VL
// list once per run of equal rows.
class Sl2VlLines {
 public:
  explicit Sl2VlLines(const Fabric& fabric) : fabric_(fabric) {}

  void append(const Sl2VlEntry& e, std::string& out) {
    const Node& node = fabric_.node(e.sw);
    if (e.sw != prefixOf_) {
      prefixOf_ = e.sw;
      prefix_ = node.isSwitch()
                    ? fmt::format("switch {} in_port ", node.guid)
                    : fmt::format("{} {} port ", node.type == NodeType::Router ? "router" : "ca",
                                  node.guid);
    }
    if (row_.empty() || e.vl != rowVl_) {
      rowVl_ = e.vl;
      row_.assign(" : ");
      for (std::size_t sl = 0; sl < e.vl.size(); ++sl) {
        if (sl > 0) row_.push_back(' ');
        appendNumber(row_, e.vl[sl]);
      }
      row_.push_back('\n');
    }
    out.append(prefix_);
    if (node.isSwitch()) {
      appendNumber(out, e.inPort);
      out.append(" out_port ");
    }
    appendNumber(out, e.outPort);
    out.append(row_);
  }

 private:
  const Fabric& fabric_;
  NodeId prefixOf_{~NodeId{0}};
  std::string prefix_;
  std::array<std::uint8_t, 16> rowVl_{};
  std::string row_;
};

}  // namespace

void writeSl2VlDump(const Fabric& fabric, const RoutingResult& result, const qos::QosTables* qos,
                    const DumpSink& sink) {
  // What the plan programs (ProgrammedSl2Vl.h), as `ibsm dump sl2vl` lists
  // what the ports hold of it: the engine's order without QoS, else by
  // (node, in port, out port).
  std::vector<Sl2VlEntry> programmed;
  std::span<const Sl2VlEntry> entries = result.sl2vl;
  if (qos != nullptr) {
    programmed = programmedSl2VlEntries(result.sl2vl, qos);
    entries = programmed;
  }
  Sl2VlLines lines(fabric);
  std::string chunk;
  NodeId current = ~NodeId{0};
  for (const Sl2VlEntry& e : entries) {
    if (e.sw != current && !chunk.empty()) {
      sink(chunk);
      chunk.clear();
    }
    current = e.sw;
    lines.append(e, chunk);
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
  if (!w[1].starts_with("0x") || !dumpNumber(w[1].substr(2), guid, 16) || !dumpNumber(w[3], port) ||
      port < 1 || port > 254)
    return std::nullopt;
  DumpedSl2Vl e{.switchGuid = Guid{guid},
                .inPort = 0,
                .outPort = static_cast<std::uint8_t>(port),
                .vl = {},
                .portTable = true};
  for (std::size_t sl = 0; sl < 16; ++sl)
    if (!dumpNumber(w[5 + sl], e.vl[sl]) || e.vl[sl] > 15) return std::nullopt;
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
    const auto w = dumpWords(line);
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
    if (!w[1].starts_with("0x") || !dumpNumber(w[1].substr(2), e.switchGuid.value, 16))
      return bad(fmt::format("a switch GUID like 0x0002c90200000001, not '{}'", w[1]));
    if (!dumpNumber(w[3], e.inPort) || !dumpNumber(w[5], e.outPort))
      return bad(fmt::format("port numbers 0-254, not '{}' and '{}'", w[3], w[5]));
    for (std::size_t sl = 0; sl < 16; ++sl)
      if (!dumpNumber(w[7 + sl], e.vl[sl]) || e.vl[sl] > 15)
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
