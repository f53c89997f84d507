// vlarb.dump (format in Dumps.h): every port's VLArbitration tables and
// VLHighLimit as the QoS plan gives them, for an operator to diff with what
// `smpquery vlarb` shows of a port.
#include <fmt/format.h>
#include <ibsm/Dumps.h>

namespace ibsm {
namespace {

std::string_view kindOf(const Node& node) {
  return node.isSwitch() ? "switch" : node.type == NodeType::Router ? "router" : "ca";
}

// The entries up to the last that is not 0:0: the rest are 0:0.
std::string entries(const std::vector<qos::VlWeight>& table) {
  std::size_t n = table.size();
  while (n > 0 && table[n - 1] == qos::VlWeight{}) --n;
  std::string out;
  for (std::size_t i = 0; i < n; ++i)
    fmt::format_to(std::back_inserter(out), " {}:{}", table[i].vl, table[i].weight);
  return out;
}

}  // namespace

std::string formatVlArbDump(const Fabric& fabric, const qos::QosTables& qos) {
  std::string out;
  for (const qos::QosVlArb& arb : qos.vlArb) {
    const Node& node = fabric.node(arb.port.node);
    const auto head = fmt::format("{} {} port {}", kindOf(node), node.guid, arb.port.port);
    fmt::format_to(std::back_inserter(out), "{} high_limit {}\n{} low :{}\n{} high :{}\n", head,
                   arb.highLimit, head, entries(arb.low), head, entries(arb.high));
  }
  return out;
}

}  // namespace ibsm
