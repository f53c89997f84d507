// The daemon's notices (InformInfo and Reports, sm/sa/Notifier.h): the
// Reports the SA's Notifier asks for are sent through the SA's port
// (SaService), while this SM is MASTER, from the daemon's thread only -- a
// trap's handler, the end of a sweep, a multicast group made or ended, or
// a timer of the loop, which also fires between the MADs of a sweep -- and
// ReportResps come back as GMPs like any other (SaService hands them here).
//
// Why a timer and not the loop's top: a Report is retried until its
// ReportResp, and a sweep of a large fabric takes seconds; the loop's
// timers fire inside the engine's wait, so retries keep their pace.
#pragma once

#include <spdlog/logger.h>

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "sm/loop/EventLoop.h"
#include "sm/mad/Gmp.h"
#include "sm/manager/MasterSweep.h"
#include "sm/manager/Service.h"
#include "sm/manager/SmInfoAgent.h"
#include "sm/sa/McGroups.h"
#include "sm/sa/Notifier.h"

namespace ibsm::sm::manager {

class NoticeService final : public Service {
 public:
  struct Hooks {
    std::function<MadClock::time_point()> clock;  // the daemon's one clock
    std::function<GmpPort*()> port;               // where Reports go (null: nowhere yet)
  };

  // `agent`: whether this SM is MASTER; `sweep`: what the ports hold when a
  // sweep ends; `portGuid`: this SM's port, the notices' issuer.
  NoticeService(std::shared_ptr<spdlog::logger> log, loop::EventLoop& loop,
                const SmInfoAgent& agent, const MasterSweep& sweep, Guid portGuid, Hooks hooks);
  ~NoticeService() override;
  NoticeService(const NoticeService&) = delete;
  NoticeService& operator=(const NoticeService&) = delete;

  // SmDaemon::sendNotices: without one, nothing is noticed.
  void setNotifier(std::shared_ptr<sa::Notifier> notifier) { notifier_ = std::move(notifier); }

  // A trap received (the core's trap handler): forwarded to subscribers.
  // A Trap 128 (link state change) also notes its issuer for the next light
  // sweep, which asks the switches that trapped first (takeLinkTrappers).
  void trapReceived(const Notice& notice, Lid from);
  // The issuers of the Trap 128s that stood since the last call (at most
  // kMaxLinkTrappers; past that, none: the light sweep asks every switch
  // in its usual order).
  std::vector<Lid> takeLinkTrappers();
  static constexpr std::size_t kMaxLinkTrappers = 64;
  // Multicast groups created or deleted (traps 66/67), issued by the SM
  // port at `smLid`.
  void groupsChanged(const std::vector<sa::McGroupEvent>& events, Lid smLid);
  // A ReportResp from the port; false when there is no notifier to take it.
  bool acknowledge(std::span<const std::uint8_t> mad);

  std::string_view name() const override { return "notices"; }
  // A sweep that planned: traps 64/65 for the end ports that came into and
  // went out of service since the one before.
  void onSweep(const SweepOutcome& outcome) override;
  // Leaving or becoming MASTER: what is in flight is dropped.
  void onState(SmState from, SmState to, bool stopping) override;
  // Reports and notices, into the status's `sa`.
  void describe(control::DaemonStatus& status) const override;

 private:
  bool master() const { return agent_.self().smState == SmState::Master; }
  void reset();
  // Sends the Reports due and arms the loop's timer for the next.
  void pump();

  std::shared_ptr<spdlog::logger> log_;
  loop::EventLoop& loop_;
  const SmInfoAgent& agent_;
  const MasterSweep& sweep_;
  Guid portGuid_;
  Hooks hooks_;
  std::shared_ptr<sa::Notifier> notifier_;
  std::optional<loop::EventLoop::TimerId> timer_;
  MadClock::time_point timerAt_{};
  std::uint64_t reportSendFailed_{0};  // Reports the port refused
  std::vector<Lid> linkTrappers_;
  bool linkTrappersOverflow_{false};
};

}  // namespace ibsm::sm::manager
