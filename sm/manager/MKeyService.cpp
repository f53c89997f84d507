#include "sm/manager/MKeyService.h"

#include <fmt/format.h>

#include "sm/security/KeyRotation.h"

namespace ibsm::sm::manager {
namespace {

// The ports whose M_Key guards a node: every CA port, a switch's port 0.
bool holdsTheKey(const Fabric& fabric, PortRef port) {
  return !fabric.node(port.node).isSwitch() || port.port == 0;
}

Guid portGuidOf(const Node& node, std::uint8_t port) {
  return node.ports[port].guid ? node.ports[port].guid : node.guid;
}

// A rotation not done yet is swept again this long after a sweep (the
// light-sweep interval; 10 s when there are no timed sweeps).
std::chrono::seconds resweepDelay(const DaemonSettings& s) {
  return s.sweepInterval.count() > 0 ? s.sweepInterval : std::chrono::seconds{10};
}

}  // namespace

MKeyService::MKeyService(MadEngine& engine, const DaemonSettings& settings,
                         const MasterSweep& sweep, std::shared_ptr<spdlog::logger> log,
                         MKeyHooks hooks)
    : engine_(engine),
      settings_(settings),
      sweep_(sweep),
      log_(std::move(log)),
      hooks_(std::move(hooks)),
      takeover_(log_) {
  // Through the settings, so a reload's keys (and a rotation's) apply from
  // the next SMP; the key a port shows when it is neither ours nor a
  // rotation's previous, to take it over (MKeyTakeover.h).
  // Each port's HMACs come from the cache (computed once per scheme, not
  // once per SMP: security/KeyCache.h).
  engine_.setPortKeys([this](Guid port) {
    const security::KeyCache::Keys k = cache_.keysFor(keys(), port.value);
    return takeover_.keyToSend(sweep_.held(), port, k.current, k.previous);
  });
  engine_.setPreviousPortKeys([this](Guid port) {
    return keys().hasPrevious() ? cache_.keysFor(keys(), port.value).previous : 0;
  });
}

MKeyService::~MKeyService() {
  engine_.setPortKeys({});  // the engine outlives the daemon
  engine_.setPreviousPortKeys({});
}

void MKeyService::onSweep(const SweepOutcome& /*outcome*/) {
  control::MKeyCounts n;
  count(n);
  const program::ProgramOptions& o = settings_.sweep.program;
  if (o.mKeys.enabled()) takeover_.afterSweep(sweep_.held(), o, engine_.options().clock());
  if (keys().hasPrevious() && master_) {
    if (n.onPreviousKey == 0 && n.unknown == 0 && sweep_.held().hasObservation()) {
      finishRotation(n);
      n.rotating = keys().hasPrevious();
    } else {
      rotation_.resweepAt = hooks_.now() + resweepDelay(settings_);
    }
  }
  n.rotations = counts_.rotations;
  n.rotationStarted = counts_.rotationStarted;
  n.takenOver = takeover_.takenOver();
  counts_ = std::move(n);
}

// The key-holding ports of the last sweep's fabric, by what they showed.
void MKeyService::count(control::MKeyCounts& n) {
  const program::ProgramOptions& o = settings_.sweep.program;
  n.scheme = o.mKeys.describe();
  n.rotating = o.mKeys.hasPrevious();
  const program::HeldSubnet& held = sweep_.held();
  if (!o.mKeys.enabled() || !held.hasObservation()) return;
  const discovery::DiscoveredSubnet& seen = held.observed();
  for (const auto& [ref, info] : seen.portInfo) {
    if (!holdsTheKey(seen.fabric, ref)) continue;
    const Node& node = seen.fabric.node(ref.node);
    const Guid guid = portGuidOf(node, ref.port);
    const auto [ours, previous] = cache_.keysFor(o.mKeys, guid.value);
    if (held.keepsNoMKey(PortKey{node.guid, ref.port})) {
      ++n.keepNone;
      continue;
    }
    if (n.rotating && info.mKey == ours) ++n.onNewKey;
    if (info.mKey == ours && info.mKeyProtectBits == o.mKeyProtectBits) {
      ++n.protectedPorts;
    } else if (n.rotating && previous != 0 && info.mKey == previous) {
      ++n.onPreviousKey;  // ours too, until the rotation moves it
    } else if (info.mKeyProtectBits != 0 && info.mKey != ours) {
      ++n.unknown;
      if (info.mKeyLeasePeriod != 0) ++n.waitingOnLease;
      reportUnknown(seen, ref, info);
      takeover_.sawUnknown(guid, engine_.options().clock());
    } else if (info.mKey != 0 && info.mKey != ours) {
      ++n.unknown;  // it shows another key: the next sweep's Set carries it (MKeyTakeover)
    }
  }
}

void MKeyService::finishRotation(const control::MKeyCounts& n) {
  auto done = security::endRotation(keys(), settings_.mKeyRotation.secretFile);
  if (!done) {
    // Both secrets stay: every port is still reached; tried again next sweep.
    log_->error(
        "SM-2956 M_Key rotation: every port holds its new key, but the previous secret "
        "stays: {}",
        done.error());
    return;
  }
  hooks_.setKeys(std::move(*done));
  rotation_.resweepAt.reset();
  ++counts_.rotations;
  log_->info(
      "SM-2955 M_Key rotation done: every port ({}) holds its key of the new secret; the "
      "previous secret is removed",
      n.onNewKey);
}

void MKeyService::onState(SmState /*from*/, SmState to, bool /*stopping*/) {
  // A takeover (or any change of state) starts from keys worked out anew.
  cache_.clear();
  master_ = to == SmState::Master;
  rotation_.resweepAt.reset();
  rotation_.nextAt.reset();
  if (master_ && settings_.mKeyRotation.interval.count() > 0)
    rotation_.nextAt = hooks_.now() + settings_.mKeyRotation.interval;
}

std::optional<MadClock::time_point> MKeyService::deadline() const {
  std::optional<MadClock::time_point> at = rotation_.resweepAt;
  if (rotation_.nextAt && (!at || *rotation_.nextAt < *at)) at = rotation_.nextAt;
  return at;
}

bool MKeyService::takeTurn() {
  const auto now = hooks_.now();
  if (rotation_.pending) {
    hooks_.setKeys(std::move(*rotation_.pending));
    rotation_.pending.reset();
    hooks_.sweep();  // its PortInfo Sets move the ports
    return true;
  }
  if (rotation_.resweepAt && now >= *rotation_.resweepAt) {
    rotation_.resweepAt.reset();
    hooks_.sweep();
    return true;
  }
  if (rotation_.nextAt && now >= *rotation_.nextAt) {
    rotation_.nextAt = now + settings_.mKeyRotation.interval;
    // One under way goes on; the next starts an interval after this.
    if (!keys().hasPrevious()) (void)rotate("sm.m_key_rotate_interval");
    return true;
  }
  return false;
}

std::string MKeyService::rotate(std::string_view why) {
  if (!master_) return "error: M_Keys rotate only on the master SM (this one is not)\n";
  if (rotation_.pending) return "error: a rotation is starting already\n";
  if (settings_.mKeyRotation.secretFile.empty() && keys().currentSecret() != nullptr)
    return "error: no secret file known to write the new secret to\n";
  auto next = security::beginRotation(keys(), settings_.mKeyRotation.secretFile);
  if (!next) {
    log_->warn("SM-2954 M_Key rotation ({}) not started: {}", why, next.error());
    return fmt::format("error: {}\n", next.error());
  }
  counts_.rotationStarted = hooks_.wall();
  log_->info(
      "SM-2953 M_Key rotation started ({}): {}; ports move to their new keys at the next "
      "sweep",
      why, next->describe());
  rotation_.pending = std::move(*next);
  return fmt::format(
      "ok: M_Key rotation started at {}: new secret written, the previous kept until every port "
      "holds its new key (ibsm status: m_keys)\n",
      control::utcTime(*counts_.rotationStarted));
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
  s.mads.mKeys.scheme = keys().describe();
  s.mads.mKeys.rotating = keys().hasPrevious() || rotation_.pending.has_value();
}

}  // namespace ibsm::sm::manager
