// Fabric + partitions -> the PKey table of every end port and of the switch
// ports facing them. Every end port gets a table, empty when it is in no
// partition, so a partition removed from the config leaves the tables too.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "partition/PartitionSyntax.h"

namespace ibsm::partition {
namespace {

using Kind = MemberSpec::Kind;

constexpr std::string_view kBuiltIn = "(built-in default partition)";

// The rules that put `pkeys` in a port's table, so the operator knows what
// to edit: the first kShownRules by name and file line, then how many more
// (a file of hundreds of partitions for ALL would otherwise print every one
// of them for every port named).
std::string rulesBehind(const std::vector<std::uint16_t>& pkeys,
                        const std::vector<PartitionDef>& defs) {
  constexpr std::size_t kShownRules = 8;
  std::string why;
  std::size_t named = 0;
  std::size_t rules = 0;
  for (std::uint16_t k : pkeys) {
    if ((k & kFullMember) == 0 && std::ranges::count(pkeys, k | kFullMember) > 0) continue;
    if (++rules > kShownRules) continue;
    const auto* d =
        &*std::ranges::find(defs, static_cast<std::uint16_t>(k & 0x7fff), &PartitionDef::pkey);
    why += fmt::format("{}'{}' at {}", named++ == 0 ? "" : ", ", d->name, d->where);
  }
  if (rules > kShownRules) why += fmt::format(" and {} more partitions", rules - kShownRules);
  return why;
}

Membership merged(Membership a, Membership b) {
  if (a == Membership::Both || b == Membership::Both) return Membership::Both;
  if (a == Membership::Full || b == Membership::Full) return Membership::Full;
  return Membership::Limited;
}

// OpenSM's rule when a partitions file exists but does not define 0x7fff.
PartitionDef defaultPartition() {
  PartitionDef d;
  d.name = "Default";
  d.pkey = kDefaultPKey;
  d.where = std::string(kBuiltIn);
  MemberSpec all;
  all.kind = Kind::All;
  all.where = d.where;
  MemberSpec self = all;
  self.kind = Kind::Self;
  self.membership = Membership::Full;
  d.members = {all, self};
  return d;
}

// indx0 first (its PKey must sit at block 0 index 0), then 0x7fff, then by PKey.
std::vector<const PartitionDef*> tableOrder(const std::vector<PartitionDef>& defs) {
  std::vector<const PartitionDef*> out;
  for (const PartitionDef& d : defs) out.push_back(&d);
  std::ranges::sort(out, [](const PartitionDef* a, const PartitionDef* b) {
    auto rank = [](const PartitionDef* d) {
      return std::pair{d->indx0 ? 0 : d->pkey == kDefaultPKey ? 1 : 2, d->pkey};
    };
    return rank(a) < rank(b);
  });
  return out;
}

struct EndPort {
  PortRef ref;
  NodeType type;
};

// The ports ALL and friends mean: switch port 0, every cabled CA or router port.
std::vector<EndPort> endPorts(const Fabric& fabric) {
  std::vector<EndPort> out;
  for (NodeId id = 0; id < fabric.size(); ++id) {
    const Node& n = fabric.node(id);
    if (n.isSwitch()) {
      out.push_back({{id, 0}, n.type});
      continue;
    }
    for (std::uint8_t p = 1; p < n.ports.size(); ++p) {
      if (n.ports[p].connected()) out.push_back({{id, p}, n.type});
    }
  }
  return out;
}

bool matches(Kind kind, NodeType type) {
  switch (kind) {
    case Kind::All:
      return true;
    case Kind::AllCas:
      return type == NodeType::Ca;
    case Kind::AllSwitches:
      return type == NodeType::Switch;
    case Kind::AllRouters:
      return type == NodeType::Router;
    default:
      return false;
  }
}

}  // namespace

Result<PartitionPlan> planPartitions(const Fabric& fabric, const PartitionConfig& config,
                                     std::optional<Guid> smPortGuid) {
  std::vector<PartitionDef> defs = config.partitions;
  if (!config.find(kDefaultPKey)) defs.push_back(defaultPartition());
  if (std::ranges::count(defs, true, &PartitionDef::indx0) > 1) {
    auto it = std::ranges::find(defs, true, &PartitionDef::indx0);
    return fail(fmt::format(
        "{}: only one partition can be indx0 (block 0 index 0)",
        std::ranges::find(std::next(it), defs.end(), true, &PartitionDef::indx0)->where));
  }

  PartitionPlan plan;
  std::optional<PortRef> smPort;
  if (smPortGuid) {
    smPort = fabric.findPort(*smPortGuid);
    if (!smPort) {
      plan.warnings.push_back(
          fmt::format("SM port GUID {} is not in the fabric: SELF names no port", *smPortGuid));
    }
  }
  const std::vector<EndPort> ends = endPorts(fabric);
  std::set<Guid> missing;
  bool selfWarned = false;
  std::map<PortRef, std::vector<std::uint16_t>> tables;
  for (const EndPort& e : ends) tables[e.ref];

  for (const PartitionDef* def : tableOrder(defs)) {
    std::map<PortRef, Membership> members;
    auto add = [&](PortRef p, Membership m) {
      auto [it, fresh] = members.try_emplace(p, m);
      if (!fresh) it->second = merged(it->second, m);
    };
    for (const MemberSpec& m : def->members) {
      if (m.kind == Kind::Guid) {
        if (auto p = fabric.findPort(m.guid)) {
          const Node& n = fabric.node(p->node);
          add(n.isSwitch() ? PortRef{p->node, 0} : *p, m.membership);
        } else if (missing.insert(m.guid).second) {
          plan.warnings.push_back(
              fmt::format("{}: port GUID {} (partition '{}') is not in the fabric", m.where, m.guid,
                          def->name));
        }
      } else if (m.kind == Kind::Self) {
        if (smPort) {
          add(fabric.node(smPort->node).isSwitch() ? PortRef{smPort->node, 0} : *smPort,
              m.membership);
        } else if (!smPortGuid && !selfWarned && def->where != kBuiltIn) {
          selfWarned = true;
          plan.warnings.push_back(
              fmt::format("{}: SELF names no port (no SM port GUID given)", m.where));
        }
      } else {
        for (const EndPort& e : ends) {
          if (matches(m.kind, e.type)) add(e.ref, m.membership);
        }
      }
    }
    // The SM must reach every port to manage it: full in the default partition.
    if (def->pkey == kDefaultPKey && smPort) {
      add(fabric.node(smPort->node).isSwitch() ? PortRef{smPort->node, 0} : *smPort,
          Membership::Full);
    }
    PlannedPartition planned;
    planned.name = def->name;
    planned.pkey = def->pkey;
    planned.sl = def->sl;
    for (const auto& [port, membership] : members) {
      auto& table = tables[port];
      if (membership != Membership::Limited) table.push_back(def->pkey | kFullMember);
      if (membership != Membership::Full) table.push_back(def->pkey);
      planned.members.push_back({port, fabric.port(port).guid, membership});
    }
    plan.partitions.push_back(std::move(planned));
  }

  std::vector<std::string> overflows;
  for (const auto& [port, pkeys] : tables) {
    const Node& n = fabric.node(port.node);
    if (pkeys.size() > n.partitionCap) {
      overflows.push_back(fmt::format("port {} needs {} PKeys but its PartitionCap is {} ({})",
                                      fabric.describe(port), pkeys.size(), n.partitionCap,
                                      rulesBehind(pkeys, defs)));
    }
    plan.tables.ports.push_back(PortPKeys{port, pkeys, false});
  }
  if (!overflows.empty()) {
    std::string msg = "partitions do not fit the PKey tables:";
    constexpr std::size_t kShown = 10;
    for (std::size_t i = 0; i < overflows.size() && i < kShown; ++i) msg += "\n  " + overflows[i];
    if (overflows.size() > kShown) {
      msg += fmt::format("\n  and {} more ports", overflows.size() - kShown);
    }
    return fail(std::move(msg));
  }

  // Switch enforcement passes exactly what the peer end port may send.
  for (NodeId id : fabric.switches()) {
    const Node& sw = fabric.node(id);
    for (std::uint8_t p = 1; p < sw.ports.size(); ++p) {
      const auto& remote = sw.ports[p].remote;
      if (!remote || fabric.node(remote->node).isSwitch()) continue;
      auto peer = tables.find(*remote);
      if (peer == tables.end()) continue;
      plan.tables.ports.push_back(PortPKeys{PortRef{id, p}, peer->second, true});
    }
  }
  sortByPort(plan.tables);
  return plan;
}

}  // namespace ibsm::partition
