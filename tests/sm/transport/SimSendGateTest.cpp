// SimSendGate on a Unix datagram socket pair connected both ways, as
// umad2sim's socket to ibsim is: the kernel then blocks a writer only on its
// send buffer, never on the reader's queue length, so the gate must stop
// before that buffer fills, and let writes through again once the reader
// has read.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>

#include "sm/transport/SimSendGate.h"

namespace ibsm::sm::transport {
namespace {

// umad2sim's struct sim_request: addresses, status, length, a 256-byte MAD.
constexpr std::size_t kSimRequest = 288;

struct SocketPair {
  int writer{-1};
  int reader{-1};
  SocketPair() {
    int fds[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_DGRAM, 0, fds), 0);
    writer = fds[0];
    reader = fds[1];
    // Non-blocking both ways: a write the gate let through that would have
    // blocked fails here instead of hanging the test.
    ::fcntl(writer, F_SETFL, ::fcntl(writer, F_GETFL) | O_NONBLOCK);
    ::fcntl(reader, F_SETFL, ::fcntl(reader, F_GETFL) | O_NONBLOCK);
  }
  ~SocketPair() {
    ::close(writer);
    ::close(reader);
  }
  int sendBuffer() const {
    int size = 0;
    socklen_t len = sizeof(size);
    ::getsockopt(writer, SOL_SOCKET, SO_SNDBUF, &size, &len);
    return size;
  }
  // Writes while the gate allows; returns how many, or -1 if one failed.
  int fill(SimSendGate& gate) const {
    const std::array<char, kSimRequest> datagram{};
    int written = 0;
    while (gate.hasRoom()) {
      if (::write(writer, datagram.data(), datagram.size()) != kSimRequest) return -1;
      ++written;
    }
    return written;
  }
  int drain() const {
    std::array<char, kSimRequest> buf{};
    int read = 0;
    while (::read(reader, buf.data(), buf.size()) > 0) ++read;
    return read;
  }
};

TEST(SimSendGate, StopsWritesBeforeTheSendBufferFillsAndNoneOfThemFails) {
  SocketPair pair;
  SimSendGate gate(pair.writer, pair.sendBuffer());
  const int written = pair.fill(gate);
  ASSERT_GE(written, 0) << "a write the gate allowed failed: " << errno;
  EXPECT_GT(written, 0);
  // Stopped with room still left in the socket: one more datagram fits.
  const std::array<char, kSimRequest> one{};
  EXPECT_EQ(::write(pair.writer, one.data(), one.size()), static_cast<ssize_t>(kSimRequest));
  EXPECT_EQ(pair.drain(), written + 1);
}

TEST(SimSendGate, LetsWritesThroughAgainOnceTheReaderHasRead) {
  SocketPair pair;
  SimSendGate gate(pair.writer, pair.sendBuffer());
  const int first = pair.fill(gate);
  ASSERT_GT(first, 0);
  EXPECT_FALSE(gate.hasRoom());
  EXPECT_EQ(pair.drain(), first);
  const int second = pair.fill(gate);
  EXPECT_EQ(second, first);
}

TEST(SimSendGate, SaysFullAfterAWriteThatWouldHaveBlocked) {
  SocketPair pair;
  SimSendGate gate(pair.writer, pair.sendBuffer());
  const std::array<char, kSimRequest> datagram{};
  while (::write(pair.writer, datagram.data(), datagram.size()) > 0) {
  }
  ASSERT_EQ(errno, EAGAIN);
  EXPECT_TRUE(gate.full());
  EXPECT_FALSE(gate.hasRoom());
}

TEST(SimSendGate, WithoutASocketLetsEverythingThroughAndHoldsNothing) {
  SimSendGate gate;
  EXPECT_FALSE(gate.active());
  for (int i = 0; i < 10000; ++i) ASSERT_TRUE(gate.hasRoom());
  errno = EAGAIN;
  EXPECT_FALSE(gate.full());
  EXPECT_FALSE(gate.holding());
}

}  // namespace
}  // namespace ibsm::sm::transport
