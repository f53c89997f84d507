// The daemon's Subnet Administration: GMPs from the port, answered by the
// GmpResponder (sm/sa) only while this SM is MASTER, and the SA's snapshot
// made after every sweep that planned.
//
// Why only as master: a standby or a not-active SM must not answer (hosts
// would take two SAs' word), yet a GMP must never stop the daemon: whatever
// cannot be answered is dropped and counted. The handler runs on the
// daemon's one thread from inside the transport's receive(), so queries are
// served between the MADs of a sweep as well as between sweeps, and the
// responder answers from the snapshot of the last finished sweep (Gmp.h).
//
// Fairness: the SA requests are queued per requester (sm/sa/FairQueue.h)
// and answered round-robin: one turn when the port has handed over all
// that arrived (GmpPort::onGmpsDrained), one after every readsPerTurn
// requests read in a row (sa.queue_reads_per_turn) (a flood never lets the port run dry), and at
// the loop's top while any wait (ready/takeTurn). So a host that sends as fast as it can waits
// behind its own requests only.
//
// The port is bound here and nowhere else, so the GMPs that are not the
// SA's are handed on from here: PerfMgt answers to the counter sweep,
// ReportResps to the notices (NoticeService), each through a hook.
#pragma once

#include <spdlog/logger.h>

#include <functional>
#include <memory>
#include <span>

#include "sm/control/StatusFormat.h"
#include "sm/mad/Gmp.h"
#include "sm/mad/MadTrace.h"
#include "sm/manager/MasterSweep.h"
#include "sm/manager/Service.h"
#include "sm/manager/SmDaemon.h"
#include "sm/manager/SmInfoAgent.h"
#include "sm/sa/FairQueue.h"

namespace ibsm::sm::manager {

class SaService final : public Service {
 public:
  // What the SA needs of the rest of the daemon, none of it owned here.
  struct Hooks {
    std::function<MadClock::time_point()> clock;  // the daemon's one clock
    // A PerfMgt GMP (class 0x04): an answer to the counter sweep.
    std::function<void(const ReceivedGmp&)> perfGmp;
    // A ReportResp: true when the notices took it (they have a notifier).
    std::function<bool(std::span<const std::uint8_t>)> reportResp;
    // An answer went out: a join or a leave may have changed the groups.
    std::function<void()> answered;
  };

  // `agent`: whether this SM is MASTER and its SMInfo for the snapshot;
  // `sweep`: what the subnet holds when a sweep ends.
  // `limits`, `readsPerTurn`: DaemonSettings::saQueue, saReadsPerTurn.
  SaService(std::shared_ptr<spdlog::logger> log, const SmInfoAgent& agent, const MasterSweep& sweep,
            Hooks hooks, sa::FairQueueLimits limits = {}, std::size_t readsPerTurn = 8);
  ~SaService() override;
  SaService(const SaService&) = delete;
  SaService& operator=(const SaService&) = delete;

  // SmDaemon::serveSa: takes the port's GMPs from now on (the port given
  // before, if another, is let go); a null responder drops SA queries.
  void serve(GmpPort& port, std::shared_ptr<GmpResponder> responder);
  // Gives the port's handler back (the port outlives the daemon).
  void unbind();
  // A reload: the queue's new limits bound it at once (FairQueue::setLimits).
  void setQueue(sa::FairQueueLimits limits, std::size_t readsPerTurn);
  // SmDaemon::onSubnetProgrammed: where the snapshot is made.
  void onSubnetProgrammed(SmDaemon::SubnetListener listener) { listener_ = std::move(listener); }
  // SmDaemon::describeSa: what the responder counts, into the status's `sa`.
  void describeWith(std::function<void(control::SaStatus&)> describe) {
    describe_ = std::move(describe);
  }

  // The port bound (null before serve()): the notices and the counter
  // sweep send through it.
  GmpPort* port() const { return port_; }
  // SA queries answered, at trace level (the status's log counts its lines).
  const MadTrace& trace() const { return trace_; }

  // One GMP from the port: answered while master, dropped (counted) otherwise.
  void onGmp(const ReceivedGmp& in);

  std::string_view name() const override { return "sa"; }
  // A sweep that planned: the SA's snapshot (the listener's), whether or
  // not the subnet came up.
  void onSweep(const SweepOutcome& outcome) override;
  // A sweep that brought the subnet up, before the VLArbitration read for
  // the SA that follows it (SmDaemon's heavy sweep): the snapshot now, so
  // that an SA query between the read's SMPs is answered from the moment
  // the daemon says up. onSweep() of the same result makes it again only
  // if the read sent any SMP (its VLArbitrationTableRecords).
  void feedBeforeRead(const SweepResult& result);
  void describe(control::DaemonStatus& status) const override;
  // SA requests waiting in the fair queue: a turn at the loop's top.
  bool ready() const override { return !queue_.empty(); }
  bool takeTurn() override { return serveTurn(); }

 private:
  // One request of each requester waiting (in turn order); true when some
  // still wait after it.
  bool serveTurn();
  void serveOne(const sa::QueuedGmp& queued);
  // The MAD trace's line for an SA query answered (sm/mad/MadTrace.h).
  void traceAnswer(const ReceivedGmp& in, std::span<const std::uint8_t> answer,
                   MadClock::time_point began);

  std::shared_ptr<spdlog::logger> log_;
  const SmInfoAgent& agent_;
  const MasterSweep& sweep_;
  Hooks hooks_;
  GmpPort* port_{nullptr};
  std::shared_ptr<GmpResponder> responder_;
  SmDaemon::SubnetListener listener_;
  const SweepResult* fedBeforeRead_{nullptr};
  std::function<void(control::SaStatus&)> describe_;
  // What the daemon's side counts: received..sendFailed (the responder
  // counts the rest, through describe_).
  control::SaTraffic counts_;
  MadTrace trace_;
  sa::FairQueue queue_;
  // Requests read in a row after which one turn is served even though the
  // port has more to hand over.
  std::size_t readsPerTurn_;
  std::size_t readsSinceTurn_{0};
};

}  // namespace ibsm::sm::manager
