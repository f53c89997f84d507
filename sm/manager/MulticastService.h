// The daemon's multicast: the SA's groups routed by every sweep, and the
// passes between sweeps that program joins and leaves. It owns the groups'
// source, the generation the last plan routed, the batch's deadline and
// timer, and the counts `ibsm status` shows.
//
// Why a pass and not a sweep: a join changes one group's tree by a branch,
// which is a few MFT blocks; a sweep would read the fabric again. Why after
// a batch: a burst of joins (every host's IPoIB after a reboot of the
// fabric) would otherwise write the same leaf block once per member; the
// pass runs DaemonSettings::multicastBatch after the first change it
// carries, so the answer to each join is immediate and the MFTs follow
// within that time. Why only at the loop's top: a pass is programming, and
// programming never overlaps a sweep (the machine runs one action at a
// time); joins that arrive during a sweep are planned by the sweep itself
// when they came before its plan, and by the next pass otherwise.
//
//   MulticastService multicast(sweep, loop, settings, logger, hooks);
//   multicast.manage(multicastGroupsOf(responder));   // `ibsm run`
//   multicast.watch();                                 // after each SA answer
//   if (multicast.due()) multicast.pass();             // the loop's top, idle
//
// Log ids: SM-0425, SM-0426 (ibsm(8)).
#pragma once

#include <spdlog/logger.h>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "sm/control/StatusFormat.h"
#include "sm/loop/EventLoop.h"
#include "sm/manager/GroupSource.h"
#include "sm/manager/MasterSweep.h"
#include "sm/manager/Service.h"
#include "sm/manager/SmDaemon.h"

namespace ibsm::sm::manager {

class MulticastService final : public Service {
 public:
  // What the service asks of the core, and tells it.
  struct Hooks {
    std::function<bool()> master;    // this SM is MASTER
    std::function<bool()> idle;      // the master is idle: a pass may be asked for now
    std::function<bool()> stopping;  // SIGTERM/SIGINT seen
    // Asks the state machine for the pass (Replan, reason multicast); the
    // core's perform() runs pass() when the machine decides.
    std::function<void()> requestPass;
    // A pass programmed: its MADs and tables count with the core's.
    std::function<void(const SweepResult&)> programmed;
    // Groups created and deleted (traps 66/67, through the notifier).
    std::function<void(std::vector<sa::McGroupEvent>)> groupsChanged;
  };

  // `settings` is the daemon's, read at each use (a reload replaces it).
  MulticastService(MasterSweep& sweep, loop::EventLoop& loop, const DaemonSettings& settings,
                   std::shared_ptr<spdlog::logger> log, Hooks hooks);
  ~MulticastService() override;
  MulticastService(const MulticastService&) = delete;
  MulticastService& operator=(const MulticastService&) = delete;

  // Manages multicast from now on (SmDaemon::manageMulticast): the
  // configuration's groups pre-created, every plan routing the groups.
  void manage(std::shared_ptr<GroupSource> source);
  // SIGHUP: the configuration's groups again.
  void precreate();
  // The SA's groups (MGID, MLID), for `ibsm path --mgid`.
  std::vector<std::pair<Gid, Lid>> mlids() const;

  // After an SA answer or a sweep: traps 66/67 for the groups that came
  // and went, and a pass scheduled when the groups changed since they were
  // last planned.
  void watch();
  // A pass is due (its batch ended) and the machine is idle.
  bool due() const;
  // The multicast pass (MasterSweep::programMulticast): only the MFT
  // blocks that differ; counted, logged, then the groups watched again.
  void pass();

  std::string_view name() const override { return "multicast"; }
  // A sweep as master planned: members whose port is gone leave; watch().
  void onSweep(const SweepOutcome& outcome) override;
  // Leaving MASTER: the groups joins made are forgotten, without traps
  // (not when the process stops: the groups end with it), and no pass is
  // due any more.
  void onState(SmState from, SmState to, bool stopping) override;
  bool ready() const override { return due(); }
  // Only while a pass may be asked: a deadline passed while the master is
  // busy would wake the loop's wait at once, again and again.
  std::optional<MadClock::time_point> deadline() const override {
    return hooks_.idle() ? at_ : std::nullopt;
  }
  bool takeTurn() override;
  void describe(control::DaemonStatus& status) const override;

 private:
  MadClock::time_point now() const { return loop_.now(); }
  void unschedule();
  void forget();

  MasterSweep& sweep_;
  loop::EventLoop& loop_;
  const DaemonSettings& settings_;
  std::shared_ptr<spdlog::logger> log_;
  Hooks hooks_;
  std::shared_ptr<GroupSource> source_;  // null: not managed
  // When the next pass is due, and the timer that wakes the engine's wait
  // then: joins are answered inside the transport's receive, which
  // otherwise returns only at the wait's deadline (the next sweep or poll
  // timer), seconds after the batch.
  std::optional<MadClock::time_point> at_;
  std::optional<loop::EventLoop::TimerId> timer_;
  control::MulticastCounts counts_;
  // MulticastPlanned::plans when the groups were last forgotten: the
  // status's groups and members are the later of that and the last plan.
  std::uint64_t forgottenAtPlan_{0};
};

}  // namespace ibsm::sm::manager
