#include "sm/manager/NoticeService.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <string>
#include <utility>

#include "sm/control/StatusFormat.h"
#include "sm/manager/SaFeed.h"
#include "sm/sa/Notices.h"

namespace ibsm::sm::manager {

NoticeService::NoticeService(std::shared_ptr<spdlog::logger> log, loop::EventLoop& loop,
                             const SmInfoAgent& agent, const MasterSweep& sweep, Guid portGuid,
                             Hooks hooks)
    : log_(std::move(log)),
      loop_(loop),
      agent_(agent),
      sweep_(sweep),
      portGuid_(portGuid),
      hooks_(std::move(hooks)) {}

NoticeService::~NoticeService() {
  // The loop outlives the daemon: its timer must not call back into us.
  if (timer_) loop_.cancel(*timer_);
}

void NoticeService::trapReceived(const Notice& notice, Lid from) {
  if (notice.trapNumber == 128 && std::ranges::find(linkTrappers_, from) == linkTrappers_.end()) {
    if (linkTrappers_.size() < kMaxLinkTrappers)
      linkTrappers_.push_back(from);
    else
      linkTrappersOverflow_ = true;
  }
  if (!notifier_ || !master()) return;
  notifier_->trapReceived(notice, from, hooks_.clock());
  pump();
}

std::vector<Lid> NoticeService::takeLinkTrappers() {
  auto out = std::exchange(linkTrappers_, {});
  if (std::exchange(linkTrappersOverflow_, false)) out.clear();
  return out;
}

void NoticeService::groupsChanged(const std::vector<sa::McGroupEvent>& events, Lid smLid) {
  if (events.empty() || !notifier_ || !master()) return;
  notifier_->groupsChanged(events, smLid, portGuid_, hooks_.clock());
  pump();
}

bool NoticeService::acknowledge(std::span<const std::uint8_t> mad) {
  if (!notifier_) return false;
  notifier_->acknowledge(mad);
  return true;
}

void NoticeService::onSweep(const SweepOutcome& outcome) {
  const SweepResult* result = outcome.result;
  if (!notifier_ || !result || !result->plan || !master()) return;
  const PortsInService now = portsInService(*result, sweep_.held());
  for (const SaNotice& n : notifier_->inService(now.ports, now.smLid, portGuid_, hooks_.clock())) {
    log_->info(
        "SM-0904 trap {}: port {} {}", n.notice.trapNumber, gidGuid(sa::noticeGid(n)),
        n.notice.trapNumber == sa::noticeTrap::kGidInService ? "in service" : "out of service");
  }
  pump();
}

void NoticeService::onState(SmState from, SmState to, bool /*stopping*/) {
  if (from != to) reset();
}

void NoticeService::reset() {
  if (!notifier_) return;
  notifier_->reset();
  if (timer_) loop_.cancel(*timer_);
  timer_.reset();
}

void NoticeService::pump() {
  GmpPort* port = hooks_.port ? hooks_.port() : nullptr;
  if (!notifier_ || port == nullptr) return;
  for (const OutgoingGmp& out : notifier_->due(hooks_.clock())) {
    if (auto sent = port->sendGmp(out.mad, out.to); !sent) {
      ++reportSendFailed_;
      log_->warn("SM-0903 Report to LID {} QP {} not sent: {}", out.to.lid.value, out.to.qpn,
                 sent.error().message);
    }
  }
  // One timer, at the earliest deadline: re-armed when that moved.
  const auto next = notifier_->nextDeadline();
  if (timer_ && next && *next == timerAt_) return;
  if (timer_) loop_.cancel(*timer_);
  timer_.reset();
  if (!next) return;
  timerAt_ = *next;
  timer_ = loop_.at(*next, [this] {
    timer_.reset();
    pump();
  });
}

void NoticeService::describe(control::DaemonStatus& status) const {
  control::SaStatus& out = status.sa;
  out.reportSendFailed = reportSendFailed_;
  if (!notifier_) return;
  const sa::ReportCounters& r = notifier_->reportCounters();
  out.reportsSent = r.sent;
  out.reportsRetried = r.retried;
  out.reportsAcknowledged = r.acknowledged;
  out.reportsFailed = r.failed;
  out.reportsUnmatched = r.unmatched;
  out.subscribersDropped = notifier_->subscribersDropped();
  for (const auto& [trap, n] : notifier_->noticesByTrap())
    out.noticesByTrap[std::to_string(trap)] = n;
}

}  // namespace ibsm::sm::manager
