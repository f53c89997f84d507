#include "sm/program/ReadAhead.h"

#include <ibsm/MadAttributes.h>

#include <variant>

#include "sm/program/Diff.h"
#include "sm/program/KeyRefusal.h"

namespace ibsm::sm::program {
namespace {

// Entries of the port's PKey table as the partition planner could list it
// (PartitionPlanner: end ports, and switch ports cabled to one); 0: none.
std::uint16_t listedEntries(const discovery::DiscoveredSubnet& seen, PortRef ref) {
  const Fabric& fabric = seen.fabric;
  const Node& node = fabric.node(ref.node);
  if (!node.isSwitch() && ref.port == 0) return 0;
  if (node.isSwitch() && ref.port != 0) {
    const auto& remote = fabric.port(ref).remote;
    if (!remote || fabric.node(remote->node).isSwitch()) return 0;
  }
  return pkeyEntries(seen, ref.node, ref.port);
}

template <typename Kind>
bool unknownBlock(const HeldSubnet& held, const BlockTarget<Kind>& t) {
  return held.state<Kind>(t.owner, t.index) == BlockState::Unknown;
}
bool unknownBlock(const HeldSubnet&, const PortInfoTarget&) {
  return true;
}
bool unknownBlock(const HeldSubnet&, const SwitchInfoTarget&) {
  return true;
}

}  // namespace

std::vector<ProgramStep> pkeyReadsAhead(const HeldSubnet& held) {
  if (!held.hasObservation()) return {};
  const discovery::DiscoveredSubnet& seen = held.observed();
  std::vector<std::vector<ProgramStep>> byPort;
  for (const auto& [ref, info] : seen.portInfo) {
    if (ref.node >= seen.fabric.size() || ref.port >= seen.fabric.node(ref.node).ports.size())
      continue;
    const std::uint16_t entries = listedEntries(seen, ref);
    if (entries == 0) continue;
    const PortKey owner{seen.fabric.node(ref.node).guid, ref.port};
    const std::uint16_t blocks = pkeyBlockCount(entries);
    std::vector<std::uint16_t> unknown;
    for (std::uint16_t b = 0; b < blocks; ++b)
      if (held.state<PKeyKind>(owner, b) == BlockState::Unknown) unknown.push_back(b);
    if (unknown.empty()) continue;  // a sweep that knows them: the path is not even worked out
    auto path = pathToPort(seen, ref);
    if (!path) continue;
    const bool isSwitch = seen.fabric.node(ref.node).isSwitch();
    std::vector<ProgramStep>& reads = byPort.emplace_back();
    for (const std::uint16_t b : unknown) {
      const auto modifier = pkeyModifier(b, isSwitch ? ref.port : std::uint8_t{0});
      reads.push_back(ProgramStep{
          BlockTarget<PKeyKind>{.node = ref.node, .owner = owner, .index = b, .count = blocks},
          SmpRequest::get(AttributeId::PKeyTable, modifier, *path)});
    }
  }
  std::vector<ProgramStep> out;
  for (std::size_t round = 0, added = 1; added > 0; ++round) {
    added = 0;
    for (auto& reads : byPort) {
      if (round >= reads.size()) continue;
      out.push_back(std::move(reads[round]));
      ++added;
    }
  }
  return out;
}

ReadAhead::ReadAhead(MadEngine& engine, const HeldSubnet& held, ProgramOptions options,
                     std::vector<ProgramStep> steps)
    : engine_(engine),
      held_(held),
      options_(std::move(options)),
      steps_(std::move(steps)),
      replies_(steps_.size()) {}

std::shared_ptr<ReadAhead> ReadAhead::start(MadEngine& engine, const HeldSubnet& held,
                                            ProgramOptions options) {
  auto steps = pkeyReadsAhead(held);
  if (steps.empty()) return nullptr;
  auto ahead = std::make_shared<ReadAhead>(engine, held, std::move(options), std::move(steps));
  while (ahead->next_ < ahead->steps_.size() && ahead->next_ < kAhead) ahead->submitNext();
  return ahead;
}

void ReadAhead::submitNext() {
  const std::size_t i = next_++;
  engine_.submit(requestFor(steps_[i], held_, options_),
                 [self = shared_from_this(), i](const SmpRequest&, const SmpReply& reply) {
                   self->replies_[i] = reply;
                   ++self->completed_;
                   if (self->next_ < self->steps_.size()) self->submitNext();
                 });
}

bool stillUnknown(const HeldSubnet& held, const ProgramStep& step) {
  return std::visit([&held](const auto& t) { return unknownBlock(held, t); }, step.target);
}

}  // namespace ibsm::sm::program
