// Signals as readable events instead of handlers and global flags: the SM's
// loop asks between waits whether SIGTERM, SIGINT or SIGHUP arrived.
#pragma once

#include <optional>

namespace ibsm::sm {

class SignalWatch {
 public:
  SignalWatch();  // blocks SIGTERM, SIGINT and SIGHUP for normal delivery
  ~SignalWatch();
  SignalWatch(const SignalWatch&) = delete;
  SignalWatch& operator=(const SignalWatch&) = delete;

  // The next pending signal number, without waiting.
  std::optional<int> poll();

 private:
  int fd_{-1};
};

}  // namespace ibsm::sm
