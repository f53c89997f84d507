// The inside of SmDaemon, shared by the files that implement it:
// SmDaemon.cpp (the loop, signals, --once's end), DaemonSweeps.cpp
// (discovery and the master's sweeps) and DaemonStatus.cpp (what it counts
// and shows); the services it holds live in their own files (Service.h).
// Private to sm/manager.
#pragma once

#include <spdlog/logger.h>

#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sm/control/ControlServer.h"
#include "sm/control/StatusFormat.h"
#include "sm/fsm/SmMachine.h"
#include "sm/manager/CounterService.h"
#include "sm/manager/HealthService.h"
#include "sm/manager/LifecycleService.h"
#include "sm/manager/LogControl.h"
#include "sm/manager/MKeyService.h"
#include "sm/manager/MetricsService.h"
#include "sm/manager/MulticastService.h"
#include "sm/manager/NoticeService.h"
#include "sm/manager/PeerService.h"
#include "sm/manager/SaService.h"
#include "sm/manager/Service.h"
#include "sm/manager/SmDaemon.h"
#include "sm/manager/SmInfoAgent.h"
#include "sm/manager/TrapService.h"

namespace ibsm::sm::manager {

fsm::SmContext contextOf(Guid portGuid, const DaemonSettings& s);

struct SmDaemon::Impl {
  Impl(MadEngine& e, loop::EventLoop& l, const StateStore& st, Guid guid, DaemonSettings s,
       ReloadSettings r, std::shared_ptr<spdlog::logger> logger);
  ~Impl();
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  // The engine's clock: real time in the daemon, a fake transport's in tests.
  MadClock::time_point now() const { return engine.options().clock(); }
  std::chrono::milliseconds since(MadClock::time_point t) const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(now() - t);
  }
  // Wall-clock time for the operator's eyes (status, health, metrics): the
  // wall time at start advanced by the engine's clock, so the daemon reads
  // one clock and fake-clock tests see their own time pass.
  std::chrono::system_clock::time_point wall() const {
    return uptime.startedWall +
           std::chrono::duration_cast<std::chrono::system_clock::duration>(now() - uptime.started);
  }
  SmInfo selfInfo() const;
  bool once() const { return settings.onceMaxSweeps.has_value(); }
  // The MAD trace's lines, SMPs, SA answers and PerfMgt GMPs together.
  MadTraceCounters traceCounters() const;

  // SmDaemon.cpp
  int run();
  // The loop's timers: the next light sweep and the next poll.
  struct LoopTimers {
    MadClock::time_point sweepAt;
    MadClock::time_point pollAt;
  };
  // The control socket, when configured; an exit status when it cannot open.
  std::optional<int> openControl();
  // Performs the machine's actions in order; an exit status when run() ends.
  std::optional<int> performPending();
  // The machine idle: what is due (a multicast pass, the counter sweep, a
  // service, a timer) asked or done; true when the loop goes round again.
  bool askTurn(LoopTimers& timers);
  // The one wait, until the next deadline or work; an exit status when the port failed.
  std::optional<int> waitForWork(const LoopTimers& timers);
  // --once sweeps heavy until it ends: no timed light sweeps.
  bool timedSweeps() const { return !once() && settings.sweepInterval.count() > 0; }
  void signal(int signo);
  // The one call site that programs: each action of the machine, performed.
  void perform(const fsm::Action& a);
  void setState(SmState to);
  // A part of the daemon needs a new plan: the machine decides when (SmStateMachine.h).
  void requestReplan(fsm::ReplanReason why);
  // --once: the exit status once it must end, after checking where the
  // machine stands (another SM's subnet: end; idle as master: sweep again).
  std::optional<int> onceEnd();
  // How run() ends (the status's `exit`); returns `code`.
  int end(int code, std::string reason, std::vector<std::string> details = {});

  // DaemonStatus.cpp
  // What `ibsm status` shows of a sweep, ended now (wall()). `result`: the
  // sweep planned and programmed, and these are its counters.
  control::SweepInfo sweepInfo(control::SweepKind kind, std::chrono::milliseconds duration,
                               std::uint64_t mads, std::vector<std::string> changes, bool up,
                               const SweepResult* result = nullptr) const;
  // `fabric`: what the sweep read of the fabric, for the health book.
  void recordSweep(const control::SweepInfo& info, const SweepResult* result,
                   FabricRead fabric = {});
  // recordSweep's counting; the services are told last (the metrics file
  // is written by the last of them).
  void countSweep(const control::SweepInfo& info, const SweepResult* result, FabricRead fabric);
  void countResult(const SweepResult& result);
  // Every table's reads, writes and SMPs added to the status' totals (a
  // sweep's, or a multicast pass's that is not counted as a sweep).
  void addTables(const SweepResult& result);
  // The subnet is up (or not) after a sweep as master; the first up is timed.
  void setUp(bool isUp);
  control::DaemonStatus status() const;
  // What `ibsm health` shows: the health book's view and the trap ports.
  health::HealthView healthView() const;
  void describeSelf(control::DaemonStatus& s) const;
  void describeCore(control::DaemonStatus& s) const;
  control::ResourceCounts resources() const;
  // Hands the allocator's free pages back after a sweep that planned or a
  // counter pass (ProcessMemory.h says why).
  void releaseMemory();

  // The services, asked in one place (Service.h): the loop's top gives each
  // a turn when due; the wait returns when one is ready or at the earliest
  // deadline.
  bool servicesTurn();
  bool servicesReady() const;
  std::optional<MadClock::time_point> servicesDeadline() const;
  void servicesOnSweep(const SweepOutcome& outcome);
  void servicesOnState(SmState from, SmState to);
  void servicesDescribe(control::DaemonStatus& s) const;

  // DaemonSweeps.cpp
  struct FreshDiscovery;
  void discover();
  void heavy(bool takeover, std::optional<FreshDiscovery> discovery);
  void noteTakeOver(const std::optional<FreshDiscovery>& discovery);
  void readVlArbForSa(SweepResult& result);
  // --once after a heavy sweep that ran: up and done, out of tries, or again.
  void onceSwept(const SweepResult& result);
  void light();
  // The machine's Rebalance: rebalance() when still due, then PassDone.
  void rebalancePass();
  // A scheduled rebalance (SM-0430) on the last sweep's fabric; false when
  // it could not run or left the subnet not up (a heavy sweep follows).
  bool rebalance();
  // SM-0001, the one place the line is written.
  void logUp(const SweepResult& r, std::string_view how);
  // Replan(why) performed by the function that does it; PassDone after.
  void replan(fsm::ReplanReason why);
  // ReloadConfig: re-reads the configuration; true when it took (a
  // Replan(Reload) then programs what it changed).
  bool applyReload();
  void replanForReload();

  // DaemonHooks.cpp: the services' hooks into the core, made at construction.
  // The multicast service's: master, idle, stopping, the pass counted with
  // the sweeps, traps 66/67.
  MulticastService::Hooks multicastHooks();
  CounterHooks counterHooks();
  HealthHooks healthHooks();
  MetricsHooks metricsHooks();
  MKeyHooks mKeyHooks();
  // A replan for isolation that programmed (HealthHooks::recordReplan).
  void recordReplan(const SweepResult& result, std::vector<std::string> changes,
                    MadClock::time_point began);

  MadEngine& engine;
  loop::EventLoop& loop;
  Guid portGuid;
  DaemonSettings settings;
  ReloadSettings reload;
  std::shared_ptr<spdlog::logger> log;
  fsm::SmMachine machine;
  SmInfoAgent agent;
  MasterSweep sweep;
  std::unique_ptr<control::ControlServer> controlServer;
  // The services, in the order they are told and asked (not owned: each is
  // a member below, registered by the constructor).
  std::vector<Service*> services;
  // The SA's groups, routed by every sweep and programmed by passes
  // between sweeps (manageMulticast).
  MulticastService multicast;

  // Since when the daemon runs (its clock and the wall's), how long the
  // subnet took to come up the first time, and whether it is up now.
  struct Uptime {
    MadClock::time_point started;
    std::chrono::system_clock::time_point startedWall{std::chrono::system_clock::now()};
    std::optional<std::chrono::milliseconds> firstUp;
    bool up{false};  // the subnet, after the last sweep as master
  };
  Uptime uptime;
  // What `ibsm status` counts of the core's own work (DaemonStatus says
  // what each means), and the last sweep's result it shows and draws.
  struct Record {
    control::SweepHistory sweeps;
    control::StateHistory states;                       // SMInfo state changes
    control::ReloadRecord reloads;                      // SIGHUPs
    program::PerKind<control::TableCounters> tables{};  // every sweep's, added up
    std::uint64_t memoryReleases{0};                    // releaseMemory() calls
    std::optional<SweepResult> lastResult;
  };
  Record record;

  // Subnet Administration (serveSa) and its notices (sendNotices): the
  // services that own them, registered by the constructor.
  SaService sa;
  NoticeService notices;

  // The discovery of the DISCOVERING phase, kept for the heavy sweep that
  // follows it at once (becoming master): one walk of the fabric, not two.
  // Dropped by any other action, and unused if a trap came in between.
  struct FreshDiscovery {
    discovery::DiscoveredSubnet subnet;
    discovery::DiscoveryCounters counters;
    std::uint64_t traps{0};  // the trap service's count of traps when it was made
  };
  // How run() goes: what the loop decided so far and carries between actions.
  struct Running {
    std::optional<FreshDiscovery> fresh;
    bool reloadTook{false};  // the last ReloadConfig read new settings: Replan(Reload) applies them
    bool performing{false};  // inside perform(): a signal then cancels the engine
    bool stopping{false};    // SIGTERM/SIGINT seen
    int stopSignal{0};
    std::string stoppedDuring;                 // the action a stop cut short
    std::optional<control::DaemonExit> ended;  // decided: run() returns ended->code
    std::uint32_t onceSweeps{0};               // --once: heavy sweeps that ran
  };
  Running running;

  // Services of this part (registered in `services` by the constructor):
  // the other SMs, what the service manager is told, the log level.
  PeerService peerService;
  LifecycleService lifecycle;
  LogControl logControl;
  // Services of their own (Service.h), registered in this order by the
  // constructor; declared last, so they go first, while what their hooks
  // reach is alive. The metrics file stays last: it shows what the others
  // made of a sweep.
  CounterService counters{loop, settings, log, counterHooks()};
  HealthService health{sweep, counters, settings, log, healthHooks()};
  MetricsService metrics{settings, log, metricsHooks()};
  // Traps judged per port, their sweeps coalesced (TrapService.h).
  TrapService trapService{settings.traps,
                          log,
                          loop,
                          {.now = [this] { return now(); },
                           .sweep = [this](bool heavy) { machine.feed(fsm::Event::trap(heavy)); }}};
  // Every SMP's M_Key, and what the ports hold of theirs (issue 29).
  MKeyService mKeys{engine, settings, sweep, log, mKeyHooks()};
};

}  // namespace ibsm::sm::manager
