// A MadTransport over a pipe, for tests of what waits on the wire together
// with other fds (sm/loop/EventLoop.h): its fd is a real kernel fd, a MAD
// "arrives" when a test writes one byte (which becomes the MAD's first
// byte), and receive() waits in real time as UmadTransport's does. It can
// claim that its fd must be polled alone, as umad2sim's must.
#pragma once

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>

#include "sm/mad/MadTransport.h"

namespace ibsm::testing {

class PipeTransport final : public MadTransport {
 public:
  explicit PipeTransport(bool pollsWithOthers = true) : withOthers_(pollsWithOthers) {
    if (::pipe(fds_.data()) != 0) fds_ = {-1, -1};
  }
  ~PipeTransport() override {
    for (int fd : fds_)
      if (fd >= 0) ::close(fd);
  }
  PipeTransport(const PipeTransport&) = delete;
  PipeTransport& operator=(const PipeTransport&) = delete;

  // A MAD whose first byte is `tag` is now readable.
  void arrive(std::uint8_t tag) { (void)!::write(fds_[1], &tag, 1); }

  Result<void> send(const MadBuffer&, MadAddress) override { return {}; }
  Result<std::optional<ReceivedMad>> receive(MadClock::time_point deadline) override {
    ++receives;
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - MadClock::now());
    pollfd p{.fd = fds_[0], .events = POLLIN, .revents = 0};
    if (::poll(&p, 1, static_cast<int>(std::max<long>(0, left.count()))) <= 0)
      return std::optional<ReceivedMad>{};
    ReceivedMad in;
    if (::read(fds_[0], in.mad.data(), 1) != 1) return fail("pipe transport: read failed");
    return std::optional<ReceivedMad>{in};
  }
  int pollFd() const override { return fds_[0]; }
  bool pollsWithOtherFds() const override { return withOthers_; }

  int receives{0};

 private:
  std::array<int, 2> fds_{-1, -1};
  bool withOthers_;
};

}  // namespace ibsm::testing
