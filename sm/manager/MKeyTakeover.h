// Taking over a port protected by an M_Key ibsm does not know (issue 29):
// another SM's, an old secret's. Such a port refuses ibsm's Sets (and at
// protect levels 2 and 3 its Gets) until its lease runs out: the first
// refusal starts the lease timer (IBA 14.2.4.3), and when it ends the port
// clears its protect bits but keeps its key (14.2.4.2). A Get then shows the
// key (level 0), and a Set is still checked against it (14.2.4.1): so the
// takeover is a Set carrying the key the port shows, writing ibsm's key,
// protect bits and lease. MKeyService hands the engine keyToSend() for every
// SMP, so that Set -- bring-up's own PortInfo Set, as the diff asks for it
// anyway -- carries the shown key; once its reply shows ibsm's key the held
// subnet has it, and the next SMP carries ibsm's. Each port taken over is
// counted and logged once (SM-2961).
//
// With a lease of 0 the port never clears its bits: it stays another's
// (SM-2951 says so), and its SMPs go once a sweep (sm/program/KeyRefusal.h).
#pragma once

#include <ibsm/Ids.h>
#include <spdlog/logger.h>

#include <cstdint>
#include <map>
#include <memory>
#include <set>

#include "sm/mad/MadTransport.h"
#include "sm/program/HeldSubnet.h"
#include "sm/program/ProgramOptions.h"

namespace ibsm::sm::manager {

class MKeyTakeover {
 public:
  explicit MKeyTakeover(std::shared_ptr<spdlog::logger> log) : log_(std::move(log)) {}

  // The key an SMP to `port` must carry: the one the held subnet last read
  // from it when that is a key and neither `ours` nor `previous` (a
  // rotation's, which the engine picks itself: sm/mad/HeldKeys.h), else
  // `ours`. A port sent its shown key is being taken over.
  std::uint64_t keyToSend(const program::HeldSubnet& held, Guid port, std::uint64_t ours,
                          std::uint64_t previous);

  // A key-holding port read protected by a key not ours at `now`: when it
  // is taken over, the log says how long it was waited on.
  void sawUnknown(Guid port, MadClock::time_point now) { unknownSince_.try_emplace(port, now); }
  // After a sweep: the ports being taken over that now hold ibsm's key and
  // protect bits are taken over (counted, SM-2961 once per port).
  void afterSweep(const program::HeldSubnet& held, const program::ProgramOptions& o,
                  MadClock::time_point now);

  // Ports taken over since the daemon started.
  std::uint64_t takenOver() const { return takenOver_; }
  // keyToSend calls that looked their port up in the held observation; none
  // while the observation showed no key at all (a fresh fabric).
  std::uint64_t portsLookedUp() const { return portsLookedUp_; }

 private:
  std::shared_ptr<spdlog::logger> log_;
  std::map<Guid, std::uint64_t> taking_;               // port -> the key it showed
  std::map<Guid, MadClock::time_point> unknownSince_;  // first read with a key not ours
  std::set<Guid> logged_;                              // SM-2961 once per port
  std::uint64_t takenOver_{0};
  // Whether any port of the held observation of generation scanned_ showed
  // a key: on a fresh fabric none did, and keyToSend answers `ours` without
  // looking each SMP's port up (two hash look-ups an SMP, ~7% of the CPU of
  // a bring-up: issue 32).
  std::uint64_t scanned_{0};
  bool anyKeyShown_{true};
  std::uint64_t portsLookedUp_{0};
};

}  // namespace ibsm::sm::manager
