#include "sm/manager/SignalWatch.h"

#include <sys/signalfd.h>
#include <unistd.h>

#include <csignal>

namespace ibsm::sm::manager {

SignalWatch::SignalWatch() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  ::sigprocmask(SIG_BLOCK, &set, nullptr);
  fd_ = ::signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

SignalWatch::~SignalWatch() {
  if (fd_ >= 0) ::close(fd_);
}

std::optional<int> SignalWatch::poll() {
  signalfd_siginfo info{};
  if (fd_ < 0 || ::read(fd_, &info, sizeof info) != static_cast<ssize_t>(sizeof info))
    return std::nullopt;
  return static_cast<int>(info.ssi_signo);
}

}  // namespace ibsm::sm::manager
