// M_Key protection as a service of the daemon (issue 29): gives the MAD
// engine the key of every port (so each SMP carries the key of the port it
// reaches: sm/mad/PortDirectory.h), and after every sweep reads what the
// CA ports and switch ports 0 hold -- their keys guard the rest of each
// node -- into `ibsm status` (m_keys). The keys themselves are written by
// bring-up's PortInfo Sets (sm/program/PortDiff.cpp); this service never
// programs.
//
// A port protected by a key that is not ours (another SM's, a replaced
// secret) answers Gets with its M_Key zeroed and drops our Sets (IBA
// 14.2.4, protect bits 1 and up). It is counted unknown and logged once
// (SM-2951) with what follows: with a lease, the port clears its protect
// bits once the lease ends after a failed check (IBA 14.2.4) and shows its
// key, and the next sweep's Set carries that key and writes ours
// (MKeyTakeover.h: counted taken over, SM-2961); with none, only whoever
// holds its key (or a reset) can free it. Until then its SMPs go once a
// sweep, never retried (sm/program/KeyRefusal.h).
//
// Rotation (`ibsm keys rotate`, sm.m_key_rotate_interval as master): a new
// secret is written with the running one kept as previous
// (sm/security/KeyRotation.h); once the machine is idle the scheme of the
// new secret (remembering the previous) becomes the daemon's and a heavy
// sweep is asked. That sweep's PortInfo Sets write each port its new key,
// the engine sending each the key the port holds (sm/mad/HeldKeys.h), so no
// port is ever without a key or out of reach. After every sweep the ports
// are counted on the new key and on the previous; when none is left on the
// previous (and none unknown, which might hold it), the previous secret is
// dropped, its file removed. A rotation not done asks another heavy sweep a
// sweep interval later; a restart in the middle reads both secrets and goes on.
#pragma once

#include <spdlog/logger.h>

#include <functional>
#include <memory>
#include <optional>
#include <set>

#include "sm/control/StatusFormat.h"
#include "sm/manager/MKeyTakeover.h"
#include "sm/manager/MasterSweep.h"
#include "sm/manager/Service.h"
#include "sm/manager/SmDaemon.h"
#include "sm/security/KeyCache.h"

namespace ibsm::sm::manager {

// What the service needs of the core to rotate.
struct MKeyHooks {
  // Makes `keys` the daemon's (its settings, the master sweep's): only
  // called from a turn, so never in the middle of a sweep.
  std::function<void(security::KeyScheme keys)> setKeys;
  // A heavy sweep, when the machine decides.
  std::function<void()> sweep;
  std::function<MadClock::time_point()> now;
  std::function<std::chrono::system_clock::time_point()> wall;
};

class MKeyService final : public Service {
 public:
  MKeyService(MadEngine& engine, const DaemonSettings& settings, const MasterSweep& sweep,
              std::shared_ptr<spdlog::logger> log, MKeyHooks hooks);
  ~MKeyService() override;
  MKeyService(const MKeyService&) = delete;
  MKeyService& operator=(const MKeyService&) = delete;

  std::string_view name() const override { return "m_keys"; }
  void onSweep(const SweepOutcome& outcome) override;
  void onState(SmState from, SmState to, bool stopping) override;
  bool ready() const override { return rotation_.pending.has_value(); }
  std::optional<MadClock::time_point> deadline() const override;
  bool takeTurn() override;
  // status.mads.mKeys (JSON m_keys).
  void describe(control::DaemonStatus& s) const override;

  // `ibsm keys rotate`: writes the new secret now (the previous kept) and
  // starts the rotation at the next turn; the answer line, "ok: ..." or
  // "error: ..." saying why not (not master, no secret, one under way).
  std::string rotate(std::string_view why);

 private:
  struct Rotation {
    std::optional<security::KeyScheme> pending;     // written, applied at the next turn
    std::optional<MadClock::time_point> resweepAt;  // under way, not done: sweep again
    std::optional<MadClock::time_point> nextAt;     // sm.m_key_rotate_interval's
  };
  void count(control::MKeyCounts& n);
  void finishRotation(const control::MKeyCounts& n);
  void reportUnknown(const discovery::DiscoveredSubnet& seen, PortRef port, const PortInfo& info);
  const security::KeyScheme& keys() const { return settings_.sweep.program.mKeys; }

  MadEngine& engine_;
  const DaemonSettings& settings_;  // the core's, as reloads leave them
  const MasterSweep& sweep_;
  std::shared_ptr<spdlog::logger> log_;
  MKeyHooks hooks_;
  control::MKeyCounts counts_;
  std::set<PortKey> reported_;  // SM-2951 once per port
  bool master_{false};
  Rotation rotation_;
  MKeyTakeover takeover_;
  security::KeyCache cache_;  // the running scheme's keys, by port GUID
};

}  // namespace ibsm::sm::manager
