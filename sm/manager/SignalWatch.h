// Signals as readable events instead of handlers and global flags: the
// signalfd is one more fd the SM's event loop watches (sm/loop/EventLoop.h),
// so a SIGTERM is read within milliseconds, in the middle of a sweep too.
// Create it before any thread starts (umad2sim's receiver is one): the
// signals are blocked for the threads created afterwards too.
#pragma once

#include <optional>

namespace ibsm::sm::manager {

class SignalWatch {
 public:
  SignalWatch();  // blocks SIGTERM, SIGINT and SIGHUP for normal delivery
  ~SignalWatch();
  SignalWatch(const SignalWatch&) = delete;
  SignalWatch& operator=(const SignalWatch&) = delete;

  // The next pending signal number, without waiting.
  std::optional<int> poll();
  // Readable while a signal is pending; -1 if signalfd() failed.
  int fd() const { return fd_; }

 private:
  int fd_{-1};
};

}  // namespace ibsm::sm::manager
