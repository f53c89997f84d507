#include "sm/sa/SaSubnet.h"

#include <algorithm>
#include <numeric>

#include "sm/sa/SubnetRecords.h"

namespace ibsm::sm::sa {
namespace {

constexpr std::uint8_t kDropVl = 15;  // IBA 7.6.6: an SL mapped to VL15 is dropped
constexpr std::uint16_t kAllSls = 0xFFFF;

std::uint64_t turnKey(NodeId sw, std::uint8_t in, std::uint8_t out) {
  return (std::uint64_t{sw} << 16) | (std::uint64_t{in} << 8) | out;
}

}  // namespace

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
    : settings_(settings), plan_(source.plan), slByPKey_(source.slByPKey) {
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
  for (const Sl2VlEntry& e : plan_->routing.sl2vl) {
    std::uint16_t carried = 0;
    for (std::size_t sl = 0; sl < e.vl.size(); ++sl)
      if (e.vl[sl] != kDropVl) carried = static_cast<std::uint16_t>(carried | (1U << sl));
    if (carried != kAllSls) slsCarried_[turnKey(e.sw, e.inPort, e.outPort)] = carried;
  }
  if (plan_->pkeys) {
    const auto& ports = plan_->pkeys->ports;
    for (std::size_t i = 0; i < ports.size(); ++i) pkeys_[ports[i].port] = i;
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
  const auto it = pkeys_.find(endPort);
  if (it == pkeys_.end()) return kDefault;
  return plan_->pkeys->ports[it->second].pkeys;
}

std::optional<std::uint8_t> SaSubnet::slOfPKey(std::uint16_t pkey) const {
  const auto it = slByPKey_.find(pkey & 0x7FFF);
  return it == slByPKey_.end() ? std::nullopt : std::optional(it->second);
}

std::uint16_t SaSubnet::slsCarried(NodeId sw, std::uint8_t in, std::uint8_t out) const {
  const auto it = slsCarried_.find(turnKey(sw, in, out));
  return it == slsCarried_.end() ? kAllSls : it->second;
}

std::size_t SaSubnet::memoryBytes() const {
  std::size_t total = 0;
  for (const auto& [id, table] : tables_) total += table.size() * (table.recordSize() + 2);
  return total;
}

}  // namespace ibsm::sm::sa
