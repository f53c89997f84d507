// Traps from the fabric, between the wire (SmInfoAgent repressed them) and
// the state machine: judged per sending port (sm/health/TrapWatch.h: noisy,
// mismatched, counted), logged within each port's budget, and turned into
// at most one sweep request at a time. A trap that stands does not feed the
// machine at once: it is held, and the first loop turn with the machine
// idle, at least kSettle after it arrived, asks for one sweep that answers
// every trap held so far -- unless every port that asked has turned noisy
// since. So a trap arriving during a sweep asks for at most one more, and a
// port repeating traps costs the fabric no sweep once it is found noisy
// (before its requests are turned into one). Log ids SM-0501, SM-0521 ..
// SM-0527, see LOG MESSAGES in ibsm(8). Private to sm/manager.
#pragma once

#include <spdlog/logger.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "sm/health/TrapWatch.h"
#include "sm/loop/EventLoop.h"
#include "sm/manager/Service.h"

namespace ibsm::sm::manager {

class TrapService final : public Service {
 public:
  // A burst of traps within this time of the first is answered by one
  // sweep, and a port repeating traps shows itself noisy before its first
  // request becomes a sweep (at 2,000/s its 21st trap comes 10 ms after
  // the first). Next to a sweep's own time (a light sweep reads every
  // switch), 20 ms does not delay an answer anyone could see.
  static constexpr std::chrono::milliseconds kSettle{20};

  struct Hooks {
    std::function<MadClock::time_point()> now;  // the daemon's one clock
    std::function<void(bool heavy)> sweep;      // feeds the machine a Trap event
  };

  TrapService(health::TrapWatchSettings settings, std::shared_ptr<spdlog::logger> log,
              loop::EventLoop& loop, Hooks hooks);
  ~TrapService() override;
  TrapService(const TrapService&) = delete;
  TrapService& operator=(const TrapService&) = delete;

  // A trap the agent received and repressed, from the MAD's source LID:
  // true when it stands (is forwarded to the SA's subscribers and will ask
  // for a sweep).
  bool received(const Notice& notice, Lid source, std::uint32_t modifier);
  void setSettings(const health::TrapWatchSettings& s) { watch_.setSettings(s); }

  std::string_view name() const override { return "traps"; }
  // A sweep that read the fabric and started after the held traps came
  // answers them: they ask for no other.
  void onSweep(const SweepOutcome& outcome) override;
  // The held requests' settle time is over (a loop timer, which fires
  // inside any wait, so a trap that came during one is not left waiting).
  bool ready() const override { return due_; }
  std::optional<MadClock::time_point> deadline() const override { return watch_.nextAge(); }
  bool takeTurn() override;
  void describe(control::DaemonStatus& status) const override;

  // Noisy ports and those with traps 256/257/258, for `ibsm health`.
  std::vector<health::TrapPortView> view() const { return watch_.view(hooks_.now()); }
  const health::TrapWatch& watch() const { return watch_; }

 private:
  void logVerdict(const Notice& notice, const health::TrapVerdict& v, std::uint32_t modifier);
  void tellAged(MadClock::time_point now);
  void logSuppressed(Lid port, std::uint64_t lines);
  void release();

  health::TrapWatch watch_;
  std::shared_ptr<spdlog::logger> log_;
  loop::EventLoop& loop_;
  Hooks hooks_;
  std::optional<loop::EventLoop::TimerId> timer_;
  bool due_{false};
  // Held requests: the first one's time, whether one was Trap 144, and
  // the ports that asked (bounded: past kMaxAskers any port counts).
  static constexpr std::size_t kMaxAskers = 64;
  std::optional<MadClock::time_point> heldSince_;
  bool heldHeavy_{false};
  std::vector<Lid> askers_;
  bool askersOverflow_{false};
  std::uint64_t sweepsRequested_{0};  // requests fed to the machine
  std::uint64_t coalesced_{0};        // traps answered by a request already held
  std::uint64_t droppedNoisy_{0};     // held requests dropped: every asker turned noisy
  std::uint64_t answeredBySweep_{0};  // held requests a sweep that began after them answered
};

}  // namespace ibsm::sm::manager
