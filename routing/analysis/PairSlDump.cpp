// pair-sls (format in Dumps.h): the SLs the routing engine gave its pairs,
// written by the dry run beside the tables and read back by `ibsm path
// --dir` and `ibsm route --previous`.
#include <fmt/format.h>
#include <ibsm/Dumps.h>

#include <algorithm>
#include <charconv>
#include <tuple>

#include "routing/analysis/DumpWords.h"

namespace ibsm {
namespace {

using analysis::dumpNumberOrHex;
using analysis::dumpWords;

constexpr std::string_view kForm = "'node 0xNODEGUID port N dlid 0xLID sl K'";

// One line's pair, or what was wrong with it.
Result<DumpedPairSl> pairOf(std::string_view line, std::size_t n, std::string_view file) {
  const auto w = dumpWords(line);
  DumpedPairSl p{.node = {}, .port = 0, .dlid = {}, .sl = 0, .line = n};
  unsigned port = 0, sl = 0;
  std::uint64_t guid = 0;
  std::uint32_t dlid = 0;
  if (w.size() != 8 || w[0] != "node" || w[2] != "port" || w[4] != "dlid" || w[6] != "sl" ||
      !w[1].starts_with("0x") || !dumpNumberOrHex(w[1], guid) || !dumpNumberOrHex(w[3], port) ||
      port > 254 || !dumpNumberOrHex(w[5], dlid) || !dumpNumberOrHex(w[7], sl))
    return fail(fmt::format("{}:{}: expected {}", file, n, kForm));
  if (sl > 15) return fail(fmt::format("{}:{}: SL {} is above 15", file, n, sl));
  if (dlid == 0 || dlid > kMaxUnicastLid)
    return fail(fmt::format("{}:{}: dlid {:#x} is no unicast LID (0x1-0xbfff)", file, n, dlid));
  p.node = Guid{guid};
  p.port = static_cast<std::uint8_t>(port);
  p.dlid = Lid{static_cast<std::uint16_t>(dlid)};
  p.sl = static_cast<std::uint8_t>(sl);
  return p;
}

}  // namespace

std::string formatPairSls(const Fabric& fabric, const RoutingResult& result) {
  std::string out;
  if (result.pairSls.empty()) return out;
  out.reserve(result.pairSls.size() * 48 + 128);
  out += "# The SL the routing engine gave each pair it does not route on SL 0\n";
  out += "# (source node GUID and port, destination LID, SL); every other pair on SL 0.\n";
  for (const PairSl& p : result.pairSls)
    fmt::format_to(std::back_inserter(out), "node {} port {} dlid {:#06x} sl {}\n",
                   fabric.node(p.source.node).guid, p.source.port, p.dlid.value, p.sl);
  return out;
}

Result<std::vector<DumpedPairSl>> parsePairSls(std::string_view text, std::string_view fileName) {
  std::vector<DumpedPairSl> out;
  std::size_t n = 0;
  while (!text.empty()) {
    const std::size_t end = std::min(text.find('\n'), text.size());
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    ++n;
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos || line[first] == '#') continue;
    auto pair = pairOf(line, n, fileName);
    if (!pair) return std::unexpected(pair.error());
    out.push_back(*pair);
  }
  // A pair twice: the earlier line named with the later.
  std::vector<std::size_t> order(out.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto key = [&](std::size_t i) { return std::tuple(out[i].dlid, out[i].node, out[i].port); };
  std::ranges::stable_sort(order, {}, key);
  for (std::size_t i = 1; i < order.size(); ++i)
    if (key(order[i]) == key(order[i - 1]))
      return fail(fmt::format("{}:{}: node {} port {} dlid {:#06x} is listed at line {} already",
                              fileName, out[order[i]].line, out[order[i]].node, out[order[i]].port,
                              out[order[i]].dlid.value, out[order[i - 1]].line));
  return out;
}

Result<std::vector<PairSl>> pairSlsByNode(const Fabric& fabric,
                                          const std::vector<DumpedPairSl>& dumped,
                                          std::string_view fileName) {
  std::vector<PairSl> out;
  out.reserve(dumped.size());
  for (const DumpedPairSl& d : dumped) {
    const auto id = fabric.findNode(d.node);
    if (!id)
      return fail(fmt::format("{}:{}: node {} is not in the fabric", fileName, d.line, d.node));
    const Node& node = fabric.node(*id);
    const bool sends = node.isSwitch() ? d.port == 0
                                       : d.port >= 1 && d.port <= node.numPorts() &&
                                             node.ports[d.port].lid.value != 0;
    if (!sends)
      return fail(fmt::format("{}:{}: {} port {} sends no traffic (expected {})", fileName, d.line,
                              d.node, d.port,
                              node.isSwitch() ? "port 0 of a switch" : "a CA port with a LID"));
    out.push_back(PairSl{d.dlid, PortRef{*id, d.port}, d.sl});
  }
  std::ranges::sort(out);
  return out;
}

}  // namespace ibsm
