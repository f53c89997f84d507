// Steps handed to the MAD engine a window ahead of the wire, not all at
// once: the next step is submitted as each one completes, so the first
// SMPs of a phase go out while the rest are still being built (issue 32: a
// takeover's 47,520 LFT Sets kept the wire idle ~120 ms while every
// request was made and queued before the first was sent). The order of
// submission is the steps' order, as before; `ahead` (more than any window
// the engine keeps) bounds how many wait in the engine's queues.
//
//   StepFeeder feeder(engine, steps, [&](const ProgramStep& s) { return requestFor(s, ...); });
//   feeder.start([&](std::size_t i, const SmpReply& r) { replies[i] = r; });
//   engine.runUntilIdle();   // every step has completed once it returns
//
// The feeder, the steps and what `done` captures must outlive the run.
#pragma once

#include <cstddef>
#include <functional>
#include <span>

#include "sm/mad/MadEngine.h"
#include "sm/program/ProgramSteps.h"

namespace ibsm::sm::program {

class StepFeeder {
 public:
  using MakeRequest = std::function<SmpRequest(const ProgramStep&)>;
  using Done = std::function<void(std::size_t index, const SmpReply& reply)>;
  static constexpr std::size_t kAhead = 4096;

  StepFeeder(MadEngine& engine, std::span<const ProgramStep> steps, MakeRequest make,
             std::size_t ahead = kAhead)
      : engine_(engine), steps_(steps), make_(std::move(make)), ahead_(ahead == 0 ? 1 : ahead) {}
  StepFeeder(const StepFeeder&) = delete;
  StepFeeder& operator=(const StepFeeder&) = delete;

  // Submits the first `ahead` steps; each completion submits the next.
  void start(Done done) {
    done_ = std::move(done);
    while (next_ < steps_.size() && next_ < ahead_) submitNext();
  }
  // Steps submitted so far (all of them once the engine ran idle).
  std::size_t submitted() const { return next_; }
  // The most steps queued or outstanding in the engine at once.
  std::size_t peakInEngine() const { return peak_; }

 private:
  void submitNext() {
    const std::size_t i = next_++;
    ++inEngine_;
    if (inEngine_ > peak_) peak_ = inEngine_;
    engine_.submit(make_(steps_[i]), [this, i](const SmpRequest&, const SmpReply& reply) {
      --inEngine_;
      done_(i, reply);
      if (next_ < steps_.size()) submitNext();
    });
  }

  MadEngine& engine_;
  std::span<const ProgramStep> steps_;
  MakeRequest make_;
  std::size_t ahead_;
  Done done_;
  std::size_t next_{0};
  std::size_t inEngine_{0};
  std::size_t peak_{0};
};

}  // namespace ibsm::sm::program
