// Spreads the LIDs a switch forwards over the ports that are equally good for
// them, the way OpenSM's default routing does: every LID goes to the least
// used of its candidate ports. One balancer per switch, fed destinations in
// LID order.
//
//   PortBalancer balancer = PortBalancer::forSwitch(graph, s);
//   const auto port = balancer.pick(candidates, portsOfThisLmcRangeSoFar, LidKind::Ca);
//   balancer.assign(port, LidKind::Ca);
//
// Ranking of candidates, best first:
//  1. for the 2nd and later LIDs of an LMC range: a port to a remote switch
//     none of the range's earlier LIDs uses, then a port none of them uses
//     (so the range's paths differ from the first hop on);
//  2. fewest LIDs of the same kind already assigned to the port (CA LIDs and
//     switch LIDs are counted apart: hosts carry the data traffic, switch LIDs
//     only management, so switch LIDs must not skew the data balance);
//  3. fewest LIDs of that kind sent to the remote switch over all cables to it
//     (parallel cables of a trunk are then used in turn with the other
//     remote switches, not back to back);
//  4. fewest LIDs of the other kind on the port;
//  5. lowest port number.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "SwitchGraph.h"

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
  void assign(std::uint8_t port, LidKind kind);

  std::uint32_t load(std::uint8_t port, LidKind kind) const {
    return port < ports_.size() ? ports_[port].load[index(kind)] : 0;
  }

 private:
  static std::size_t index(LidKind kind) { return static_cast<std::size_t>(kind); }

  struct PortState {
    std::uint32_t group{kNoGroup};
    std::array<std::uint32_t, 2> load{};
  };
  static constexpr std::uint32_t kNoGroup = ~std::uint32_t{0};

  std::uint32_t groupLoad(std::uint8_t port, LidKind kind) const;

  std::vector<PortState> ports_;                      // index = port number
  std::vector<std::array<std::uint32_t, 2>> groups_;  // load per remote switch
};

}  // namespace ibsm::routing
