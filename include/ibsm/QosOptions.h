// opensm.conf's QoS options as values ([qos] in ibsm.toml: qos.enabled,
// qos.max_vls, qos.high_limit, qos.vlarb_high, qos.vlarb_low, qos.sl2vl and
// the same five per port type, qos.ca_*, qos.sw0_*, qos.swe_*, qos.rtr_*),
// and the plan of the SL2VL and VLArbitration tables they and a policy's
// qos-setup section give every port (qos/QosTables.cpp). Shared by the live
// SM and the dry run, so it lives outside sm/.
//
//   auto high = qos::parseVlArbOption("0:4,1:0");  // error: what was expected
//   options.ca.vlarbHigh = *high;
//   auto tables = qos::planQosFor(plan.fabric, options, plan.qos.get(), plan.routing);
//   if (!tables) return tables.error();  // classes x VL layers do not fit a port
//   plan.qosTables = std::move(*tables);  // plan.routing.sl2vl carries the classes
#pragma once

#include <ibsm/Error.h>
#include <ibsm/Fabric.h>
#include <ibsm/QosPolicy.h>
#include <ibsm/Routing.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ibsm::qos {

// The 64 entries of a VLArbitration table (high or low): OpenSM fills what
// the option leaves out with VL 0, weight 0.
inline constexpr std::size_t kVlArbEntries = 64;

// One set of the options; what is unset takes the general set's value
// (qos_max_vls, ...), then OpenSM's default.
struct QosTableOptions {
  std::optional<std::uint8_t> maxVls{};     // 1-15
  std::optional<std::uint8_t> highLimit{};  // 0-255: PortInfo:VLHighLimit
  std::optional<std::vector<VlWeight>> vlarbHigh{};
  std::optional<std::vector<VlWeight>> vlarbLow{};
  std::optional<std::array<std::uint8_t, 16>> sl2vl{};
  bool operator==(const QosTableOptions&) const = default;
};

// The port types OpenSM gives a set of options each.
enum class QosPortType : std::uint8_t { Ca, Switch0, SwitchExternal, Router };

// One port type's tables as OpenSM builds them from the options.
struct QosTableSet {
  std::uint8_t maxVls{15};
  std::uint8_t highLimit{0};
  std::vector<VlWeight> high{};  // kVlArbEntries entries
  std::vector<VlWeight> low{};   // kVlArbEntries entries
  std::array<std::uint8_t, 16> sl2vl{};
};

struct QosOptions {
  bool enabled{false};  // OpenSM's `qos TRUE`
  QosTableOptions all{};
  QosTableOptions ca{};
  QosTableOptions sw0{};  // a switch's enhanced port 0
  QosTableOptions swe{};  // a switch's external ports
  QosTableOptions rtr{};
  bool operator==(const QosOptions&) const = default;

  // The type's own values, else the general ones, else OpenSM's defaults.
  [[nodiscard]] QosTableSet tablesFor(QosPortType type) const;
};

// OpenSM's value syntax. A VLArbitration option is up to 64 "VL:weight"
// pairs separated by ',' (VL 0-14, weight 0-255; C numbers: 0x.. too); an
// SL2VL option is the 16 VLs (0-15) of SL 0..15 separated by ','. The error
// says what was expected, for the caller to prefix with file:line and key.
[[nodiscard]] Result<std::vector<VlWeight>> parseVlArbOption(std::string_view text);
[[nodiscard]] Result<std::array<std::uint8_t, 16>> parseSl2VlOption(std::string_view text);
// The same syntax back ("0:4,1:0", "0,1,2,...").
[[nodiscard]] std::string formatVlArb(const std::vector<VlWeight>& entries);
[[nodiscard]] std::string formatSl2Vl(const std::array<std::uint8_t, 16>& vls);

// The tables every port gets, as OpenSM programs them with `options`, then
// the qos-setup scopes of `policy` (null: none) on top, in file order.
//
// With a routing engine whose SL2VL tables use VL layers for deadlock
// freedom (`engineSl2Vl` not empty: dragonfly), QoS classes and layers are
// multiplied, so that no class shares a VL with another and every class
// keeps the engine's layers:
// - a QoS class is the set of SLs the QoS SL2VL tables (qos.sl2vl, its
//   per-port-type variants and the policy's sl2vl-scopes, as planned above)
//   map to one VL q; the classes are numbered by q, c = 0, 1, ... over the
//   distinct VLs the tables of the whole fabric use (VL 15, drop, is none);
// - with L layers (the engine's highest VL + 1), class c is given the block
//   of VLs c*L .. c*L + L - 1, and a table's SL s goes to
//       VL = block(class of Q[s]) + E[s]
//   where Q is the QoS table of that port (pair) and E the engine's table of
//   the same switch port pair (0, layer 0, where the engine gives none: CA
//   and router ports, a switch's port 0); Q[s] or E[s] 15 stays 15;
// - VLArbitration: an entry (q, w) of a class's VL becomes the L entries
//   (block + l, w), so a class's weight is carried by its block's VLs, each
//   layer with the class's weight; an entry of a VL no SL is mapped to is
//   dropped; at most 64 entries are kept (a note says when more were asked);
// - every cabled port must run classes x L VLs: when the link's VLCap (the
//   smaller end) or the port type's qos max_vls allows fewer, or more than
//   15 are needed, the plan is refused with an error naming the options, the
//   VLs needed and what the port allows.
// The engine's pairs' tables are in QosTables::layered, the others in
// QosTables::sl2vl; QosTables::layers says the classes and their VLs.
[[nodiscard]] Result<QosTables> planQosTables(const Fabric& fabric, const QosOptions& options,
                                              const ResolvedQos* policy,
                                              const std::vector<Sl2VlEntry>& engineSl2Vl);

// Moves QosTables::layered into the routing result's SL2VL (the tables the
// SM programs for the engine's port pairs, the credit-loop analysis walks
// and the SA answers by), and sets RoutingResult::vlsUsed to the VLs
// classes x layers need. Nothing happens without layers.
void adoptLayeredSl2Vl(QosTables& tables, RoutingResult& routing);

// planQosTables for `routing`'s SL2VL, then adoptLayeredSl2Vl into it: what
// the live SM (MasterSweep), `ibsm route` and `ibsm path` do once the policy
// is resolved, so the three plan the same tables. On an error `routing` is
// unchanged.
[[nodiscard]] Result<QosTables> planQosFor(const Fabric& fabric, const QosOptions& options,
                                           const ResolvedQos* policy, RoutingResult& routing);

}  // namespace ibsm::qos
