// countPlainPathLevels(): the dry run's figure of a QoS policy (see
// include/ibsm/QosReport.h). Two ports in the same groups with the same
// PKey table match every rule alike, so each such kind of port is asked
// about once per kind of destination and its pairs are counted by product.
#include <ibsm/QosReport.h>

#include <map>
#include <utility>

namespace ibsm::qos {
namespace {

struct PortKind {
  std::vector<bool> inGroup{};
  std::vector<std::uint16_t> pkeys{};
  auto operator<=>(const PortKind&) const = default;
};

struct KindCount {
  Guid example{};
  std::uint64_t ports{0};
};

// The PKey the SA picks for a pair without one asked for: the first of
// the source's table that the destination holds too, not both limited.
std::optional<std::uint16_t> sharedPKey(const std::vector<std::uint16_t>& src,
                                        const std::vector<std::uint16_t>& dst) {
  for (const auto mine : src) {
    if ((mine & 0x7FFF) == 0) continue;
    for (const auto theirs : dst)
      if ((theirs & 0x7FFF) == (mine & 0x7FFF) && ((mine | theirs) & 0x8000) != 0) return mine;
  }
  return std::nullopt;
}

std::map<PortKind, KindCount> kindsOfCaPorts(const ResolvedQos& qos, const Fabric& fabric,
                                             const PKeyTables* pkeys) {
  std::map<PortKind, KindCount> kinds;
  for (NodeId n = 0; n < fabric.size(); ++n) {
    const Node& node = fabric.node(n);
    if (node.type != NodeType::Ca) continue;
    for (std::uint8_t p = 1; p < node.ports.size(); ++p) {
      const Port& port = node.ports[p];
      if (!port.connected() || !port.guid) continue;
      PortKind kind;
      for (const auto& [name, members] : qos.members)
        kind.inGroup.push_back(members.contains(port.guid));
      const PortPKeys* table = pkeys ? findPort(*pkeys, PortRef{n, p}) : nullptr;
      kind.pkeys = table ? table->pkeys : std::vector<std::uint16_t>{0xFFFF};
      auto& count = kinds[std::move(kind)];
      if (count.ports++ == 0) count.example = port.guid;
    }
  }
  return kinds;
}

}  // namespace

QosReport countPlainPathLevels(const ResolvedQos& qos, const Fabric& fabric,
                               const PKeyTables* pkeys) {
  QosReport report;
  if (!qos.policy) return report;
  report.policyFile = qos.policy->file.string();
  std::map<std::string, std::uint64_t, std::less<>> byLevel;
  const auto kinds = kindsOfCaPorts(qos, fabric, pkeys);
  for (const auto& [srcKind, src] : kinds) {
    for (const auto& [dstKind, dst] : kinds) {
      const std::uint64_t pairs = src.ports * dst.ports - (&srcKind == &dstKind ? src.ports : 0);
      if (pairs == 0) continue;
      report.pairs += pairs;
      const auto pkey = sharedPKey(srcKind.pkeys, dstKind.pkeys);
      if (!pkey) {
        report.noSharedPKey += pairs;
        continue;
      }
      // Matched as the SA matches a query that names no PKey (OpenSM's
      // too): a rule that asks for a PKey does not hold for it.
      const QosLevel* level = matchQos(qos, {.source = src.example, .destination = dst.example});
      if (level)
        byLevel[level->name] += pairs;
      else
        report.noLevel += pairs;
    }
  }
  for (const QosLevel& l : qos.policy->levels) {
    auto it = byLevel.find(l.name);
    report.levels.push_back({l.name, l.sl, it == byLevel.end() ? 0 : it->second});
  }
  return report;
}

}  // namespace ibsm::qos
