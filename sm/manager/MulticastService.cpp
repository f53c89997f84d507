#include "sm/manager/MulticastService.h"

#include <spdlog/spdlog.h>

namespace ibsm::sm::manager {

MulticastService::MulticastService(MasterSweep& sweep, loop::EventLoop& loop,
                                   const DaemonSettings& settings,
                                   std::shared_ptr<spdlog::logger> log, Hooks hooks)
    : sweep_(sweep),
      loop_(loop),
      settings_(settings),
      log_(std::move(log)),
      hooks_(std::move(hooks)) {}

MulticastService::~MulticastService() {
  unschedule();
}

void MulticastService::manage(std::shared_ptr<GroupSource> source) {
  source_ = std::move(source);
  counts_.managed = true;
  precreate();
  // Every plan routes the groups as they stand; the generation it saw is
  // the one programmed (a join after it starts the next pass).
  sweep_.setMulticast(source_);
}

void MulticastService::precreate() {
  if (source_) source_->precreate(settings_.multicastGroups);
}

std::vector<std::pair<Gid, Lid>> MulticastService::mlids() const {
  std::vector<std::pair<Gid, Lid>> out;
  if (source_)
    for (const McGroupRoute& g : source_->routes()) out.emplace_back(g.mgid, g.mlid);
  return out;
}

void MulticastService::watch() {
  if (!source_) return;
  if (auto events = source_->takeEvents(); !events.empty()) hooks_.groupsChanged(std::move(events));
  if (at_) return;
  if (!hooks_.master() || !sweep_.lastPlan()) return;
  if (source_->generation() == sweep_.multicastPlanned().generation) return;
  at_ = now() + settings_.multicastBatch;
  // Nothing to do when it fires: a timer that ran ends the wait, and the
  // wait's predicate (ready()) then sees the pass due.
  timer_ = loop_.at(*at_, [this] { timer_.reset(); });
}

bool MulticastService::due() const {
  return at_ && now() >= *at_ && hooks_.idle();
}

void MulticastService::unschedule() {
  at_.reset();
  if (timer_) loop_.cancel(*timer_);
  timer_.reset();
}

bool MulticastService::takeTurn() {
  if (!due()) return false;
  hooks_.requestPass();
  return true;
}

void MulticastService::pass() {
  unschedule();
  if (!hooks_.master()) return;
  const auto t0 = now();
  auto result = sweep_.programMulticast();
  if (!result) {
    if (hooks_.stopping()) return;
    ++counts_.passesFailed;
    log_->warn("SM-0426 multicast pass: {}; the next sweep programs the groups",
               result.error().message);
    return;
  }
  hooks_.programmed(*result);
  const auto& mft = result->program.table(program::TableKind::Mft);
  ++counts_.passes;
  counts_.passBlocksWritten += mft.written;
  counts_.passBlocksFailed += result->program.failed();
  counts_.lastPass = std::chrono::duration_cast<std::chrono::microseconds>(now() - t0);
  log_->info(
      "SM-0425 multicast pass: {} groups, {} MFT blocks written ({} failed), {} MADs in {} us",
      sweep_.multicastPlanned().groups, mft.written, result->program.failed(), result->mads,
      counts_.lastPass.count());
  // Joins that came while it ran: the next pass.
  watch();
}

void MulticastService::onSweep(const SweepOutcome& outcome) {
  if (!source_ || !outcome.result || !outcome.result->plan) return;
  counts_.membersDropped += source_->keepPortsOf(outcome.result->plan->fabric);
  watch();
}

// No trap 67 for the groups forgotten: this SM no longer speaks for the
// subnet (its notices were dropped with the state change), and to the
// hosts the groups did not end -- they re-join them at the new master,
// whose trap 66 tells the subscribers there.
void MulticastService::onState(SmState from, SmState /*to*/, bool stopping) {
  if (from == SmState::Master && !stopping) forget();
  at_.reset();
}

void MulticastService::forget() {
  if (!source_) return;
  counts_.membersForgotten += source_->forget();
  source_->takeEvents();
  forgottenAtPlan_ = sweep_.multicastPlanned().plans;
  counts_.groups = 0;
  counts_.members = 0;
  for (const McGroupRoute& g : source_->routes()) {
    ++counts_.groups;
    counts_.members += g.members.size();
  }
}

void MulticastService::describe(control::DaemonStatus& status) const {
  status.multicast = counts_;
  const MulticastPlanned& planned = sweep_.multicastPlanned();
  if (planned.plans > forgottenAtPlan_) {
    status.multicast.groups = planned.groups;
    status.multicast.members = planned.members;
  }
}

}  // namespace ibsm::sm::manager
