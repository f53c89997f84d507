#include "sm/program/KeyRefusal.h"

#include <variant>

namespace ibsm::sm::program {
namespace {

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};

}  // namespace

std::optional<PortRef> keyHolderOf(const Fabric& fabric, const StepTarget& target) {
  auto holder = [&](NodeId node, std::uint8_t port) -> std::optional<PortRef> {
    if (fabric.node(node).isSwitch()) return PortRef{node, 0};
    if (port == 0) return std::nullopt;  // a CA's table with no port named
    return PortRef{node, port};
  };
  return std::visit(
      Overloaded{
          [&](const PortInfoTarget& t) { return holder(t.port.node, t.port.port); },
          [&](const SwitchInfoTarget& t) { return holder(t.sw, 0); },
          [&](const BlockTarget<PKeyKind>& t) { return holder(t.node, t.owner.port); },
          [&](const BlockTarget<VlArbKind>& t) { return holder(t.node, t.owner.port); },
          [&](const BlockTarget<Sl2VlKind>& t) { return holder(t.node, t.owner.out); },
          [&](const auto& t) { return holder(t.node, 0); },  // LFT, MFT: switches'
      },
      target);
}

bool refusesOurKey(const HeldSubnet& held, const ProgramOptions& options, PortRef holder) {
  if (!options.mKeys.enabled() || !held.hasObservation()) return false;
  const discovery::DiscoveredSubnet& seen = held.observed();
  const auto it = seen.portInfo.find(holder);
  // Protected, and its key hidden: a Get that carries the key it checks
  // shows it (IBA 14.2.4.1), so a port read with the SM's key -- or with
  // one it showed before (MKeyTakeover) -- shows a key; a key of 0 would
  // disable checking and hide nothing.
  return it != seen.portInfo.end() && it->second.mKeyProtectBits != 0 && it->second.mKey == 0;
}

SmpRequest requestFor(const ProgramStep& step, const HeldSubnet& held,
                      const ProgramOptions& options) {
  SmpRequest request = step.request;
  if (!held.hasObservation()) return request;
  const auto holder = keyHolderOf(held.observed().fabric, step.target);
  if (holder && refusesOurKey(held, options, *holder)) request.attempts = 1;
  return request;
}

}  // namespace ibsm::sm::program
