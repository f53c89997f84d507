// Serving the loop while work runs on a second thread (a sweep's plan, a
// programming pass's diff): looks of a millisecond at the engine (its fds,
// timers, the wire) until the work is ready.
//
//   if (auto ok = serveInLooks(engine, [&] { return job.ready(); },
//                              [&](auto most) { job.waitFor(most); }); !ok) ...
//
// On a real port (or ibsim) a look lasts its millisecond of real time,
// waiting on the wire, and the next follows at once: the reads ahead of a
// takeover, SA queries and traps are served all the while the work runs.
// (Each look used to be followed by up to a millisecond of waiting on the
// work, with the wire unserved: the PKey reads ahead of a radix-24 takeover
// went at half their rate until the diff was done; issue 32.) The in-memory
// fake fabric's engine keeps a clock of its own and a look there returns at
// once; the rest of the millisecond is then spent waiting on the work, so
// the tests' clock moves about as the work's real time does.
#pragma once

#include <chrono>
#include <functional>

#include "sm/mad/MadEngine.h"

namespace ibsm {

template <typename Ready, typename WaitOnWork>
[[nodiscard]] Result<void> serveInLooks(MadEngine& engine, const Ready& ready,
                                        const WaitOnWork& waitOnWork) {
  constexpr auto kLook = std::chrono::milliseconds(1);
  const std::function<bool()> stop = ready;
  while (!ready()) {
    // Real time, beside the engine's clock: which of the two the look took.
    const auto start = MadClock::now();
    if (auto served = engine.runUntil(engine.options().clock() + kLook, stop); !served)
      return served;
    const auto spent = MadClock::now() - start;
    if (spent < kLook)
      waitOnWork(std::chrono::duration_cast<std::chrono::microseconds>(kLook - spent));
  }
  return {};
}

}  // namespace ibsm
