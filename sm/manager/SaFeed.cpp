#include "sm/manager/SaFeed.h"

#include <set>

#include "sm/sa/SaNames.h"

namespace ibsm::sm::manager {

std::shared_ptr<const sa::SaSubnet> saSnapshot(const SweepResult& result,
                                               const program::HeldSubnet& held, const SmInfo& self,
                                               const sa::SaSettings& settings) {
  if (!result.plan) return nullptr;
  sa::SaSource source{.plan = result.plan, .smInfo = self};
  source.slByPKey = result.plan->partitionSl;  // the partitions' `sl` flags
  // The plan's fabric keeps the discovery's NodeIds (planSubnet), so what
  // the ports hold is keyed like it.
  if (held.hasObservation()) {
    source.portInfo = &held.observed().portInfo;
    source.switchInfo = &held.observed().switchInfo;
    source.smPort = held.observed().smPort;
    source.vlArb = heldVlArb(held);
  }
  return sa::SaSubnet::build(source, settings);
}

std::vector<sa::HeldVlArbBlock> heldVlArb(const program::HeldSubnet& held) {
  std::vector<sa::HeldVlArbBlock> out;
  if (!held.hasObservation()) return out;
  const auto& table = held.table<program::VlArbKind>();
  const Fabric& fabric = held.observed().fabric;
  for (const auto& [port, info] : held.observed().portInfo) {
    const PortKey owner{fabric.node(port.node).guid, port.port};
    for (std::uint8_t b = vlArbBlock::kLowFirst; b <= vlArbBlock::kHighSecond; ++b) {
      if (auto block = table.block(owner, b))
        out.push_back(sa::HeldVlArbBlock{.port = port, .block = b, .table = *block});
    }
  }
  return out;
}

PortsInService portsInService(const SweepResult& result, const program::HeldSubnet& held) {
  PortsInService out;
  if (!result.plan) return out;
  const Fabric& fabric = result.plan->fabric;
  const auto* observed = held.hasObservation() ? &held.observed().portInfo : nullptr;
  for (NodeId id = 0; id < fabric.size(); ++id) {
    const Node& node = fabric.node(id);
    for (const std::uint8_t p : node.endpointPorts()) {
      const Port& port = node.ports[p];
      if (!port.lid.isUnicast()) continue;
      PortState state = port.state;
      if (observed) {
        const auto it = observed->find(PortRef{id, p});
        if (it != observed->end()) state = it->second.portState;
      }
      if (node.type == NodeType::Switch || state == PortState::Active) out.ports.insert(port.guid);
    }
  }
  if (held.hasObservation()) {
    const PortRef sm = held.observed().smPort;
    if (sm.node < fabric.size()) out.smLid = fabric.port(sm).lid;
  }
  return out;
}

void describeSa(const sa::SaResponder& responder, control::SaCounters& out) {
  const sa::SaCounters& c = responder.counters();
  for (const auto& [id, n] : c.byAttribute) out.byAttribute[sa::attributeName(id)] += n;
  for (const auto& [method, n] : c.byMethod) out.byMethod[sa::methodName(method)] += n;
  for (const auto& [status, n] : c.errorsByStatus) out.errorsByStatus[sa::statusName(status)] += n;
  out.serviceRecords = responder.serviceRecords();
  out.subscribers = responder.subscriptions().size();
  out.answersTrimmed = c.answersTrimmed;
  out.leasesShortened = c.leasesShortened;
  out.segmentedRefused = c.segmentedRefused;
  out.mcGroups = responder.groups().size();
  out.mcJoins = c.mcJoins;
  out.mcLeaves = c.mcLeaves;
  out.mcGroupsCreated = c.mcGroupsCreated;
  out.mcGroupsDeleted = c.mcGroupsDeleted;
  for (const auto& [status, n] : c.mcRefusedByStatus)
    out.mcRefusedByStatus[sa::statusName(status)] += n;
  out.fairness.joinsOverCap = c.joinsOverCap;
  out.fairness.servicesOverCap = c.servicesOverCap;
}

namespace {

// The SA's groups as the daemon's GroupSource.
class SaGroups final : public GroupSource {
 public:
  explicit SaGroups(std::shared_ptr<sa::SaResponder> responder)
      : responder_(std::move(responder)) {}

  std::vector<McGroupRoute> routes() const override { return responder_->groups().routes(); }
  std::uint64_t generation() const override { return responder_->groups().generation(); }
  void precreate(const std::vector<McGroupSpec>& specs) override {
    responder_->setPrecreated(specs);
  }
  std::vector<sa::McGroupEvent> takeEvents() override { return responder_->takeGroupEvents(); }
  std::size_t forget() override { return responder_->forgetJoins(); }
  std::size_t keepPortsOf(const Fabric& fabric) override {
    std::set<Guid> gone;
    for (const McGroupRoute& group : responder_->groups().routes()) {
      for (const McRouteMember& m : group.members) {
        const auto port = fabric.findPort(m.portGuid);
        if (!port || fabric.port(*port).state == PortState::Down) gone.insert(m.portGuid);
      }
    }
    std::size_t dropped = 0;
    for (const Guid guid : gone) dropped += responder_->dropPort(guid);
    return dropped;
  }

 private:
  std::shared_ptr<sa::SaResponder> responder_;
};

}  // namespace

std::shared_ptr<GroupSource> multicastGroupsOf(std::shared_ptr<sa::SaResponder> responder) {
  return std::make_shared<SaGroups>(std::move(responder));
}

}  // namespace ibsm::sm::manager
