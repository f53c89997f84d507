// `ibsm run`, daemon and --once alike: the loop that feeds the pure state
// machine (sm/fsm) its events -- timers, traps, SMInfo control packets,
// signals, operator requests -- and performs the actions it returns with the
// wire pieces: Discovery, MasterSweep (heavy, light, take-over), PeerSms
// (SMInfo of other SMs, handover, Trap 144) and the control socket.
//
// The wiring (sm/cli/RunCommand.cpp does exactly this):
//
//   SignalWatch signals;                      // first: blocks the signals for every thread
//   auto transport = UmadTransport::open({});
//   loop::EventLoop loop;                     // the one clock and the one wait
//   MadEngine engine(**transport, {.clock = loop.clock(), .waiter = &loop});
//   SmDaemon daemon(engine, loop, store, portGuid, settings, reload, logger);
//   loop.watch(signals.fd(), [&] { while (auto s = signals.poll()) daemon.signal(*s); });
//   return daemon.run();   // daemon: 0 after SIGTERM/SIGINT; --once: 0 up, 1 not
//
// One event loop: every wait of the program is the MAD engine's, and the
// engine waits through the EventLoop, which polls the transport's fd, the
// signal fd and the control socket (listening and client fds) together --
// or, on ibsim, alternates 10 ms waits on the transport with a look at the
// others (EventLoop.h says why). So SIGTERM and `ibsm status` are served
// within milliseconds, between sweeps and in the middle of one; between
// sweeps the daemon waits in engine.runUntil(next timer) and returns to the
// machine as soon as a handler gave it something to do.
//
// Threading: one thread runs the loop and everything that changes state.
// Handlers (signals, control requests, SMInfo queries, traps, Set(SMInfo))
// run on it from inside the engine's waits and only feed the machine,
// answer, or cancel the engine; the machine queues the work they ask for
// behind the running action (SmMachine.h), so no two sweeps ever overlap.
// Two pieces of pure work run on threads of their own (MasterSweep.h,
// "Threads"): a sweep's plan (LIDs, routing, PKeys, QoS, multicast trees),
// computed from copies while this thread keeps serving the loop in 1 ms
// looks -- `ibsm status` is answered within milliseconds during a plan of
// seconds (radix 48) as during the wire's waits -- and the route verdict
// walk (analyseRoutes and the guid2lid save on a std::async while
// programming waits on the wire, joined before the sweep returns). A
// SIGTERM during a plan cancels the engine, the wait ends, the plan is
// abandoned (its thread finishes alone on what it owns) and the daemon
// exits 0 at once.
//
// SIGTERM/SIGINT in the middle of an action cancels the engine (every MAD
// pending completes as Cancelled, MadEngine.h), so the action ends within
// milliseconds and the daemon exits 0; a fabric left half-programmed is
// repaired by the heavy sweep of whichever SM is master next.
//
// --once (DaemonSettings::onceMaxSweeps) is the same machine with an end: it
// exits 0 when a heavy sweep leaves the subnet up -- every reachable port
// ACTIVE, every pair routed, no Trap 128 during the sweep -- and 1 after
// that many heavy sweeps that did not (SM-0004, with the reasons), when a
// sweep or its discovery cannot run at all (SM-0003, SM-0007), when another
// SM has the subnet (SM-0116: it finds a master, or loses an election, or is
// told to stand down: it never fights that SM), or when stopped by a
// signal. How it ended is in the status (DaemonStatus::exit). It has no
// timed light sweeps and no control socket unless its settings give one.
//
// Log ids: see LOG MESSAGES in ibsm(8).
#pragma once

#include <ibsm/MadAttributes.h>
#include <ibsm/Multicast.h>
#include <spdlog/logger.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>

#include "sm/control/RequestAccess.h"
#include "sm/control/StatusFormat.h"
#include "sm/health/HealthSettings.h"
#include "sm/health/HealthView.h"
#include "sm/health/TrapWatch.h"
#include "sm/loop/EventLoop.h"
#include "sm/mad/Gmp.h"
#include "sm/mad/MadEngine.h"
#include "sm/manager/GroupSource.h"
#include "sm/manager/MasterSweep.h"
#include "sm/manager/StateStore.h"
#include "sm/sa/FairQueue.h"

namespace ibsm::sm::sa {
class Notifier;
}

namespace ibsm::sm::manager {

struct DaemonSettings {
  SweepSettings sweep;
  std::chrono::seconds sweepInterval{10};  // light sweeps as master; 0: only traps and requests
  std::chrono::milliseconds pollingTimeout{1000};  // sm.polling_timeout_ms
  std::uint32_t pollingRetries{3};                 // sm.polling_retries
  std::uint8_t priority{0};
  std::uint64_t smKey{kDefaultSmKey};
  std::filesystem::path controlSocket;  // empty: no control socket
  // Who may ask it what, and how long a client may take (sm.control_group,
  // sm.control_timeout_ms); like the socket, fixed at start.
  control::ControlOptions controlAccess;
  // The multicast groups the configuration creates (partitions: IPoIB
  // broadcast groups, mgid= lines), handed to GroupSource::precreate at
  // start and on every reload.
  std::vector<McGroupSpec> multicastGroups;
  // How long joins and leaves are gathered before one multicast pass
  // programs them (sm.multicast_batch_ms): a burst of joins costs one MFT
  // write per block that changes, not one per join.
  std::chrono::milliseconds multicastBatch{20};
  // The counter sweep (health.counter_interval, health.counter_window):
  // PerfMgt reads of every linked port as master, between sweeps, through
  // the GmpPort given to serveSa(). 0: off.
  std::chrono::seconds counterInterval{0};
  std::size_t counterWindow{8};
  // Fabric health ([health]): the policy, error thresholds and flap rule.
  health::HealthSettings health;
  // Traps per port (sm.trap_noisy_rate, sm.trap_noisy_window): when a port
  // is noisy and its traps ask for no sweep (sm/health/TrapWatch.h).
  health::TrapWatchSettings traps;
  // The SA's fair queue (sa.queue_per_requester, sa.queue_total) and the
  // requests read in a row before a turn is served though more wait
  // (sa.queue_reads_per_turn): SaService.h. A reload applies them at once.
  sa::FairQueueLimits saQueue;
  std::size_t saReadsPerTurn{8};
  // Prometheus metrics for node_exporter's textfile collector
  // (health.metrics_file), rewritten after every sweep that changed
  // something, every counter pass and state change, and at least once a
  // minute; empty: none.
  std::filesystem::path metricsFile;
  // M_Key rotation (`ibsm keys rotate`, sm.m_key_rotate_interval): the
  // secret file the keys derive from, written by a rotation (empty: keys are
  // not derived from a secret and cannot rotate), and the interval between
  // rotations as master (0: only when asked). Fixed at start.
  struct KeyRotation {
    std::filesystem::path secretFile;
    std::chrono::seconds interval{0};
  };
  KeyRotation mKeyRotation;
  // log.level (or --log-level): applied to the logger by every SIGHUP, so a
  // reload undoes an `ibsm log-level`. Empty: the level is left as it is.
  std::string logLevel;
  // --once: stop when the subnet is up, or after this many heavy sweeps
  // (sm.max_sweeps_once). Unset: run as a daemon.
  std::optional<std::uint32_t> onceMaxSweeps;
};

// Re-reads the configuration for SIGHUP; an error keeps the running settings.
using ReloadSettings = std::function<Result<DaemonSettings>()>;

class SmDaemon {
 public:
  // `engine` must wait through `loop` (MadEngineOptions::waiter) and run on
  // its clock; both outlive the daemon.
  SmDaemon(MadEngine& engine, loop::EventLoop& loop, const StateStore& store, Guid portGuid,
           DaemonSettings settings, ReloadSettings reload, std::shared_ptr<spdlog::logger> logger);
  ~SmDaemon();
  SmDaemon(const SmDaemon&) = delete;
  SmDaemon& operator=(const SmDaemon&) = delete;

  // Serves Subnet Administration: every GMP `port` receives (the port the
  // engine reads, as its GmpPort) goes to `responder` while this SM is
  // MASTER, and its answer back to the sender; otherwise -- not master, no
  // responder (null), not an SA MAD -- it is dropped and counted (the
  // status's `sa`), never fatal. Call before run(); `port` outlives the
  // daemon, which takes its handler back when destroyed.
  void serveSa(GmpPort& port, std::shared_ptr<GmpResponder> responder);

  // Called on the daemon's thread after every sweep that planned and
  // programmed the subnet (heavy, take-over, reroute, replan), whether or
  // not it came up, with what it programmed, what the subnet now holds and
  // this SM's SMInfo: where the SA's snapshot is made (sm/manager/SaFeed.h).
  using SubnetListener =
      std::function<void(const SweepResult&, const program::HeldSubnet&, const SmInfo& self)>;
  void onSubnetProgrammed(SubnetListener listener);
  // Sends the SA's notices (sm/sa/Notifier.h) through the port given to
  // serveSa(), while this SM is MASTER: each trap received is forwarded;
  // each sweep that programmed reports the end ports that came into and
  // went out of service since the one before (traps 64/65; the first sweep
  // as master only records them); ReportResps from the port acknowledge;
  // Reports are retried on the loop's timers, also in the middle of a
  // sweep. Leaving MASTER drops what is in flight. Call before run().
  void sendNotices(std::shared_ptr<sa::Notifier> notifier);
  // Manages multicast: every sweep plans the groups' trees and programs the
  // MFTs; between sweeps, the groups are watched after every SA answer and,
  // when they changed, a multicast pass (MasterSweep::programMulticast)
  // runs once the machine is idle, DaemonSettings::multicastBatch after the
  // first change. `groups`: where they come from (sm/manager/GroupSource.h;
  // `ibsm run` gives multicastGroupsOf(its SaResponder)). Call before run().
  void manageMulticast(std::shared_ptr<GroupSource> groups);
  // Adds what the SA responder counts to the status's `sa` (the daemon
  // knows the responder only as a GmpResponder).
  void describeSa(std::function<void(control::SaStatus&)> describe);

  // What a service manager is told (systemd's sd_notify, wired by `ibsm
  // run`): Ready once, when the SM has finished its first sweep (as master:
  // its first heavy or take-over sweep, up or not; otherwise: once it
  // knows it is STANDBY or NOT-ACTIVE); Reloading and Ready around a
  // SIGHUP's reload; Stopping on SIGTERM/SIGINT. `status` is one line for
  // the operator ("MASTER, subnet up, 80 switches").
  enum class Lifecycle : std::uint8_t { Ready, Reloading, Stopping };
  using LifecycleListener = std::function<void(Lifecycle, std::string_view status)>;
  void onLifecycle(LifecycleListener listener);

  // Daemon: runs until SIGTERM/SIGINT (returns 0) or until the port or the
  // control socket cannot be used (returns 1; the reason is logged).
  // --once: 0 when the subnet is up, 1 otherwise (see above).
  int run();

  // A signal read from the signal fd: SIGHUP reloads, SIGTERM and SIGINT
  // stop (mid-action: cancelling the engine). Call it from the loop's
  // handlers (this thread), never from a signal handler.
  void signal(int signo);

  // The result of the last sweep that planned the fabric (--once prints
  // its route verdict); null before the first.
  const SweepResult* lastResult() const;
  // What `ibsm status` shows; after run(), with how it ended (`exit`):
  // what --stats writes, and what tests read instead of the log.
  control::DaemonStatus status() const;
  // What `ibsm health` shows (the health book's entries, the counter
  // sweep's ports, the ports noisy with traps).
  health::HealthView health() const;
  // `ibsm keys rotate`: starts moving every port to keys of a new secret
  // (sm/manager/MKeyService.h); the answer line, "ok: ..." or "error: ...".
  // Call it from the loop's handlers (this thread).
  std::string rotateKeys();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ibsm::sm::manager
