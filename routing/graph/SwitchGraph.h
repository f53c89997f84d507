// The switches of a Fabric and the cables between them as a compressed
// sparse row graph: what every engine and the report walk. Built once per
// routing run; vertices are dense switch indices, not NodeIds, so per-switch
// arrays stay small and contiguous on fabrics of thousands of switches.
#pragma once

#include <ibsm/Fabric.h>

#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/range/iterator_range.hpp>
#include <span>
#include <vector>

namespace ibsm::routing {

using SwitchIndex = std::uint32_t;
inline constexpr SwitchIndex kNoSwitch = ~SwitchIndex{0};
inline constexpr std::uint16_t kUnreachable = 0xFFFF;

struct Cable {
  std::uint8_t port{0};        // out port on the source switch
  std::uint8_t remotePort{0};  // port it lands on at the target switch
};

// A LID-bearing port reached through a switch: the switch itself (port 0)
// or a CA port cabled to one of its ports.
struct Endpoint {
  PortRef owner;  // the port that holds the LIDs
  Lid base;
  std::uint8_t lmc{0};
  std::uint8_t switchPort{0};  // port of the switch it hangs off; 0 = the switch itself
};

class SwitchGraph {
 public:
  using Graph = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, Cable,
                                                   boost::no_property, SwitchIndex, std::uint32_t>;

  explicit SwitchGraph(const Fabric& fabric);

  std::size_t size() const { return nodeIds_.size(); }
  NodeId nodeId(SwitchIndex s) const { return nodeIds_[s]; }
  SwitchIndex index(NodeId id) const { return id < indexOf_.size() ? indexOf_[id] : kNoSwitch; }
  const Graph& graph() const { return graph_; }

  // Calls f(target, cable) for each cable leaving s, in port order; parallel
  // cables (trunks) appear once each.
  template <typename F>
  void forEachCable(SwitchIndex s, F&& f) const {
    for (auto e : boost::make_iterator_range(boost::out_edges(s, graph_)))
      f(static_cast<SwitchIndex>(boost::target(e, graph_)), graph_[e]);
  }
  std::size_t degree(SwitchIndex s) const { return boost::out_degree(s, graph_); }

  std::span<const Endpoint> endpoints(SwitchIndex s) const {
    return {endpoints_.data() + endpointStart_[s], endpoints_.data() + endpointStart_[s + 1]};
  }
  // Number of CA ports (not switches) attached to s.
  std::size_t caCount(SwitchIndex s) const { return endpoints(s).size() - 1; }

  // Switch hops from s to every switch (kUnreachable where none), by BFS.
  std::vector<std::uint16_t> hopsFrom(SwitchIndex s) const;

  // An order of the switches (a position per switch) by NodeId, as
  // RoutingResult::upDownOrder holds it: UINT32_MAX for the other nodes.
  std::vector<std::uint32_t> byNodeId(std::span<const std::uint32_t> position,
                                      std::size_t nodes) const;

 private:
  std::vector<NodeId> nodeIds_;
  std::vector<SwitchIndex> indexOf_;
  Graph graph_;
  std::vector<Endpoint> endpoints_;
  std::vector<std::size_t> endpointStart_;
};

}  // namespace ibsm::routing
