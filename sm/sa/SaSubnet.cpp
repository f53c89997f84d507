#include "sm/sa/SaSubnet.h"

#include <algorithm>
#include <numeric>

#include "sm/sa/SubnetRecords.h"

namespace ibsm::sm::sa {
void RecordTable::add(const std::vector<std::uint8_t>& encoded) {
  bytes_.insert(bytes_.end(), encoded.begin(), encoded.begin() + recordSize_);
  lids_.push_back(static_cast<std::uint16_t>((encoded[0] << 8) | encoded[1]));
}

// Stable: records of one LID keep the order they were made in (ports,
// blocks), as OpenSM lists them.
void RecordTable::sortByLid() {
  std::vector<std::size_t> order(lids_.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::ranges::stable_sort(order, {}, [&](std::size_t i) { return lids_[i]; });
  std::vector<std::uint8_t> bytes;
  bytes.reserve(bytes_.size());
  std::vector<std::uint16_t> lids;
  lids.reserve(lids_.size());
  for (const std::size_t i : order) {
    const auto rec = record(i);
    bytes.insert(bytes.end(), rec.begin(), rec.end());
    lids.push_back(lids_[i]);
  }
  bytes_ = std::move(bytes);
  lids_ = std::move(lids);
}

std::pair<std::size_t, std::size_t> RecordTable::withLid(Lid lid) const {
  const auto [first, last] = std::ranges::equal_range(lids_, lid.value);
  return {static_cast<std::size_t>(first - lids_.begin()),
          static_cast<std::size_t>(last - lids_.begin())};
}

SaSubnet::SaSubnet(const SaSource& source, const SaSettings& settings)
    : settings_(settings),
      plan_(source.plan),
      paths_(plan_->fabric, plan_->routing),
      pkeys_(paths_.ports(), kNoPKeys),
      slByPKey_(source.slByPKey) {
  const Fabric& fabric = plan_->fabric;
  for (NodeId id = 0; id < fabric.size(); ++id) {
    const Node& node = fabric.node(id);
    for (const std::uint8_t p : node.endpointPorts()) {
      const Port& port = node.ports[p];
      if (!port.lid.isUnicast()) continue;
      endPorts_.push_back({id, p});
      const std::size_t last = std::size_t{port.lid.value} + (std::size_t{1} << port.lmc) - 1;
      if (lidOwner_.size() <= last) lidOwner_.resize(last + 1, PortRef{kNoNode, 0});
      for (std::size_t lid = port.lid.value; lid <= last; ++lid) lidOwner_[lid] = {id, p};
    }
  }
  if (plan_->pkeys) {
    const auto& ports = plan_->pkeys->ports;
    for (std::size_t i = 0; i < ports.size(); ++i) {
      const PortRef p = ports[i].port;
      if (paths_.contains(p)) pkeys_[paths_.index(p)] = static_cast<std::uint32_t>(i);
    }
  }
  // IsMultiPathSupported stays clear (saCapability::kImplemented): the IBA
  // ties GetMulti to dual-sided RMPP, and this SA answers MultiPathRecords of
  // one MAD only (OpenSM built without DUAL_SIDED_RMPP leaves it clear too).
  classPortInfo_.capabilityMask = saCapability::kImplemented;
  classPortInfo_.capabilityMask2 = saCapability::kImplemented2;
  classPortInfo_.respTimeValue = settings.respTimeValue;
  // No redirection: queries and reports stay on QP1 with its well-known
  // Q_Key, which is what these fields say when they are not redirected
  // (OpenSM answers the same; a zero Q_Key would tell a client to use 0).
  classPortInfo_.redirectQp = 1;
  classPortInfo_.redirectQKey = kQp1QKey;
  classPortInfo_.trapQKey = kQp1QKey;
  tables_ = buildRecords(source, *this);
}

std::shared_ptr<const SaSubnet> SaSubnet::build(const SaSource& source,
                                                const SaSettings& settings) {
  return std::shared_ptr<const SaSubnet>(new SaSubnet(source, settings));
}

const RecordTable* SaSubnet::records(std::uint16_t attributeId) const {
  const auto it = tables_.find(attributeId);
  return it == tables_.end() ? nullptr : &it->second;
}

const Lft* SaSubnet::lft(NodeId sw) const {
  const auto& lfts = plan_->routing.lfts;
  return sw < lfts.size() && !lfts[sw].port.empty() ? &lfts[sw] : nullptr;
}

std::optional<PortRef> SaSubnet::portOfLid(Lid lid) const {
  if (lid.value >= lidOwner_.size() || lidOwner_[lid.value].node == kNoNode) return std::nullopt;
  return lidOwner_[lid.value];
}

PortRef SaSubnet::lidPort(const Fabric& fabric, PortRef port) {
  return fabric.node(port.node).isSwitch() ? PortRef{port.node, 0} : port;
}

std::span<const std::uint16_t> SaSubnet::pkeys(PortRef endPort) const {
  static constexpr std::array<std::uint16_t, 1> kDefault{0xFFFF};
  if (!plan_->pkeys || !paths_.contains(endPort)) return kDefault;
  const std::uint32_t i = pkeys_[paths_.index(endPort)];
  if (i == kNoPKeys) return kDefault;
  return plan_->pkeys->ports[i].pkeys;
}

std::optional<std::uint8_t> SaSubnet::slOfPKey(std::uint16_t pkey) const {
  const auto it = slByPKey_.find(pkey & 0x7FFF);
  return it == slByPKey_.end() ? std::nullopt : std::optional(it->second);
}

std::size_t SaSubnet::memoryBytes() const {
  std::size_t total = 0;
  for (const auto& [id, table] : tables_) total += table.size() * (table.recordSize() + 2);
  return total;
}

}  // namespace ibsm::sm::sa
