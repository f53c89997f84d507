// A MadTransport that forwards to another until its `failAt`-th receive
// (1 = the first), which fails as a port that went away does: for tests of
// what a transport failure does to the engine and to its callers.
#pragma once

#include <ibsm/Error.h>

#include <cstddef>
#include <optional>

#include "sm/mad/MadTransport.h"

namespace ibsm::testing {

class DyingPort final : public MadTransport {
 public:
  DyingPort(MadTransport& inner, std::size_t failAt) : inner_(inner), failAt_(failAt) {}
  Result<void> send(const MadBuffer& mad, MadAddress to) override { return inner_.send(mad, to); }
  Result<std::optional<ReceivedMad>> receive(MadClock::time_point deadline) override {
    if (++receives_ == failAt_) return fail("port went away");
    return inner_.receive(deadline);
  }
  int pollFd() const override { return inner_.pollFd(); }

 private:
  MadTransport& inner_;
  std::size_t failAt_;
  std::size_t receives_{0};
};

}  // namespace ibsm::testing
