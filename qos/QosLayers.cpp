// QoS classes multiplied with a routing engine's VL layers (the rule is in
// QosOptions.h): class c of L layers gets the VLs c*L .. c*L + L - 1, an SL
// goes to its class's block plus the engine's layer for the port pair, and
// the VLArbitration weights of a class are spread over its block. Refused
// when a cabled port cannot run classes x layers VLs.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <tuple>

#include "qos/QosDraft.h"
#include "routing/multicast/McSl.h"

namespace ibsm::qos {
namespace {

constexpr std::uint8_t kDrop = 15;
constexpr std::uint8_t kMaxDataVls = 15;
constexpr int kNoClass = -1;

// Data VLs a VLCap code lets a port run; 0 (not known) is not a limit.
std::uint8_t vlsOfCode(std::uint8_t code) {
  static constexpr std::uint8_t kByCode[] = {kMaxDataVls, 1, 2, 4, 8, 15};
  return code < std::size(kByCode) ? kByCode[code] : kMaxDataVls;
}

QosPortType typeOf(const Fabric& fabric, PortRef ref) {
  const Node& node = fabric.node(ref.node);
  if (node.isSwitch()) return ref.port == 0 ? QosPortType::Switch0 : QosPortType::SwitchExternal;
  return node.type == NodeType::Router ? QosPortType::Router : QosPortType::Ca;
}

std::string_view typeKey(QosPortType type) {
  switch (type) {
    case QosPortType::Ca:
      return "ca_";
    case QosPortType::Switch0:
      return "sw0_";
    case QosPortType::SwitchExternal:
      return "swe_";
    case QosPortType::Router:
      return "rtr_";
  }
  return "";
}

struct Classes {
  std::array<int, 16> index{};  // by QoS VL: the class, or kNoClass
  QosVlLayers layers;
};

// The classes the draft's SL2VL tables make, and the engine's layers.
Classes classesOf(const Draft& d, const std::vector<Sl2VlEntry>& engine) {
  Classes c;
  c.index.fill(kNoClass);
  std::array<std::uint16_t, 16> sls{};
  for (const auto& [key, table] : d.sl2vl)
    for (std::size_t s = 0; s < 16; ++s)
      if (table[s] != kDrop) sls[table[s]] |= static_cast<std::uint16_t>(1U << s);
  std::uint8_t top = 0;
  for (const Sl2VlEntry& e : engine)
    for (const std::uint8_t vl : e.vl)
      if (vl != kDrop) top = std::max(top, vl);
  c.layers.layers = static_cast<std::uint8_t>(top + 1);
  for (std::uint8_t q = 0; q < kDrop; ++q) {
    if (sls[q] == 0) continue;
    c.index[q] = static_cast<int>(c.layers.classes.size());
    c.layers.classes.push_back(
        {.qosVl = q,
         .sls = sls[q],
         .firstVl = static_cast<std::uint8_t>(c.layers.classes.size() * c.layers.layers)});
  }
  const std::size_t need = c.layers.classes.size() * c.layers.layers;
  c.layers.vlsNeeded = static_cast<std::uint8_t>(std::min<std::size_t>(need, 255));
  return c;
}

// What one port lets the classes use, and why.
struct PortVls {
  std::uint8_t allows{kMaxDataVls};
  std::string why;
};

PortVls portVls(const Fabric& fabric, const QosOptions& options, PortRef ref) {
  const Port& port = fabric.port(ref);
  std::uint8_t cap = vlsOfCode(port.vlCap);
  if (port.remote) cap = std::min(cap, vlsOfCode(fabric.port(*port.remote).vlCap));
  const QosPortType type = typeOf(fabric, ref);
  const std::uint8_t maxVls = options.tablesFor(type).maxVls;
  PortVls out{.allows = std::min(cap, maxVls), .why = {}};
  out.why = fmt::format("its link's VLCap runs {} data VL{}", cap, cap == 1 ? "" : "s");
  if (maxVls < cap)
    out.why += fmt::format(", qos.{}max_vls (or qos.max_vls) {}", typeKey(type), maxVls);
  return out;
}

// " (cabled to "host1"[1] (0x...))", or nothing for a port with no link.
std::string linkEnd(const Fabric& fabric, PortRef ref) {
  const auto& remote = fabric.port(ref).remote;
  return remote ? fmt::format(" (cabled to {})", fabric.describe(*remote)) : std::string{};
}

std::string classList(const QosVlLayers& layers) {
  std::vector<std::string> vls;
  for (const QosVlClass& c : layers.classes) vls.push_back(fmt::to_string(c.qosVl));
  return fmt::format("{}", fmt::join(vls, ", "));
}

// The refusal: which options, how many VLs, what the first short port allows.
std::optional<std::string> misfit(const Draft& d, const Fabric& fabric, const QosOptions& options,
                                  const ResolvedQos* policy, const QosVlLayers& layers) {
  const std::size_t need = layers.classes.size() * layers.layers;
  std::optional<std::pair<PortRef, PortVls>> first;
  std::size_t shortPorts = 0;
  for (const auto& [ref, arb] : d.vlArb) {
    if (ref.port == 0) continue;  // a switch's port 0 has no link to run VLs on
    PortVls vls = portVls(fabric, options, ref);
    if (need <= vls.allows && need <= kMaxDataVls) continue;
    ++shortPorts;
    if (!first) first.emplace(ref, std::move(vls));
  }
  if (!first) return std::nullopt;
  const bool scopes = policy && policy->policy && !policy->policy->setup.sl2vl.empty();
  std::string text = fmt::format(
      "QoS classes do not fit beside the routing's VL layers: the QoS SL2VL tables (qos.sl2vl and "
      "qos.ca_sl2vl, qos.sw0_sl2vl, qos.swe_sl2vl, qos.rtr_sl2vl{}) map the SLs to {} VL{} ({}), "
      "so {} classes x {} VL layers need {} VLs, ",
      scopes ? fmt::format(", and the sl2vl-scopes of {}", policy->policy->file.string()) : "",
      layers.classes.size(), layers.classes.size() == 1 ? "" : "s", classList(layers),
      layers.classes.size(), layers.layers, need);
  if (need > kMaxDataVls)
    text += fmt::format("more than the {} data VLs a port can run", kMaxDataVls);
  else
    text += fmt::format("but {}{} allows {} ({})", fabric.describe(first->first),
                        linkEnd(fabric, first->first), first->second.allows, first->second.why);
  if (shortPorts > 2) text += fmt::format(", as do {} more ports", shortPorts - 1);
  if (shortPorts == 2) text += ", as does 1 more port";
  const std::size_t fit = std::min<std::size_t>(first->second.allows, kMaxDataVls) / layers.layers;
  text += fmt::format("; map the SLs to at most {} VL{}", fit, fit == 1 ? "" : "s");
  return text;
}

// VLArbitration: each entry of a class's VL spread over its block; weight 0
// entries (skipped by arbitration) and VLs no SL uses dropped.
std::vector<VlWeight> spread(const std::vector<VlWeight>& table, const Classes& c, bool& cut) {
  std::vector<VlWeight> out;
  for (const VlWeight& e : table) {
    if (e.weight == 0 || e.vl >= kDrop || c.index[e.vl] == kNoClass) continue;
    const auto first = c.layers.classes[static_cast<std::size_t>(c.index[e.vl])].firstVl;
    for (std::uint8_t l = 0; l < c.layers.layers; ++l)
      out.push_back({static_cast<std::uint8_t>(first + l), e.weight});
  }
  if (out.size() > kVlArbEntries) cut = true;
  out.resize(kVlArbEntries);
  return out;
}

const Sl2VlEntry* engineTable(const std::vector<Sl2VlEntry>& engine, NodeId sw, std::uint8_t in,
                              std::uint8_t out) {
  // The engine's entries are sorted by (switch, in, out).
  const auto key = std::tuple(sw, in, out);
  auto it = std::ranges::lower_bound(
      engine, key, {}, [](const Sl2VlEntry& e) { return std::tuple(e.sw, e.inPort, e.outPort); });
  return it != engine.end() && std::tuple(it->sw, it->inPort, it->outPort) == key ? &*it : nullptr;
}

std::array<std::uint8_t, 16> layered(const std::array<std::uint8_t, 16>& qos,
                                     const Sl2VlEntry* engine, const Classes& c) {
  std::array<std::uint8_t, 16> out{};
  for (std::size_t s = 0; s < 16; ++s) {
    const std::uint8_t layer = engine ? engine->vl[s] : 0;
    if (qos[s] == kDrop || layer == kDrop) {
      out[s] = kDrop;
      continue;
    }
    const auto cls = static_cast<std::size_t>(c.index[qos[s]]);
    out[s] = static_cast<std::uint8_t>(c.layers.classes[cls].firstVl + layer);
  }
  return out;
}

std::string describeLayers(const QosVlLayers& layers, std::size_t tables) {
  std::vector<std::string> parts;
  for (const QosVlClass& c : layers.classes)
    parts.push_back(fmt::format("class of VL {} (SL mask {:#06x}) on VLs {}-{}", c.qosVl, c.sls,
                                c.firstVl, c.firstVl + layers.layers - 1));
  return fmt::format(
      "{} QoS class{} x {} VL layer{} of the routing = {} VLs: {}; the routing engine's {} SL2VL "
      "table{} carry the classes too",
      layers.classes.size(), layers.classes.size() == 1 ? "" : "es", layers.layers,
      layers.layers == 1 ? "" : "s", layers.vlsNeeded, fmt::join(parts, "; "), tables,
      tables == 1 ? "" : "s");
}

}  // namespace

Result<QosTables> layerTables(const Draft& d, const Fabric& fabric, const QosOptions& options,
                              const ResolvedQos* policy, const std::vector<Sl2VlEntry>& engine) {
  std::vector<Sl2VlEntry> sorted = engine;
  std::ranges::sort(sorted, {},
                    [](const Sl2VlEntry& e) { return std::tuple(e.sw, e.inPort, e.outPort); });
  // The classes go over the unicast layers alone: the multicast trees' VL of
  // their own (routing/multicast/McSl.h) is not one, and SL 15 is a class's
  // SL here, layered as SL 0 (under QoS the trees stay on their groups' SLs).
  if (routing::treesHaveAVlOfTheirOwn(sorted))
    for (Sl2VlEntry& e : sorted) e.vl[routing::kTreeSl] = e.vl[0];
  const Classes c = classesOf(d, sorted);
  if (auto why = misfit(d, fabric, options, policy, c.layers)) return fail(std::move(*why));
  QosTables out;
  out.layers = c.layers;
  bool cut = false;
  for (const auto& [ref, arb] : d.vlArb) {
    QosVlArb spreadArb = arb;
    spreadArb.high = spread(arb.high, c, cut);
    spreadArb.low = spread(arb.low, c, cut);
    out.vlArb.push_back(std::move(spreadArb));
  }
  for (const auto& [key, table] : d.sl2vl) {
    const auto [ref, in] = key;
    const Sl2VlEntry* e = engineTable(sorted, ref.node, in, ref.port);
    QosSl2Vl t{.port = ref, .inPort = in, .vl = layered(table, e, c)};
    if (e != nullptr) {
      out.layered.push_back(t);
      continue;
    }
    // A switch's port 0 runs what its VLCap allows, as OpenSM masks it.
    const std::uint8_t mask = vlMask(fabric, ref);
    for (auto& vl : t.vl)
      if (vl != kDrop) vl &= mask;
    out.sl2vl.push_back(t);
  }
  out.notes.push_back(describeLayers(c.layers, out.layered.size()));
  if (cut)
    out.notes.push_back(fmt::format(
        "VLArbitration tables spread over the classes' VLs hold more than {} entries with a "
        "weight: those past {} are left out",
        kVlArbEntries, kVlArbEntries));
  return out;
}

}  // namespace ibsm::qos
