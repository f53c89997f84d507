// The inside of SmDaemon, shared by the files that implement it:
// SmDaemon.cpp (the loop, signals, --once's end), DaemonSweeps.cpp
// (discovery and the master's sweeps), DaemonPeers.cpp (the MADs to other
// SMs), DaemonStatus.cpp (what it counts and shows) and DaemonMetrics.cpp
// (the metrics file). Private to sm/manager.
#pragma once

#include <ibsm/MadTrace.h>
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
#include "sm/health/ErrorWatch.h"
#include "sm/health/FlapTracker.h"
#include "sm/health/HealthBook.h"
#include "sm/health/HealthView.h"
#include "sm/manager/DaemonCounters.h"
#include "sm/manager/ForeignSms.h"
#include "sm/manager/PeerSms.h"
#include "sm/manager/Service.h"
#include "sm/manager/SmDaemon.h"
#include "sm/manager/SmInfoAgent.h"
#include "sm/sa/Notifier.h"

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
    return startedWall +
           std::chrono::duration_cast<std::chrono::system_clock::duration>(now() - started);
  }
  SmInfo selfInfo() const;
  bool once() const { return settings.onceMaxSweeps.has_value(); }

  // SmDaemon.cpp
  int run();
  void signal(int signo);
  void perform(const fsm::Action& a);
  // --once: the exit status once it must end, after checking where the
  // machine stands (another SM's subnet: end; idle as master: sweep again).
  std::optional<int> onceEnd();
  void applyReload();
  // How run() ends (the status's `exit`); returns `code`.
  int end(int code, std::string reason, std::vector<std::string> details = {});

  // DaemonStatus.cpp
  // What `ibsm status` shows of a sweep, ended now (wall()). `result`: the
  // sweep planned and programmed, and these are its counters.
  control::SweepInfo sweepInfo(control::SweepKind kind, std::chrono::milliseconds duration,
                               std::uint64_t mads, std::vector<std::string> changes, bool up,
                               const SweepResult* result = nullptr) const;
  void recordSweep(const control::SweepInfo& info, const SweepResult* result);
  // recordSweep's counting, before the metrics file is written.
  void countSweep(const control::SweepInfo& info, const SweepResult* result);
  void countResult(const SweepResult& result);
  // The subnet is up (or not) after a sweep as master; the first up is timed.
  void setUp(bool isUp);
  control::DaemonStatus status() const;
  void describeSelf(control::DaemonStatus& s) const;
  void describeCore(control::DaemonStatus& s) const;
  control::ResourceCounts resources() const;
  // Hands the allocator's free pages back after a sweep that planned or a
  // counter pass (ProcessMemory.h says why).
  void releaseMemory();

  // DaemonLogging.cpp
  // `ibsm log-level LEVEL`: the answer line for the control socket.
  std::string setLogLevel(std::string_view level);
  // On SIGHUP: the configuration's level, whatever the operator set.
  void applyConfigLogLevel();
  void describeLogging(control::DaemonStatus& s) const;

  // Tells the lifecycle listener, if any (SmDaemon::onLifecycle says when).
  void announce(SmDaemon::Lifecycle what);

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
  // --once after a heavy sweep that ran: up and done, out of tries, or again.
  void onceSwept(const SweepResult& result);
  void light();
  // A scheduled rebalance (SM-0430) on the last sweep's fabric; false when
  // it could not run or left the subnet not up (a heavy sweep follows).
  bool rebalance();
  // SM-0001, the one place the line is written.
  void logUp(const SweepResult& r, std::string_view how);

  // DaemonSa.cpp
  void serveSa(GmpPort& port, std::shared_ptr<GmpResponder> responder);
  // One GMP from the port: answered while master, dropped (counted) otherwise.
  void onGmp(const ReceivedGmp& in);
  // The MAD trace's line for an SA query answered (<ibsm/MadTrace.h>).
  void traceSa(const ReceivedGmp& in, std::span<const std::uint8_t> answer,
               MadClock::time_point began);
  // Notices (sendNotices): a trap received, a sweep that programmed, the
  // state changing to or from MASTER; pumpNotices() sends the Reports due
  // and arms the loop's timer for the next.
  void noticeTrap(const Notice& notice, Lid from);
  void noticeSweep(const SweepResult& result);
  void resetNotices();
  void pumpNotices();

  // DaemonMulticast.cpp
  // After an SA answer or a sweep: a pass is due when the groups changed
  // since they were last planned.
  void watchGroups();
  // Due and idle: run it now (the loop's top, never inside an action).
  bool multicastReady() const;
  void multicastPass();
  // After a sweep that planned: members gone from the fabric leave.
  void dropGoneMembers(const SweepResult& result);
  // Traps 66/67 for the groups created and deleted since the last call.
  void noticeGroups();
  // Leaving MASTER: the groups joins made are forgotten, without traps.
  void forgetGroups();

  // DaemonHealth.cpp
  // After each pass of the counter sweep: the health book looks at what
  // it read (the sweep's last pass): errors, LinkDownedCounter, counters reset.
  void countersRead();
  // After a sweep that read the fabric (heavy, light, reroute): cables
  // lost (flaps), downgraded links, switches that lost their tables; then
  // the isolation the policy wants, re-planned at once when it changed.
  void healthAfterSweep(const std::vector<Guid>& lostTables);
  // `ibsm sweep --readmit LINK`: the answer line for the operator.
  std::string readmit(std::string_view link);
  // The book's changes, one log line each (SM-1601..SM-1605).
  void logHealth(const std::vector<health::HealthChange>& changes);
  // Flapping and rebooted findings as they stand, into the book.
  void observeFlapsAndReboots();
  // The isolation the book wants against what the last plan did; true
  // when a new plan is needed.
  bool isolationChanged();
  void replanForIsolation();
  void publishHealth();

  // DaemonCounters.cpp: the counter sweep (health.counter_interval).
  // At the loop's top: ends a pass (countersRead()), cancels one when no
  // longer master, or starts one when due; true when it did something.
  bool countersTurn();
  void setUpCounters();
  // health.counterSweep from the pass, then countersRead().
  void endCounterPass();
  // Something for countersTurn() to do: the wait returns for it.
  bool countersReady() const;
  // A pass may start, whatever the time: master, up, idle, none running.
  bool mayCount() const;
  // When the next pass is due, for the wait's deadline.
  std::optional<MadClock::time_point> nextCounterPass() const;
  // A sweep runs: no new PerfMgt GMPs until it ends.
  void pauseCounters(bool paused);
  // A PerfMgt GMP from the port: an answer to the requester.
  void onPerfGmp(const ReceivedGmp& in);
  void describeCounters(control::DaemonStatus& s) const;
  // The sweep's figures as of now, with the daemon's settings (enabled,
  // interval) and when the next pass is due: what status and health show,
  // also before the first pass.
  health::CounterSweepFigures counterFigures() const;

  // DaemonMetrics.cpp
  // The fabric's health as of now (`at` set): what `ibsm health` shows.
  health::HealthView healthView() const;
  // Writes settings.metricsFile (health.metrics_file), when set, for
  // node_exporter's textfile collector: temp file and rename, so a scrape
  // never reads half of it. Called after every sweep (recordSweep), every
  // counter pass and state change; a quiet light sweep (`quiet`) changes
  // only the sweep counters, so it writes at most every kQuietMetricsPeriod
  // (the file is tens of megabytes on a big fabric). A failure is logged
  // once (SM-0805) and the SM goes on.
  void writeMetrics(bool quiet = false);
  static constexpr std::chrono::seconds kQuietMetricsPeriod{60};

  // DaemonPeers.cpp
  void poll(Guid master);
  // Not master, with a master known: what this SM sees of its subnet.
  std::optional<control::MasterView> masterView() const;
  // The ports the last discovery found linked and Active (masterView).
  void notePorts(const discovery::DiscoveredSubnet& subnet);
  void notify(Guid master);
  void handover(Guid to);
  void acknowledge(Guid to, SmState as);
  void learnPeers(const discovery::DiscoveredSubnet& subnet);
  std::vector<SmInfo> readPeers();
  const PeerSm* peer(Guid guid) const;

  MadEngine& engine;
  loop::EventLoop& loop;
  const StateStore& store;
  Guid portGuid;
  DaemonSettings settings;
  ReloadSettings reload;
  std::shared_ptr<spdlog::logger> log;
  MadTrace saTrace{log};  // SA queries answered, at trace level
  fsm::SmMachine machine;
  SmInfoAgent agent;
  MasterSweep sweep;
  std::unique_ptr<control::ControlServer> controlServer;
  // The services, in the order they are told and asked (not owned: each is
  // a member below, registered by the constructor).
  std::vector<Service*> services;

  // How to reach every SM port the last discovery saw, by port GUID.
  std::unordered_map<Guid, PeerSm> peers;
  std::vector<SmInfo> lastSms;  // their SMInfo as last read
  ForeignSms foreign;
  Lid ownLid{};
  bool up{false};
  Guid lastMasterLogged{};
  MadClock::time_point started;
  std::chrono::system_clock::time_point startedWall{std::chrono::system_clock::now()};
  std::uint64_t traps{0};
  // What `ibsm status` counts of the core's own work (DaemonStatus says
  // what each means): sweeps, SMInfo state changes, SIGHUPs.
  control::SweepHistory sweeps;
  control::StateHistory states;
  control::ReloadRecord reloads;
  std::uint64_t missedPolls{0};
  std::uint64_t foreignReports{0};
  std::uint64_t handoversSent{0};
  std::uint64_t handoversAccepted{0};
  std::optional<SmInfo> masterAnswer;  // the master's SMInfo, as its last poll answered
  control::MasterView portsSeen;       // portsLinked, portsActive, seenAt of the last discovery
  std::string logLevelSetBy{"config"};
  std::uint64_t logLevelChanges{0};
  std::optional<std::chrono::milliseconds> firstUp;
  program::PerKind<control::TableCounters> tablesTotal{};  // every sweep's, added up
  std::optional<SweepResult> lastResult;

  // Subnet Administration (serveSa): where GMPs come from and who answers.
  GmpPort* gmpPort{nullptr};
  std::shared_ptr<GmpResponder> saResponder;
  SmDaemon::SubnetListener subnetListener;
  std::function<void(control::SaCounters&)> describeSa;
  control::SaCounters sa;
  std::shared_ptr<sa::Notifier> notifier;
  std::optional<loop::EventLoop::TimerId> noticeTimer;
  MadClock::time_point noticeTimerAt{};

  // Multicast (manageMulticast): the SA's groups, the generation the last
  // plan routed, and when the next pass is due.
  MulticastGroups groups;
  std::uint64_t groupsPlanned{0};
  std::optional<MadClock::time_point> multicastAt;
  // Wakes the engine's wait at multicastAt: joins are answered inside the
  // transport's receive, which otherwise returns only at the wait's
  // deadline (the next sweep or poll timer), seconds after the batch.
  std::optional<loop::EventLoop::TimerId> multicastTimer;
  control::MulticastCounts multicast;

  // Fabric health: the counter sweep fills counterSweep, the health book
  // unhealthy; the ports stay in the counter sweep (one copy of ~1 KB a
  // port, not two) and healthView() copies them in for `ibsm health` and
  // the metrics file.
  health::HealthView health;
  std::unique_ptr<CounterRun> counterRun;  // made at the first pass
  // The health book and its detectors' memory (DaemonHealth.cpp).
  health::HealthBook healthBook{health::HealthPolicy{}};
  health::FlapTracker flaps;
  health::ErrorWatch errorWatch;
  std::vector<health::LinkKey> healthLinks;  // cables at the last look
  struct PortReadSeen {
    std::uint64_t reads{0};   // PortCounterView::reads at the last look
    std::uint64_t resets{0};  // PortCounterView::portResets then
  };
  std::map<PortKey, PortReadSeen> portReadsSeen;
  struct Reboot {
    MadClock::time_point at;
    std::string why;
  };
  std::map<Guid, Reboot> rebootedAt;  // switches found rebooted, kept a clean period
  bool metricsFailing{false};         // SM-0805 logged, no write has succeeded since
  std::optional<MadClock::time_point> metricsWrittenAt;
  std::uint64_t metricsWrites{0};
  std::uint64_t memoryReleases{0};  // releaseMemory() calls
  // The metrics file's per-port samples, formatted after the counter pass
  // numbered `pass` (writeMetrics).
  struct MetricsPorts {
    std::uint64_t pass{0};
    std::string text;
  };
  std::optional<MetricsPorts> metricsPorts;

  // The discovery of the DISCOVERING phase, kept for the heavy sweep that
  // follows it at once (becoming master): one walk of the fabric, not two.
  // Dropped by any other action, and unused if a trap came in between.
  struct FreshDiscovery {
    discovery::DiscoveredSubnet subnet;
    discovery::DiscoveryCounters counters;
    std::uint64_t traps{0};
  };
  std::optional<FreshDiscovery> fresh;

  SmDaemon::LifecycleListener lifecycle;
  bool announcedReady{false};
  bool reloadAnnounced{false};  // Reloading sent: Ready follows the reload

  bool performing{false};  // inside perform(): a signal then cancels the engine
  bool stopping{false};    // SIGTERM/SIGINT seen
  int stopSignal{0};
  std::string stoppedDuring;                 // the action a stop cut short
  std::optional<control::DaemonExit> ended;  // decided: run() returns ended->code
  std::uint32_t onceSweeps{0};               // --once: heavy sweeps that ran
};

}  // namespace ibsm::sm::manager
