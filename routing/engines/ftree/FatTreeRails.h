// Rails of a rail-optimised fat tree (an NVIDIA DGX SuperPOD: each server's
// N HCAs go to N different leaves, one rail per HCA index). The server and
// the HCA index come from the NodeDescription, which Linux sets to
// "<hostname> <device>": accepted are "<host> mlx5_<N>" (the mlx5 driver's
// device names, what current hosts report) and "<host> HCA-<N>" (older
// stacks and OpenSM's examples). Anything else is not on a rail.
//
// Ordering a leaf's CAs by server then HCA index (not by leaf port) makes
// ftree's destination order the one operators use for a rail: a shift
// permutation within a rail then follows the dealing order, whatever the
// cabling of servers to leaf ports.
//
//   if (const auto hca = parseHcaName(node.description)) ... hca->host, hca->index
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ibsm::routing::ftree {

struct HcaName {
  std::string_view host;
  std::uint32_t index{0};
};

[[nodiscard]] std::optional<HcaName> parseHcaName(std::string_view description);

// Host names compared as people read them: digit runs by value, so h2
// comes before h10.
[[nodiscard]] std::strong_ordering naturalCompare(std::string_view a, std::string_view b);

}  // namespace ibsm::routing::ftree
