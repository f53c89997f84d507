// What the CA ports of a fat tree are, so that only compute hosts shape the
// tree and its balance. Real fabrics carry three kinds:
// - compute CAs on the leaves: the traffic ftree balances and deals D-mod-K;
// - SHARP Aggregation Nodes: every NVIDIA switch from Switch-IB 2 on shows
//   one as a CA on its internal port, on spines as on leaves;
// - I/O, storage, management and SM hosts cabled to switches above the leaf
//   level ("upper" CAs).
// Aggregation nodes and upper CAs still get every route, shortest and legal,
// but they neither rank the switches nor weigh in the balance.
//
// An aggregation node is recognised by what it is: a CA cabled to the
// switch's last port (the internal one: 37 on a 36-port switch) whose node
// shares the switch's system image GUID (it is part of the switch ASIC). A
// NodeDescription containing "Aggregation Node" is taken too, because some
// inputs carry no system image GUID (a ports report): either rule suffices,
// and the report counts which one placed each.
#pragma once

#include <ibsm/Fabric.h>

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "routing/graph/SwitchGraph.h"

namespace ibsm::routing::ftree {

enum class CaRole : std::uint8_t { Compute, Aggregation, Upper };

// Which rule recognised an aggregation node (bits: both may hold).
enum AnRule : std::uint8_t { kNotAn = 0, kInternalPort = 1, kDescription = 2 };

[[nodiscard]] std::uint8_t aggregationRule(const Fabric& fabric, const SwitchGraph& graph,
                                           SwitchIndex s, const Endpoint& ca);

// Per switch, the roles of its CA endpoints (graph.endpoints(s) after the
// first, which is the switch itself), in the same order.
class CaRoles {
 public:
  CaRoles(const Fabric& fabric, const SwitchGraph& graph);

  std::span<const CaRole> of(SwitchIndex s) const {
    return {role_.data() + first_[s], role_.data() + first_[s + 1]};
  }
  std::span<CaRole> of(SwitchIndex s) {
    return {role_.data() + first_[s], role_.data() + first_[s + 1]};
  }
  // CA ports of s that are not aggregation nodes.
  std::uint32_t hosts(SwitchIndex s) const { return hosts_[s]; }
  // Aggregation nodes found by the internal port only, the description only, both.
  std::array<std::size_t, 4> byRule{};

 private:
  std::vector<std::uint32_t> first_;
  std::vector<CaRole> role_;
  std::vector<std::uint32_t> hosts_;
};

}  // namespace ibsm::routing::ftree
