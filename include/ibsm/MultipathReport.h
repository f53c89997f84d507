// How disjoint the paths toward a CA port's LMC LIDs are: with LMC > 0 a
// port owns 2^LMC LIDs, and a source that picks among them (MultiPathRecord,
// IBA 15.2.5.17's independent paths) gets as many independent routes as the
// tables give it. Found by walking the tables, like the rest of the report.
//
// Definitions:
// * A pair is an ordered pair of CA ports (a source port with a LID cabled
//   to a switch, a destination port owning LMC > 0 LIDs) on different
//   switches; its paths are the routes from the source's switch to each of
//   the destination's LIDs (the first kMaxPaths of them) that are delivered.
// * k link-disjoint: the most of those paths of which no two cross the same
//   directed inter-switch cable; k switch-disjoint: the most of which no two
//   pass the same switch but the two ends' nor the same cable (on a fat
//   tree: disjoint above the leaves). 0 when no path is delivered.
// * Classes as the report's: compute pairs (no end in RoutingResult::apart)
//   and apart pairs (an end there); `all` is both.
// * busiestPerLayer[l]: the busiest directed inter-switch cable counting the
//   compute pairs' routes toward LID base + l only; [0] is the report's
//   linkLoad.max when every CA port has the same LMC.
#pragma once

#include <cstdint>
#include <vector>

namespace ibsm {

struct MultipathClass {
  std::uint64_t pairs{0};
  // Index k = 0 .. MultipathReport::paths: pairs with k disjoint paths.
  std::vector<std::uint64_t> linkDisjoint{};
  std::vector<std::uint64_t> switchDisjoint{};
};

struct MultipathReport {
  static constexpr unsigned kMaxPaths = 16;
  unsigned paths{1};                  // the most LIDs any CA port owns, at most kMaxPaths
  std::uint64_t sameSwitch{0};        // pairs on one switch: no cable to share, not counted below
  std::uint64_t destinationPorts{0};  // CA ports with LMC > 0
  MultipathClass all, compute, apart;
  std::vector<std::uint64_t> busiestPerLayer{};
};

}  // namespace ibsm
