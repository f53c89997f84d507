// A feature of the daemon that owns its state: Subnet Administration,
// notices (InformInfo and Reports), multicast, counters and health, peers
// (SMInfo polling, handover, foreign SMs), metrics, lifecycle (sd_notify).
//
// The daemon's core (SmDaemon::Impl) holds the state machine, the loop, the
// master sweep and the list of services, and nothing else. It tells every
// service what happened -- a sweep ended (onSweep), the SMInfo state changed
// (onState) -- and, at the loop's top, in one place, asks them what is due
// (ready / takeTurn) and until when it may wait (deadline). A service never
// programs the fabric itself: it asks the core for a pass, and the state
// machine decides when it runs (every programming pass is an action).
//
// One thread: every call comes from the loop, never from inside an action
// of the machine (so a service's turn never interleaves with a sweep).
#pragma once

#include <ibsm/Ids.h>
#include <ibsm/MadAttributes.h>

#include <optional>
#include <span>
#include <string_view>

#include "sm/mad/MadEngine.h"

namespace ibsm::sm::control {
struct DaemonStatus;
struct SweepInfo;
}  // namespace ibsm::sm::control

namespace ibsm::sm::manager {

struct SweepResult;

// What a sweep read of the fabric, for the services that watch it (health).
struct FabricRead {
  // It read the fabric (heavy, take-over, an asked rebalance, light,
  // reroute); not a replan of the last walk, nor --once's sweeps.
  bool read{false};
  std::span<const Guid> lostTables{};  // switches whose LFT was lost without the SM
};

// A sweep as master has ended and been counted.
struct SweepOutcome {
  const control::SweepInfo& info;  // what `ibsm status` shows of it
  const SweepResult* result;       // planned and programmed: its plan and counters; else null
  FabricRead fabric{};
};

class Service {
 public:
  virtual ~Service() = default;

  // A short name for logs and the services page ("sa", "multicast", ...).
  virtual std::string_view name() const = 0;

  // After every sweep that was counted (recordSweep).
  virtual void onSweep(const SweepOutcome& /*outcome*/) {}
  // The SMInfo state this SM shows changed from `from` to `to`. `stopping`:
  // the process is ending (SIGTERM), so what ends with it is not undone.
  virtual void onState(SmState /*from*/, SmState /*to*/, bool /*stopping*/) {}

  // Something to do now, whatever the time: the loop's wait returns for it.
  virtual bool ready() const { return false; }
  // When the service next wants a turn; nullopt: nothing timed.
  virtual std::optional<MadClock::time_point> deadline() const { return std::nullopt; }
  // Does what is due (the machine is idle); true when it did something, so
  // the loop goes round again before it waits.
  virtual bool takeTurn() { return false; }

  // Its part of `ibsm status` (and, through it, the JSON and the metrics).
  virtual void describe(control::DaemonStatus& /*status*/) const {}
};

}  // namespace ibsm::sm::manager
