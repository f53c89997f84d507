// SmDaemon's multicast: the SA's groups routed by every sweep, and the
// passes between sweeps that program joins and leaves.
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
#include <spdlog/spdlog.h>

#include "sm/manager/DaemonImpl.h"

namespace ibsm::sm::manager {
namespace {

void countRoutes(const std::vector<McGroupRoute>& routes, control::MulticastCounts& out) {
  out.groups = routes.size();
  out.members = 0;
  for (const McGroupRoute& g : routes) out.members += g.members.size();
}

}  // namespace

void SmDaemon::manageMulticast(MulticastGroups groups) {
  impl_->groups = std::move(groups);
  Impl& d = *impl_;
  d.multicast.managed = true;
  if (d.groups.precreate) d.groups.precreate(d.settings.multicastGroups);
  // Every plan routes the groups as they stand; the generation it saw is
  // the one programmed (a join after it starts the next pass).
  d.sweep.setMulticast([&d] {
    d.groupsPlanned = d.groups.generation();
    auto routes = d.groups.routes();
    countRoutes(routes, d.multicast);
    return routes;
  });
}

void SmDaemon::Impl::noticeGroups() {
  if (!groups.takeEvents) return;
  notices.groupsChanged(groups.takeEvents(), peerService.ownLid());
}

// No trap 67 for the groups forgotten: this SM no longer speaks for the
// subnet (its notices were dropped on leaving MASTER), and to the hosts
// the groups did not end -- they re-join them at the new master, whose
// trap 66 tells the subscribers there.
void SmDaemon::Impl::forgetGroups() {
  if (!groups.forget) return;
  multicast.membersForgotten += groups.forget();
  if (groups.takeEvents) groups.takeEvents();
  if (groups.routes) countRoutes(groups.routes(), multicast);
}

void SmDaemon::Impl::watchGroups() {
  noticeGroups();
  if (!groups.generation || multicastAt) return;
  if (agent.self().smState != SmState::Master || !sweep.lastPlan()) return;
  if (groups.generation() == groupsPlanned) return;
  multicastAt = now() + settings.multicastBatch;
  // Nothing to do when it fires: a timer that ran ends the wait, and the
  // wait's predicate (multicastReady) then sees the pass due.
  multicastTimer = loop.at(*multicastAt, [this] { multicastTimer.reset(); });
}

bool SmDaemon::Impl::multicastReady() const {
  return multicastAt && now() >= *multicastAt && machine.idle();
}

void SmDaemon::Impl::multicastPass() {
  multicastAt.reset();
  if (multicastTimer) loop.cancel(*multicastTimer);
  multicastTimer.reset();
  if (agent.self().smState != SmState::Master) return;
  const auto t0 = now();
  performing = true;
  auto result = sweep.programMulticast();
  performing = false;
  if (!result) {
    if (stopping) return;
    ++multicast.passesFailed;
    log->warn("SM-0426 multicast pass: {}; the next sweep programs the groups",
              result.error().message);
    return;
  }
  agent.countActivity(static_cast<std::uint32_t>(result->mads));
  const auto& mft = result->program.table(program::TableKind::Mft);
  ++multicast.passes;
  multicast.passBlocksWritten += mft.written;
  multicast.passBlocksFailed += result->program.failed();
  multicast.lastPass = std::chrono::duration_cast<std::chrono::microseconds>(now() - t0);
  for (std::size_t k = 0; k < program::kTableKinds; ++k) {
    const auto kind = static_cast<program::TableKind>(k);
    tablesTotal[kind].read += result->program.table(kind).read;
    tablesTotal[kind].written += result->program.table(kind).written;
    tablesTotal[kind].smps += result->program.requests(kind);
  }
  log->info(
      "SM-0425 multicast pass: {} groups, {} MFT blocks written ({} failed), {} MADs in {} us",
      multicast.groups, mft.written, result->program.failed(), result->mads,
      multicast.lastPass.count());
  // Joins that came while it ran: the next pass.
  watchGroups();
}

void SmDaemon::Impl::dropGoneMembers(const SweepResult& result) {
  if (!groups.keepPortsOf || !result.plan) return;
  multicast.membersDropped += groups.keepPortsOf(result.plan->fabric);
  watchGroups();
}

}  // namespace ibsm::sm::manager
