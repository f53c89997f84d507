// OpenSM's QoS policy file (qos-policy.conf), read unchanged, as values:
// what the dry run and the live SM share. The parser (qos/QosPolicyFile.cpp)
// gives a QosPolicy with file:line errors; resolveQos() names the ports of
// each port group on one fabric; matchQos() picks the QoS level of a path
// the way OpenSM does (the first rule that matches, else the DEFAULT
// level); the qos-setup section (which OpenSM reads and ignores) is applied
// by the SL2VL/VLArbitration table plan (qos/QosTables.cpp).
//
//   auto policy = qos::readQosPolicy("/etc/ibsm/qos-policy.conf");
//   if (!policy) fail(policy.error());  // "qos-policy.conf:12: ..."
//   auto resolved = qos::resolveQos(*policy, plan.fabric, members);
//   if (const QosLevel* level = qos::matchQos(resolved, query)) pr.sl = level->sl;
#pragma once

#include <ibsm/Error.h>
#include <ibsm/Fabric.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace ibsm::qos {

// An inclusive range, as the file writes "7-9", "0x10-0x1f" or one value.
template <typename T>
struct Range {
  T first{};
  T last{};
  bool contains(T v) const { return first <= v && v <= last; }
  auto operator<=>(const Range&) const = default;
};

// node-type: values, as a bit mask (ALL = CA|SWITCH|ROUTER; SELF is the
// SM's own port).
namespace nodeTypeBit {
inline constexpr std::uint8_t kCa = 1;
inline constexpr std::uint8_t kSwitch = 2;
inline constexpr std::uint8_t kRouter = 4;
inline constexpr std::uint8_t kSelf = 8;
inline constexpr std::uint8_t kAll = kCa | kSwitch | kRouter;
}  // namespace nodeTypeBit

// port-group: a port is a member when any of its selectors names it.
struct QosPortGroup {
  std::string name{};
  std::size_t line{0};                            // of `port-group`, for messages
  std::vector<Range<std::uint64_t>> portGuids{};  // port-guid: GUIDs and ranges
  std::vector<std::string> portNames{};           // port-name: "node description/P<num>"
  std::vector<Range<std::uint16_t>> pkeys{};      // pkey: full members of these partitions
  std::vector<std::string> partitions{};          // partition: names in the partition config
  std::uint8_t nodeTypes{0};                      // node-type: nodeTypeBit mask
};

// One (VL, weight) entry of a VLArbitration table, "vl:weight" in the file.
struct VlWeight {
  std::uint8_t vl{0};
  std::uint8_t weight{0};
  auto operator<=>(const VlWeight&) const = default;
};

// qos-setup / vlarb-scope: the VLArbitration tables of the ports of
// `groups` (every port when empty), or of the ports connected to a port of
// `across`.
struct QosVlArbScope {
  std::size_t line{0};
  std::vector<std::string> groups{};
  std::vector<std::string> across{};
  std::optional<std::vector<VlWeight>> high{};
  std::optional<std::vector<VlWeight>> low{};
  std::optional<std::uint8_t> highLimit{};  // vl-high-limit
};

// qos-setup / sl2vl-scope: the SL2VL table of the ports of `groups` (a
// switch: its output ports `to` for input ports `from`; empty: all), or of
// ports across a link from `acrossTo`/`acrossFrom` groups.
struct QosSl2VlScope {
  std::size_t line{0};
  std::vector<std::string> groups{};
  std::vector<Range<std::uint8_t>> from{};  // input port numbers; empty: every port
  std::vector<Range<std::uint8_t>> to{};    // output port numbers; empty: every port
  std::vector<std::string> acrossFrom{};
  std::vector<std::string> acrossTo{};
  std::array<std::uint8_t, 16> sl2vl{};  // sl2vl-table: VL of SL 0..15
};

struct QosSetup {
  std::vector<QosVlArbScope> vlArb{};
  std::vector<QosSl2VlScope> sl2vl{};
};

// qos-level: what a matching path gets. MTU and rate are IBA codes (MTU
// 1=256 .. 5=4096; rate as PathRecord:Rate), packet-life the PathRecord's
// PacketLifeTime code.
struct QosLevel {
  std::string name{};
  std::size_t line{0};
  std::uint8_t sl{0};
  std::optional<std::uint8_t> mtuLimit{};
  std::optional<std::uint8_t> rateLimit{};
  std::optional<std::uint8_t> packetLife{};
  std::vector<Range<std::uint16_t>> pkeys{};  // the path's PKey must be one of these
};

// qos-match-rule (and each qos-ulps line, turned into one): empty criteria
// match anything; `level` names a QosLevel.
struct QosMatchRule {
  std::size_t line{0};
  std::vector<Range<std::uint8_t>> qosClasses{};
  std::vector<std::string> sources{};       // port-group names
  std::vector<std::string> destinations{};  // port-group names
  std::vector<Range<std::uint64_t>> serviceIds{};
  std::vector<Range<std::uint16_t>> pkeys{};
  std::string level{};
};

struct QosPolicy {
  std::filesystem::path file{};  // for messages
  std::vector<QosPortGroup> groups{};
  QosSetup setup{};
  std::vector<QosLevel> levels{};
  std::vector<QosMatchRule> rules{};  // in the order they are tried
  const QosLevel* level(std::string_view name) const {
    for (const auto& l : levels)
      if (l.name == name) return &l;
    return nullptr;
  }
};

// The text of a policy file; `file` names it in errors ("FILE:LINE: what
// was expected"). Checks that every name a rule or scope uses is defined.
[[nodiscard]] Result<QosPolicy> parseQosPolicy(std::string_view text,
                                               const std::filesystem::path& file);
[[nodiscard]] Result<QosPolicy> readQosPolicy(const std::filesystem::path& file);

// What a port group's `pkey:` and `partition:` selectors need from the
// partition config: the PKey of each partition name, and the port GUIDs
// that are full members of each PKey (low 15 bits).
struct QosPartitions {
  std::map<std::string, std::uint16_t, std::less<>> pkeyOf{};
  std::map<std::uint16_t, std::set<Guid>> fullMembers{};
};

// A policy with its port groups resolved to port GUIDs on one fabric:
// built once per plan, shared by the SA's snapshots.
struct ResolvedQos {
  std::shared_ptr<const QosPolicy> policy{};
  std::map<std::string, std::set<Guid>, std::less<>> members{};  // group -> port GUIDs
  bool inGroup(std::string_view group, Guid port) const {
    auto it = members.find(group);
    return it != members.end() && it->second.contains(port);
  }
};

[[nodiscard]] ResolvedQos resolveQos(std::shared_ptr<const QosPolicy> policy, const Fabric& fabric,
                                     const QosPartitions& partitions, Guid smPort);

// What a PathRecord query says about the path: its end ports, and the
// service id, PKey and QoS class when the query gives them.
struct QosQuery {
  Guid source{};
  Guid destination{};
  std::optional<std::uint64_t> serviceId{};
  std::optional<std::uint16_t> pkey{};
  std::optional<std::uint8_t> qosClass{};
};

// The SL2VL and VLArbitration tables the qos.* options and the policy's
// qos-setup section ask of every port (qos/QosTables.cpp plans them; sm/program
// writes the ones a port does not hold). A switch's SL2VL is per (input,
// output) port pair: `port` is the output port and `inPort` the input; a CA
// or router port has one table (`inPort` 0). VLArbitration is per output
// port (a switch's port 0 included); highLimit is PortInfo:VLHighLimit.
struct QosSl2Vl {
  PortRef port{};
  std::uint8_t inPort{0};
  std::array<std::uint8_t, 16> vl{};
  auto operator<=>(const QosSl2Vl&) const = default;
};
struct QosVlArb {
  PortRef port{};
  std::uint8_t highLimit{0};
  std::vector<VlWeight> high{};  // at most 64 entries (blocks 3-4)
  std::vector<VlWeight> low{};   // at most 64 entries (blocks 1-2)
  auto operator<=>(const QosVlArb&) const = default;
};
// A QoS class with a routing engine's VL layers (QosOptions.h says the
// rule): the SLs the QoS SL2VL tables map to one VL, and the block of VLs
// the class is given, one a layer.
struct QosVlClass {
  std::uint8_t qosVl{0};    // the VL the QoS tables map the class's SLs to
  std::uint16_t sls{0};     // bit s: SL s is in the class
  std::uint8_t firstVl{0};  // the block: firstVl .. firstVl + layers - 1
  auto operator<=>(const QosVlClass&) const = default;
};
struct QosVlLayers {
  std::uint8_t layers{1};           // VLs the routing engine's SL2VL uses
  std::vector<QosVlClass> classes;  // by qosVl
  std::uint8_t vlsNeeded{1};        // classes x layers
  auto operator<=>(const QosVlLayers&) const = default;
};
struct QosTables {
  std::vector<QosSl2Vl> sl2vl{};  // sorted by (port, inPort)
  std::vector<QosVlArb> vlArb{};  // sorted by port
  // With a routing engine that uses VL layers: the classes and their VLs,
  // and the engine's own port pairs' tables with the classes multiplied in
  // (not in sl2vl: they replace RoutingResult::sl2vl, see
  // adoptLayeredSl2Vl() in QosOptions.h).
  std::optional<QosVlLayers> layers{};
  std::vector<QosSl2Vl> layered{};
  // What the plan says of itself: the classes on the layers, entries it
  // had to leave out (the live SM logs them, SM-0485).
  std::vector<std::string> notes{};
};

// The level of the first rule that matches, else the level named DEFAULT,
// else nullptr (no QoS: the SA answers as without a policy).
[[nodiscard]] const QosLevel* matchQos(const ResolvedQos& qos, const QosQuery& query);

}  // namespace ibsm::qos
