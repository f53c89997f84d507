#include "sm/manager/TrapService.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <string>

#include "sm/control/StatusFormat.h"

namespace ibsm::sm::manager {

using health::TrapFate;

TrapService::TrapService(health::TrapWatchSettings settings, std::shared_ptr<spdlog::logger> log,
                         loop::EventLoop& loop, Hooks hooks)
    : watch_(settings), log_(std::move(log)), loop_(loop), hooks_(std::move(hooks)) {}

TrapService::~TrapService() {
  // The loop outlives the daemon: its timer must not call back into us.
  if (timer_) loop_.cancel(*timer_);
}

bool TrapService::received(const Notice& notice, Lid source, std::uint32_t modifier) {
  const auto now = hooks_.now();
  const health::TrapVerdict v = watch_.observe(notice, source, now);
  logVerdict(notice, v, modifier);
  if (v.fate != TrapFate::Sweep) return false;
  if (heldSince_) ++coalesced_;
  if (!heldSince_) {
    heldSince_ = now;
    timer_ = loop_.at(now + kSettle, [this] {
      timer_.reset();
      due_ = true;
    });
  }
  heldHeavy_ = heldHeavy_ || notice.trapNumber == 144;
  if (std::ranges::find(askers_, v.port) == askers_.end()) {
    if (askers_.size() < kMaxAskers)
      askers_.push_back(v.port);
    else
      askersOverflow_ = true;
  }
  return true;
}

void TrapService::logSuppressed(Lid port, std::uint64_t lines) {
  log_->info("SM-0522 suppressed {} trap log line(s) from LID {}", lines, port.value);
}

void TrapService::logVerdict(const Notice& notice, const health::TrapVerdict& v,
                             std::uint32_t modifier) {
  const auto trap = notice.trapNumber;
  const auto lid = v.port.value;
  if (v.suppressed > 0) logSuppressed(v.port, v.suppressed);
  if (v.becameNoisy)
    log_->warn(
        "SM-0521 LID {} is noisy: traps at {:.0f}/s over sm.trap_noisy_rate {:.0f}/s; its traps "
        "ask for no sweep until it calms down",
        lid, v.rate, watch_.settings().noisyRate);
  if (!v.log) return;
  if (v.fate == TrapFate::Mismatch) {
    log_->warn("SM-0523 dropped trap {} from LID {}: its Notice names issuer LID {}", trap, lid,
               notice.issuerLid.value);
  } else if (trap == 256) {
    log_->warn("SM-0524 security: trap 256 (bad M_Key) from LID {} (attribute modifier {:#x})", lid,
               modifier);
  } else if (trap == 257 || trap == 258) {
    log_->info("SM-0525 trap {} (bad {}) from LID {}", trap, trap == 257 ? "P_Key" : "Q_Key", lid);
  } else if (v.fate == TrapFate::Noisy) {
    log_->debug("SM-0527 trap {} from noisy LID {}: no sweep", trap, lid);
  } else {
    log_->info("SM-0501 trap {} from LID {} (attribute modifier {:#x}); sweep requested", trap, lid,
               modifier);
  }
}

void TrapService::tellAged(MadClock::time_point now) {
  for (const auto& c : watch_.age(now)) {
    if (c.suppressed > 0) logSuppressed(c.lid, c.suppressed);
    if (c.calmed)
      log_->info("SM-0526 LID {} calmed down: its traps ask for sweeps again", c.lid.value);
  }
}

void TrapService::release() {
  if (timer_) loop_.cancel(*timer_);
  timer_.reset();
  due_ = false;
  heldSince_.reset();
  heldHeavy_ = false;
  askers_.clear();
  askersOverflow_ = false;
}

void TrapService::onSweep(const SweepOutcome& outcome) {
  if (!heldSince_ || !outcome.fabric.read || heldHeavy_) return;
  // The duration is whole milliseconds: a trap within one of the start
  // may have come after it.
  const auto began = hooks_.now() - outcome.info.duration - std::chrono::milliseconds(1);
  if (*heldSince_ >= began) return;
  ++answeredBySweep_;
  release();
}

bool TrapService::takeTurn() {
  const auto now = hooks_.now();
  if (const auto age = watch_.nextAge(); age && now >= *age) tellAged(now);
  if (!due_) return false;
  if (!heldSince_) {
    due_ = false;
    return false;
  }
  // Noisy since they asked: their requests are void.
  const bool stands =
      askersOverflow_ || std::ranges::any_of(askers_, [this](Lid l) { return !watch_.noisy(l); });
  const bool heavy = heldHeavy_;
  release();
  if (!stands) {
    ++droppedNoisy_;
    return false;
  }
  ++sweepsRequested_;
  hooks_.sweep(heavy);
  return true;
}

void TrapService::describe(control::DaemonStatus& status) const {
  control::TrapCounters& out = status.traps;
  const health::TrapCounts& c = watch_.counts();
  out.received = c.received;
  out.stood = c.sweepsAsked;
  out.sweepsRequested = sweepsRequested_;
  out.coalesced = coalesced_;
  out.noisyIgnored = c.noisyIgnored;
  out.noisyRequestsDropped = droppedNoisy_;
  out.answeredBySweep = answeredBySweep_;
  out.mismatched = c.mismatched;
  out.logSuppressed = c.logSuppressed;
  out.noisyEpisodes = c.noisyEpisodes;
  out.noisyPorts = watch_.noisyPorts();
  out.portsTracked = watch_.trackedPorts();
  out.portsForgotten = c.portsForgotten;
  for (const auto& [trap, n] : c.byNumber) out.byNumber[std::to_string(trap)] = n;
}

}  // namespace ibsm::sm::manager
