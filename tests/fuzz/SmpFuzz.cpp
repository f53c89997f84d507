// libFuzzer target over the SMPs the daemon receives from the fabric: any
// bytes, as Get/Set(SMInfo) from another SM or a Trap(Notice) from an SMA,
// reach the MAD engine's decoder, the SmInfoAgent, the SM state machine and
// the SA's Notifier as SmDaemon wires them (SmpRig.h), and must be
// answered, repressed or dropped without a crash, a sanitizer report or a
// broken promise (an answer that does not decode or does not match, more
// than one answer, a Report of another notice, SMInfo out of step).
//
//   cmake -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++-19 -DIBSM_FUZZ=ON
//   ninja -C build-fuzz SmpFuzz
//   build-fuzz/tests/fuzz/SmpFuzz -runs=1000000 scratch/ tests/fuzz/corpus/SmpFuzz
//
// Input: a setup byte (where the SM stands, whether its port holds an
// M_Key, who sends), then up to 8 MADs of 256 bytes (SmpRig.h). Each input
// starts a fresh SM, so a crash replays from its input alone.
#include <cstdio>
#include <cstdlib>

#include "tests/fuzz/SmpRig.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto outcome = ibsm::fuzz::runSmpInput(std::span(data, size));
  if (outcome.violations.empty()) return 0;
  for (const auto& v : outcome.violations) std::fprintf(stderr, "SmpFuzz: %s\n", v.c_str());
  std::abort();
}
