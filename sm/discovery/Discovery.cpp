#include "sm/discovery/Discovery.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "sm/discovery/Assembly.h"
#include "sm/discovery/Walk.h"

namespace ibsm::sm::discovery {

Discovery::Discovery(MadEngine& engine, DiscoveryOptions options,
                     std::shared_ptr<spdlog::logger> logger)
    : engine_(engine),
      options_(options),
      log_(logger ? std::move(logger) : spdlog::default_logger()) {}

Result<DiscoveredSubnet> Discovery::run() {
  const MadCounters before = engine_.counters();
  const auto& clock = engine_.options().clock;
  const auto started = clock();

  // On the stack: runUntilIdle() returns only once every callback of the
  // walk has run, even when the port fails or the work is cancelled.
  discovery::Walk walk(engine_, options_);
  walk.start();
  if (auto idle = engine_.runUntilIdle(); !idle) {
    if (engine_.cancelled())
      log_->info("DISC-0003 discovery cancelled: {}", idle.error().message);
    else
      log_->error("DISC-0002 discovery stopped: the SM's port cannot receive: {}",
                  idle.error().message);
    return std::unexpected(idle.error());
  }
  discovery::Observations seen = walk.take();

  const MadCounters& after = engine_.counters();
  counters_ = DiscoveryCounters{
      .madsSent = after.sent - before.sent,
      .retries = after.retries - before.retries,
      .timeouts = after.timeouts - before.timeouts,
      .badStatus = after.errors - before.errors,
      .elapsed = std::chrono::duration_cast<std::chrono::microseconds>(clock() - started)};

  if (seen.localFailure) {
    log_->error("DISC-0001 discovery failed: {}", *seen.localFailure);
    return fail(fmt::format("discovery: {}", *seen.localFailure));
  }

  if (options_.last) {
    counters_.recalled = recallConfirmed(seen, *options_.last, [this](const DrPath& path) {
      return lossyRoute(engine_.loss(), path);
    });
  }
  DiscoveredSubnet subnet = discovery::assembleSubnet(seen);
  subnet.madsSent = counters_.madsSent;
  for (const Guid guid : seen.describedFromBefore)
    if (auto id = subnet.fabric.findNode(guid)) subnet.describedFromBefore.push_back(*id);
  counters_.descriptionsKnown = subnet.describedFromBefore.size();
  counters_.nodes = subnet.fabric.size();
  for (const Node& n : subnet.fabric.nodes())
    for (const Port& p : n.ports) counters_.cables += p.connected() ? 1 : 0;
  counters_.cables /= 2;
  counters_.problems = subnet.problems.size();

  for (const std::string& problem : subnet.problems) log_->warn("{}", problem);
  log_->info(
      "DISC-0101 discovered {} nodes ({} switches), {} cables in {:.1f} ms with {} MADs "
      "({} retries, {} timeouts, {} answers lost on lossy routes taken from the last sweep, {} "
      "descriptions known from before); {} problems",
      counters_.nodes, subnet.fabric.switches().size(), counters_.cables,
      static_cast<double>(counters_.elapsed.count()) / 1000.0, counters_.madsSent,
      counters_.retries, counters_.timeouts, counters_.recalled.total(),
      counters_.descriptionsKnown, subnet.problems.size());
  return subnet;
}

}  // namespace ibsm::sm::discovery
