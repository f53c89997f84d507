#include "sm/manager/MKeyTakeover.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>

namespace ibsm::sm::manager {
namespace {

// The key-holding port a port GUID names in `fabric`: a CA port, or port 0
// of the switch whose NodeInfo:PortGUID it is.
std::optional<PortRef> holderOf(const Fabric& fabric, Guid port) {
  if (auto ref = fabric.findPort(port))
    return fabric.node(ref->node).isSwitch() ? PortRef{ref->node, 0} : *ref;
  if (auto node = fabric.findNode(port); node && fabric.node(*node).isSwitch())
    return PortRef{*node, 0};
  return std::nullopt;
}

}  // namespace

std::uint64_t MKeyTakeover::keyToSend(const program::HeldSubnet& held, Guid port,
                                      std::uint64_t ours, std::uint64_t previous) {
  if (ours == 0 || !held.hasObservation()) return ours;
  const discovery::DiscoveredSubnet& seen = held.observed();
  if (scanned_ != held.generation()) {
    scanned_ = held.generation();
    anyKeyShown_ =
        std::ranges::any_of(seen.portInfo, [](const auto& p) { return p.second.mKey != 0; });
  }
  // No port showed a key when observed: none holds one that is not ours.
  // (A key shown later in the sweep is the one ibsm's Set wrote, i.e. ours,
  // unless another SM wrote one meanwhile: the next sweep's observation
  // sees it.)
  if (!anyKeyShown_) return ours;
  ++portsLookedUp_;
  const auto holder = holderOf(seen.fabric, port);
  if (!holder) return ours;
  const auto info = seen.portInfo.find(*holder);
  if (info == seen.portInfo.end()) return ours;
  // A key a Get showed is the key the port checks (a hidden one reads 0).
  const std::uint64_t shown = info->second.mKey;
  if (shown == 0 || shown == ours || shown == previous) return ours;
  taking_[port] = shown;
  return shown;
}

void MKeyTakeover::afterSweep(const program::HeldSubnet& held, const program::ProgramOptions& o,
                              MadClock::time_point now) {
  if (!held.hasObservation()) return;
  const discovery::DiscoveredSubnet& seen = held.observed();
  for (auto it = taking_.begin(); it != taking_.end();) {
    const Guid port = it->first;
    const auto holder = holderOf(seen.fabric, port);
    const auto info = holder ? seen.portInfo.find(*holder) : seen.portInfo.end();
    if (info == seen.portInfo.end() || info->second.mKey != o.mKeys.keyFor(port.value) ||
        info->second.mKeyProtectBits != o.mKeyProtectBits) {
      ++it;  // not yet: the Set failed, or the port was not reached
      continue;
    }
    ++takenOver_;
    if (logged_.insert(port).second) {
      const auto since = unknownSince_.find(port);
      const long waited =
          since == unknownSince_.end()
              ? -1
              : std::chrono::duration_cast<std::chrono::seconds>(now - since->second).count();
      log_->warn(
          "SM-2961 {} taken over: it held an M_Key that is not ibsm's, which it showed once its "
          "protect bits were 0 (its lease ran out{}); ibsm's Set carried that key and wrote "
          "ibsm's (protect bits {}, lease {} s)",
          seen.fabric.describe(*holder),
          waited < 0 ? std::string(", or it was never protected")
                     : fmt::format(" {} s after ibsm first found it protected", waited),
          o.mKeyProtectBits, o.mKeyLeaseSeconds);
    }
    unknownSince_.erase(port);
    it = taking_.erase(it);
  }
}

}  // namespace ibsm::sm::manager
