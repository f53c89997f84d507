#include "ProgramPlan.h"

#include <fmt/format.h>

#include <algorithm>

#include "PKeyPlan.h"
#include "PortSettings.h"
#include "Sl2VlPlan.h"

namespace ibsm::sm {

std::string_view phaseName(Phase phase) {
  switch (phase) {
    case Phase::ReadTables:
      return "read-tables";
    case Phase::PKeys:
      return "pkeys";
    case Phase::SmLid:
      return "sm-lid";
    case Phase::Lids:
      return "lids";
    case Phase::Lfts:
      return "lfts";
    case Phase::Sl2Vl:
      return "sl2vl";
    case Phase::Armed:
      return "armed";
    case Phase::Active:
      return "active";
  }
  return "?";
}

std::optional<DrPath> pathToPort(const DiscoveredSubnet& discovered, PortRef port) {
  const Fabric& fabric = discovered.fabric;
  if (port == discovered.smPort) return DrPath{};
  auto pathToNode = [&](NodeId n) -> std::optional<DrPath> {
    if (n == discovered.smPort.node) return DrPath{};
    if (n < discovered.pathTo.size()) return discovered.pathTo[n];
    return std::nullopt;
  };
  if (fabric.node(port.node).isSwitch()) return pathToNode(port.node);
  // A CA port: one hop beyond the port at the other end of its cable. Only
  // switches forward directed routes, or the SM's own node sends out of it.
  const auto& remote = fabric.port(port).remote;
  if (!remote) return std::nullopt;
  if (!fabric.node(remote->node).isSwitch() && remote->node != discovered.smPort.node) {
    return std::nullopt;
  }
  auto base = pathToNode(remote->node);
  if (!base) return std::nullopt;
  auto path = base->extended(remote->port);
  if (!path) return std::nullopt;
  return *path;
}

LftBlock plannedBlock(const Lft& lft, std::uint16_t index) {
  LftBlock b;
  for (std::size_t i = 0; i < kLftBlockSize; ++i) {
    b.ports[i] = lft.at(Lid{static_cast<std::uint16_t>(index * kLftBlockSize + i)});
  }
  return b;
}

namespace {

Result<void> checkPlanMatches(const DiscoveredSubnet& discovered, const SubnetPlan& plan) {
  const Fabric& seen = discovered.fabric;
  if (plan.fabric.size() != seen.size()) {
    return fail(fmt::format("the plan has {} nodes but discovery found {}: plan again",
                            plan.fabric.size(), seen.size()));
  }
  for (NodeId n = 0; n < seen.size(); ++n) {
    if (plan.fabric.node(n).guid != seen.node(n).guid) {
      return fail(fmt::format("node {} is {} in the plan but {} in the discovery: plan again", n,
                              plan.fabric.node(n).guid, seen.node(n).guid));
    }
  }
  if (plan.pkeys) {
    if (auto ok = checkPKeyTables(seen, *plan.pkeys); !ok) return ok;
  }
  return checkSl2VlEntries(seen, plan.routing.sl2vl);
}

// SLtoVLMappingTables that differ from what the cache knows (unknown ones too).
void planSl2Vl(const DiscoveredSubnet& discovered, const RoutingResult& routing,
               const Sl2VlCache& cache, ProgramPlan& out) {
  for (const Sl2VlTableRef& t : sl2vlTables(discovered, routing, out.notes)) {
    const SlToVlTable want = plannedSl2Vl(*t.entry);
    if (cache.table(t.key) == want) continue;
    out.phase(Phase::Sl2Vl)
        .push_back(
            ProgramStep{Sl2VlTarget{t.entry->sw, t.key.in, t.key.out, want}, setSl2Vl(t, want)});
  }
}

// One note for the link ports whose OperationalVLs (as they will hold it)
// is below what their SL2VL tables send: packets on the missing VLs drop.
void noteShortVls(const Fabric& fabric,
                  const std::vector<std::pair<PortRef, std::uint8_t>>& shortPorts,
                  const std::unordered_map<PortRef, std::uint8_t>& needed, ProgramPlan& out) {
  if (shortPorts.empty()) return;
  std::vector<std::string> examples;
  for (std::size_t i = 0; i < shortPorts.size() && i < 5; ++i) {
    const auto& [port, runs] = shortPorts[i];
    examples.push_back(
        fmt::format("{} runs {} of {}", fabric.describe(port), runs, needed.at(port)));
  }
  out.notes.push_back(fmt::format(
      "{} link ports run fewer data VLs (PortInfo:OperationalVLs) than their SL2VL tables send "
      "on, e.g. {}; packets on the missing VLs are dropped. OperationalVLs changes only while a "
      "link is in Init: take such links down and up, or lower routing.max_vls",
      shortPorts.size(), fmt::join(examples, ", ")));
}

// PKeyTable blocks that differ from what the cache knows (unknown ones too).
void planPKeys(const DiscoveredSubnet& discovered, const PKeyTables& tables, const PKeyCache& cache,
               ProgramPlan& out) {
  for (const PKeyPort& port : pkeyPorts(discovered, tables, out.notes)) {
    for (std::uint16_t b = 0; b < port.blocks; ++b) {
      const PKeyBlock want = plannedPKeyBlock(port.entry->pkeys, b);
      if (cache.block(port.key, b) == want) continue;
      out.phase(Phase::PKeys)
          .push_back(
              ProgramStep{PKeyTarget{port.entry->port, b, want}, setPKeyBlock(port, b, want)});
    }
  }
}

SmpRequest setPortInfo(PortRef port, const DrPath& path, const PortInfo& info) {
  return SmpRequest::set(AttributeId::PortInfo, port.port, path, encode(info));
}

// SwitchInfo:LinearFDBTop and LFT blocks of one switch.
void planSwitch(const DiscoveredSubnet& discovered, const SubnetPlan& plan, NodeId sw,
                const SwitchTableCache& cache, const ProgramOptions& options, ProgramPlan& out) {
  const Node& node = discovered.fabric.node(sw);
  auto held = discovered.switchInfo.find(sw);
  auto path = pathToPort(discovered, PortRef{sw, 0});
  if (held == discovered.switchInfo.end() || !path) {
    out.notes.push_back(fmt::format("switch {} ({}): SwitchInfo not read, its LFT is left alone",
                                    node.description, node.guid));
    return;
  }
  static const Lft kNothingRouted;
  const Lft& lft = sw < plan.routing.lfts.size() ? plan.routing.lfts[sw] : kNothingRouted;
  const Lid top = lft.top();
  const SwitchInfo& si = held->second;
  if (top.value >= si.linearFdbCap) {
    out.notes.push_back(
        fmt::format("switch {} ({}): routes LIDs up to {} but its LFT holds only {}; left alone",
                    node.description, node.guid, top, si.linearFdbCap));
    return;
  }

  SwitchInfo want = si;
  want.linearFdbTop = top.value;
  want.portStateChange = false;  // writing 1 would clear it under discovery's feet
  if (options.switchLifeTime) want.lifeTimeValue = *options.switchLifeTime;
  if (want.linearFdbTop != si.linearFdbTop || want.lifeTimeValue != si.lifeTimeValue) {
    out.phase(Phase::Lfts)
        .push_back(ProgramStep{TopTarget{sw, top},
                               SmpRequest::set(AttributeId::SwitchInfo, 0, *path, encode(want))});
  }
  if (top.value == 0) return;
  const auto last = static_cast<std::uint16_t>(top.value / kLftBlockSize);
  for (std::uint16_t b = 0; b <= last; ++b) {
    LftBlock contents = plannedBlock(lft, b);
    if (cache.block(node.guid, b) == contents) continue;
    SmpRequest request = SmpRequest::set(AttributeId::LinearForwardingTable, lftModifier(b), *path,
                                         encode(contents));
    out.phase(Phase::Lfts).push_back(ProgramStep{BlockTarget{sw, b, contents}, std::move(request)});
  }
}

}  // namespace

Result<ProgramPlan> planProgramming(const DiscoveredSubnet& discovered, const SubnetPlan& plan,
                                    const SwitchTableCache& cache, const ProgramOptions& options) {
  if (auto ok = checkPlanMatches(discovered, plan); !ok) return std::unexpected(ok.error());
  const Fabric& fabric = discovered.fabric;
  const PortRef smPort = discovered.smPort;
  auto smHeld = discovered.portInfo.find(smPort);
  if (smPort.node >= fabric.size() || smHeld == discovered.portInfo.end()) {
    return fail("the SM's own port was not read by discovery");
  }
  const Lid smLid = plan.fabric.port(smPort).lid;
  if (!smLid.isUnicast()) {
    return fail(fmt::format("the plan gives the SM's port {} no LID", fabric.describe(smPort)));
  }

  ProgramPlan out;
  if ((smHeld->second.capabilityMask & capability::kIsSm) == 0) {
    out.notes.push_back(fmt::format(
        "the SM's port {} does not advertise IsSM: traps and other SMs' queries will not reach "
        "it (the transport opens the issm device for that)",
        fabric.describe(smPort)));
  }

  std::vector<PortRef> ports;
  ports.reserve(discovered.portInfo.size());
  for (const auto& [ref, info] : discovered.portInfo) ports.push_back(ref);
  std::ranges::sort(ports);  // a stable order of SMPs, whatever the map's

  std::vector<ProgramStep> arm;
  std::vector<ProgramStep> activate;
  const auto vlsWanted = vlsNeeded(fabric, plan.routing.sl2vl);
  std::vector<std::pair<PortRef, std::uint8_t>> shortVls;
  for (const PortRef ref : ports) {
    const PortInfo& held = discovered.portInfo.at(ref);
    PortSetting setting = portSetting(discovered, plan, ref, held, smLid, options);
    if (auto need = vlsWanted.find(ref); need != vlsWanted.end()) {
      const std::uint8_t runs = dataVls(setting.desired.operationalVls);
      if (runs < need->second) shortVls.emplace_back(ref, runs);
    }
    if (setting.changed &&
        cache.pkeys().ignoresEnforcement({fabric.node(ref.node).guid, ref.port})) {
      setting.desired.partitionEnforcementInbound = held.partitionEnforcementInbound;
      setting.desired.partitionEnforcementOutbound = held.partitionEnforcementOutbound;
      if (setting.onlyEnforcement) setting.changed = false;
    }
    const LinkSteps link = linkSteps(discovered, ref, held);
    if (!setting.changed && !link.arm && !link.activate) continue;
    auto path = pathToPort(discovered, ref);
    if (!path) {
      out.notes.push_back(fmt::format("port {}: no directed route enters through it; left alone",
                                      fabric.describe(ref)));
      continue;
    }
    if (setting.changed) {
      out.phase(ref == smPort ? Phase::SmLid : Phase::Lids)
          .push_back(ProgramStep{PortTarget{ref}, setPortInfo(ref, *path, setting.desired)});
    }
    // State Sets carry the new fields too: a Set writes the whole PortInfo.
    PortInfo next = setting.desired;
    if (link.arm) {
      next.portState = PortState::Armed;
      arm.push_back(ProgramStep{PortTarget{ref}, setPortInfo(ref, *path, next)});
    }
    if (link.activate) {
      next.portState = PortState::Active;
      activate.push_back(ProgramStep{PortTarget{ref}, setPortInfo(ref, *path, next)});
    }
  }
  out.phase(Phase::Armed) = std::move(arm);
  out.phase(Phase::Active) = std::move(activate);

  noteShortVls(fabric, shortVls, vlsWanted, out);

  for (const NodeId sw : fabric.switches()) planSwitch(discovered, plan, sw, cache, options, out);
  if (plan.pkeys) planPKeys(discovered, *plan.pkeys, cache.pkeys(), out);
  if (!plan.routing.sl2vl.empty()) planSl2Vl(discovered, plan.routing, cache.sl2vl(), out);
  return out;
}

}  // namespace ibsm::sm
