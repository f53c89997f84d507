// `ibsm run` as a daemon: the loop that feeds the pure state machine
// (sm/fsm) its events -- timers, traps, SMInfo control packets, signals,
// operator requests -- and performs the actions it returns with the wire
// pieces: Discovery, MasterSweep (heavy, light, take-over), PeerSms (SMInfo
// of other SMs, handover, Trap 144) and the control socket.
//
//   SmDaemon daemon(engine, store, portGuid, settings, reload, logger);
//   return daemon.run([&] { return signals.poll(); });  // 0 after SIGTERM/SIGINT
//
// One thread: actions that take time (a sweep) run the MAD engine, whose
// callbacks keep answering SMInfo queries and feeding traps and Set(SMInfo)
// into the machine meanwhile; the machine queues what they ask for behind
// the running action (SmMachine.h), so no two sweeps ever overlap.
//
// Log message ids (spdlog):
//   SM-0101 info   SMInfo state changed (MASTER, STANDBY, DISCOVERING, NOTACTIVE)
//   SM-0102 info   the master a standby polls, and its priority
//   SM-0103 warn   the polled master stopped answering: rediscovering
//   SM-0104 info   handing the subnet over to a better SM
//   SM-0105 info   taking the subnet over (adopting the LIDs and tables it holds)
//   SM-0106 info   Trap 144 sent to a master we outrank
//   SM-0107 info   config reloaded (SIGHUP) / SM-0108 error: reload refused, old config kept
//   SM-0109 warn   discovery failed; retried on the next tick
//   SM-0114 info   SIGHUP as master: re-planned on the last fabric, what it wrote
//   SM-0115 warn   an SM showing another SM_Key: ignored (ForeignSms.h), once per SM
//   SM-0408 info   light sweep: quiet (debug) or what changed and what it cost
//   SM-0001 info   subnet up (each time a sweep brings it up)
#pragma once

#include <ibsm/MadAttributes.h>
#include <spdlog/logger.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>

#include "MadEngine.h"
#include "MasterSweep.h"
#include "StateStore.h"

namespace ibsm::sm {

struct DaemonSettings {
  SweepSettings sweep;
  std::chrono::seconds sweepInterval{10};  // light sweeps as master; 0: only traps and requests
  std::chrono::milliseconds pollingTimeout{10000};
  std::uint32_t pollingRetries{4};
  std::uint8_t priority{0};
  std::uint64_t smKey{kDefaultSmKey};
  std::filesystem::path controlSocket;  // empty: no control socket
};

// Re-reads the configuration for SIGHUP; an error keeps the running settings.
using ReloadSettings = std::function<Result<DaemonSettings>()>;

class SmDaemon {
 public:
  SmDaemon(MadEngine& engine, const StateStore& store, Guid portGuid, DaemonSettings settings,
           ReloadSettings reload, std::shared_ptr<spdlog::logger> logger);
  ~SmDaemon();
  SmDaemon(const SmDaemon&) = delete;
  SmDaemon& operator=(const SmDaemon&) = delete;

  // The next signal that arrived (SIGHUP, SIGTERM, SIGINT), asked between
  // waits; SignalWatch::poll in the daemon, a script in tests.
  using SignalSource = std::function<std::optional<int>()>;
  // Runs until SIGTERM/SIGINT (returns 0) or until the port or the control
  // socket cannot be used (returns 1; the reason is logged).
  int run(const SignalSource& signals);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ibsm::sm
