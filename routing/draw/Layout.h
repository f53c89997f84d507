// A picture of a fabric, as positions and lines before any SVG is written:
// `ibsm draw` lays out a topology file, and the daemon its last sweep, with
// the same code. The structure is known (levels of a fat tree, groups of a
// dragonfly), so placement follows it instead of a general graph layout,
// which at a thousand switches is slow and tangled.
//
//   Layout layout = layoutFabric(fabric, {.loads = loads, .marks = marks});
//   std::string svg = renderSvg(layout, "cluster.net");
//
// Pure: no I/O; the inputs the caller read (routes per link, health
// conditions) come in by value, keyed by GUID and port so that a report or a
// health view from another process names the same cables.
#pragma once

#include <ibsm/Fabric.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ibsm::draw {

// Routes crossing one directed inter-switch cable (RouteReport's link load).
struct LinkLoadEntry {
  Guid from;
  std::uint8_t port{0};
  std::uint64_t routes{0};
};

// A health condition on a port (and its link): the link, or the switch for
// port 0, or the host summary for a CA port, is drawn marked.
struct HealthMark {
  Guid node;
  std::uint8_t port{0};
  std::string condition;  // "downgraded", "errors", ...
  std::string detail;     // the tooltip's words
};

struct LayoutInputs {
  std::optional<std::vector<LinkLoadEntry>> loads;  // nullopt: links uncoloured
  std::vector<HealthMark> marks;
  // Where they came from, for errors: "report.json: linkLoad.perLink[3]: ...".
  std::string loadsFrom{"report"};
  std::string marksFrom{"health"};
};

enum class Arrangement : std::uint8_t { Levels, Groups, Distance };

struct Point {
  double x{0};
  double y{0};
};

struct SwitchBox {
  NodeId node{0};
  std::string name;  // the node description, else its GUID
  Guid guid;
  Point at;                            // centre of the box
  std::uint32_t tier{0};               // level (fat tree, 0 = leaves), group, or BFS distance
  std::uint32_t hosts{0};              // end nodes cabled to it
  Point hostsAt;                       // centre of its host summary, when hosts > 0
  std::vector<std::string> marks;      // conditions on the switch itself
  std::vector<std::string> hostMarks;  // conditions on its host links
};

// Every cable between two switches, drawn as one line.
struct Bundle {
  std::size_t a{0};  // indices into Layout::switches, a < b
  std::size_t b{0};
  std::uint32_t cables{0};
  std::uint64_t maxRoutes{0};      // busiest direction of its busiest cable
  std::uint64_t totalRoutes{0};    // both directions of every cable
  std::vector<std::string> marks;  // "downgraded: 4x expected, 1x active" per condition
};

struct Layout {
  Arrangement arrangement{Arrangement::Distance};
  std::string shape;  // "fat tree, 3 levels", "dragonfly: 9 groups ...", "BFS rings from sw0"
  std::vector<SwitchBox> switches;
  std::vector<Bundle> bundles;  // in ascending load, so the busiest are drawn on top
  bool hasLoads{false};
  std::uint64_t maxRoutes{0};  // over all bundles
  double width{0};
  double height{0};
  double boxWidth{0};  // narrower than high: labels written upwards
  double boxHeight{0};
  double hostsWidth{0};  // a host summary's box
  double hostsHeight{0};
};

// Fails only when a load or mark names a port the fabric does not have as
// it says (a report or health file of another fabric), naming it.
[[nodiscard]] Result<Layout> layoutFabric(const Fabric& fabric, const LayoutInputs& inputs);

}  // namespace ibsm::draw
