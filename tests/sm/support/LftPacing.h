// A programming pass on the fake fabric's latency model (FakeSmaService.h):
// every switch's LFT blocks written by directed route, round robin over the
// switches as the programmer queues them (or switch after switch), through a MadEngine with a given
// window and window per node. It says how long the pass took on the fake clock beside the two
// bounds no pacing can beat:
//   busiest  the busiest switch's SMPs x the service time (its SMA answers
//            one at a time);
//   spread   all SMPs x the service time / min(window, switches x per-node
//            window): the window's SMPs spread over the switches;
//   smas     all SMPs x the service time / min(switches, window / per-node
//            window): an SMA serves one SMP at a time, so a switch with two
//            in the window has one at work and one waiting -- the SMAs the
//            window keeps busy at once (no limit: min(switches, window)).
// With one per switch, each SMA also idles while its answer travels back
// and the next SMP comes (the fake's Fate latency, 10 us by default).
// Shared by MadEnginePacingTest (a small tree) and bench/pacing_bench (k24).
//
//   auto fabric = parseNetFile(*generateNetFile(FatTreeSpec{.levels = 3, .radix = 12}), "k12");
//   LftPass pass = runLftPass(*fabric, {.window = 32, .perNodeWindow = 2, .service = 50us});
#pragma once

#include <ibsm/Fabric.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace ibsm::testing {

struct LftPassSpec {
  std::size_t window{32};
  std::size_t perNodeWindow{2};           // 0: no limit
  std::chrono::microseconds service{50};  // per SMP per switch; CAs are not written to
  std::uint32_t blocksPerSwitch{0};       // 0: as many as the fabric's LIDs need
  // Queued block 0 of every switch, then block 1 of every switch... as the
  // programmer queues them (sm/program/LftDiff.cpp); false: switch after
  // switch, as it did before issue 32.
  bool roundRobin{false};
};

struct LftPass {
  std::size_t switches{0};
  std::uint64_t blocks{0};    // LFT blocks written (SMPs the pass asked)
  std::uint64_t answered{0};  // of those, answered Ok
  std::uint64_t sent{0};      // transmissions, retries included
  std::uint64_t retries{0};
  std::uint64_t busiestSmps{0};       // SMPs the busiest switch's SMA served
  std::size_t deepestQueue{0};        // most SMPs one switch held at once
  std::chrono::microseconds took{0};  // first send to last answer, fake clock
  std::chrono::microseconds busiestBound{0};
  std::chrono::microseconds spreadBound{0};
  std::chrono::microseconds smaBound{0};
  std::chrono::microseconds bound() const { return std::max(busiestBound, spreadBound); }
};

// Runs the pass on a copy of `fabric` (the SM on the first CA's port 1).
LftPass runLftPass(const Fabric& fabric, const LftPassSpec& spec);

}  // namespace ibsm::testing
