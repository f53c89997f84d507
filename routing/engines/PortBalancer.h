// Spreads the LIDs a switch forwards over the ports that are equally good for
// them, in the spirit of OpenSM's default routing (every LID goes to the least
// used of its candidate ports), with "used" measured in traffic: each LID
// comes with a weight, the number of host ports whose route to it crosses this
// switch, so that a port is loaded by what will flow through it, not by the
// number of table entries that name it. One balancer per switch.
//
//   PortBalancer balancer = PortBalancer::forSwitch(graph, s);
//   const auto port = balancer.pick(candidates, portsOfThisLmcRangeSoFar, LidKind::Ca);
//   balancer.assign(port, LidKind::Ca, hostsRoutedThroughHere);
//
// Ranking of candidates, best first:
//  1. for the 2nd and later LIDs of an LMC range: a port to a remote switch
//     none of the range's earlier LIDs uses, then a port none of them uses
//     (so the range's paths differ from the first hop on);
//  2. least weight of LIDs of the same kind already on the port (CA LIDs and
//     switch LIDs are counted apart: hosts carry the data traffic, switch LIDs
//     only management, so switch LIDs must not skew the data balance);
//  3. fewest LIDs of that kind on the port (spreads LIDs nobody routes through
//     this switch, which carry no weight);
//  4. least weight, then fewest LIDs, of that kind sent to the remote switch
//     over all cables to it (parallel cables of a trunk are then used in turn
//     with the other remote switches, not back to back);
//  5. fewest LIDs of the other kind on the port;
//  6. lowest port number.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "routing/graph/SwitchGraph.h"

namespace ibsm::routing {

enum class LidKind : std::uint8_t { Ca = 0, Switch = 1 };

class PortBalancer {
 public:
  // remoteOf[p]: what port p leads to (any id; ports sharing it form a trunk),
  // kNoSwitch for ports that lead to no switch.
  explicit PortBalancer(const std::vector<SwitchIndex>& remoteOf);
  static PortBalancer forSwitch(const SwitchGraph& graph, SwitchIndex s);

  // The best of `candidates` (must not be empty) for one more LID of `kind`;
  // `siblings` are the ports already chosen for earlier LIDs of its LMC range.
  std::uint8_t pick(std::span<const std::uint8_t> candidates,
                    std::span<const std::uint8_t> siblings, LidKind kind) const;
  // Weights add up per port saturating at 2^32 - 1 (CA ports x LIDs fits).
  void assign(std::uint8_t port, LidKind kind, std::uint32_t weight = 1);

  // LIDs of `kind` assigned to the port, and their total weight.
  std::uint32_t count(std::uint8_t port, LidKind kind) const {
    return static_cast<std::uint32_t>(use(port, kind));
  }
  std::uint32_t weight(std::uint8_t port, LidKind kind) const {
    return static_cast<std::uint32_t>(use(port, kind) >> 32);
  }

 private:
  static std::size_t index(LidKind kind) { return static_cast<std::size_t>(kind); }

  // weight << 32 | count: compares weight first, then count. Kept per kind
  // in its own array: on large fabrics every switch's balancer is visited
  // for every LID, so the hot data must be small and contiguous.
  using Use = std::uint64_t;
  static constexpr std::uint32_t kNoGroup = ~std::uint32_t{0};

  Use use(std::uint8_t port, LidKind kind) const {
    const auto& uses = use_[index(kind)];
    return port < uses.size() ? uses[port] : 0;
  }
  Use groupUse(std::uint8_t port, LidKind kind) const;
  std::uint32_t groupOf(std::uint8_t port) const {
    return port < group_.size() ? group_[port] : kNoGroup;
  }

  std::vector<std::uint32_t> group_;          // per port: its remote switch, numbered densely
  std::array<std::vector<Use>, 2> use_;       // by LidKind, per port
  std::array<std::vector<Use>, 2> groupUse_;  // by LidKind, per group
};

}  // namespace ibsm::routing
