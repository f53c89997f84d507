#include "sm/manager/MKeyService.h"

namespace ibsm::sm::manager {
namespace {

// The ports whose M_Key guards a node: every CA port, a switch's port 0.
bool holdsTheKey(const Fabric& fabric, PortRef port) {
  return !fabric.node(port.node).isSwitch() || port.port == 0;
}

Guid portGuidOf(const Node& node, std::uint8_t port) {
  return node.ports[port].guid ? node.ports[port].guid : node.guid;
}

}  // namespace

MKeyService::MKeyService(MadEngine& engine, const DaemonSettings& settings,
                         const MasterSweep& sweep, std::shared_ptr<spdlog::logger> log)
    : engine_(engine), settings_(settings), sweep_(sweep), log_(std::move(log)), takeover_(log_) {
  // Through the settings, so a reload's keys apply from the next SMP; the
  // key a port shows when it is not ours, to take it over (MKeyTakeover.h).
  engine_.setPortKeys([this](Guid port) {
    return takeover_.keyToSend(sweep_.held(), port,
                               settings_.sweep.program.mKeys.keyFor(port.value));
  });
}

MKeyService::~MKeyService() {
  engine_.setPortKeys({});  // the engine outlives the daemon
}

void MKeyService::onSweep(const SweepOutcome& /*outcome*/) {
  const program::ProgramOptions& o = settings_.sweep.program;
  control::MKeyCounts n;
  n.scheme = o.mKeys.describe();
  const program::HeldSubnet& held = sweep_.held();
  if (o.mKeys.enabled() && held.hasObservation()) {
    const discovery::DiscoveredSubnet& seen = held.observed();
    for (const auto& [ref, info] : seen.portInfo) {
      if (!holdsTheKey(seen.fabric, ref)) continue;
      const Node& node = seen.fabric.node(ref.node);
      const std::uint64_t ours = o.mKeys.keyFor(portGuidOf(node, ref.port).value);
      if (held.keepsNoMKey(PortKey{node.guid, ref.port})) {
        ++n.keepNone;
      } else if (info.mKey == ours && info.mKeyProtectBits == o.mKeyProtectBits) {
        ++n.protectedPorts;
      } else if (info.mKeyProtectBits != 0 && info.mKey != ours) {
        ++n.unknown;
        if (info.mKeyLeasePeriod != 0) ++n.waitingOnLease;
        reportUnknown(seen, ref, info);
        takeover_.sawUnknown(portGuidOf(node, ref.port), engine_.options().clock());
      } else if (info.mKey != 0 && info.mKey != ours) {
        ++n.unknown;  // it shows another key: the next sweep's Set carries it (MKeyTakeover)
      }
    }
    takeover_.afterSweep(held, o, engine_.options().clock());
  }
  n.takenOver = takeover_.takenOver();
  counts_ = std::move(n);
}

void MKeyService::reportUnknown(const discovery::DiscoveredSubnet& seen, PortRef port,
                                const PortInfo& info) {
  const Node& node = seen.fabric.node(port.node);
  if (!reported_.insert(PortKey{node.guid, port.port}).second) return;
  const char* next =
      info.mKeyLeasePeriod != 0
          ? "ibsm sends its SMPs once a sweep, unretried, and takes the port over when its lease "
            "ends"
          : "its lease never ends: only its key (the other SM's, or the old secret) or a reset of "
            "the port frees it";
  log_->warn(
      "SM-2951 {} is protected by an M_Key that is not ibsm's (protect bits {}, lease {} s): its "
      "Sets are refused; {}",
      seen.fabric.describe(port), info.mKeyProtectBits, info.mKeyLeasePeriod, next);
}

void MKeyService::describe(control::DaemonStatus& s) const {
  s.mads.mKeys = counts_;
  s.mads.mKeys.scheme = settings_.sweep.program.mKeys.describe();
}

}  // namespace ibsm::sm::manager
