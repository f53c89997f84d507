// The event loop with real fds (pipes) and real time: another fd's handler
// runs while the loop waits for the wire, a MAD on the wire comes back at
// once, timers fire on the loop's clock -- and with a poll() that behaves as
// umad2sim's (it waits on the transport's fake fd alone and ignores the
// others), the loop still sees the other fds within its slice, which a
// single poll over all fds would not (the last test shows it would not).
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <thread>

#include "sm/loop/EventLoop.h"
#include "tests/sm/support/PipeTransport.h"

namespace ibsm::sm::loop {
namespace {

using namespace std::chrono_literals;
using ibsm::testing::PipeTransport;

// Another fd to watch: readable once something is written.
struct Pipe {
  Pipe() {
    if (::pipe(fds.data()) != 0) fds = {-1, -1};
  }
  ~Pipe() {
    for (int fd : fds) ::close(fd);
  }
  void write() { (void)!::write(fds[1], "x", 1); }
  void drain() {
    char c;
    (void)!::read(fds[0], &c, 1);
  }
  int fd() const { return fds[0]; }
  std::array<int, 2> fds{-1, -1};
};

// Writes to `pipe` after `delay`, on another thread (an operator, a signal).
std::jthread writeLater(Pipe& pipe, std::chrono::milliseconds delay) {
  return std::jthread([&pipe, delay] {
    std::this_thread::sleep_for(delay);
    pipe.write();
  });
}

// umad2sim's poll(), as ibsim's umad2sim.c writes it: when its fake fd is
// among the fds it waits on that one alone and leaves the others untouched.
// Records each call's fds.
EventLoop::PollFn umad2simPoll(int fakeFd, std::vector<std::vector<int>>& calls) {
  return [fakeFd, &calls](pollfd* fds, nfds_t n, int timeoutMs) {
    calls.emplace_back();
    for (nfds_t i = 0; i < n; ++i) calls.back().push_back(fds[i].fd);
    for (nfds_t i = 0; i < n; ++i)
      if (fds[i].fd == fakeFd) return ::poll(&fds[i], 1, timeoutMs);
    return ::poll(fds, n, timeoutMs);
  };
}

MadClock::duration since(MadClock::time_point t) {
  return MadClock::now() - t;
}

TEST(EventLoop, AnotherFdIsServedWhileWaitingForTheWire) {
  PipeTransport wire;
  EventLoop loop;
  Pipe other;
  int served = 0;
  loop.watch(other.fd(), [&] {
    other.drain();
    ++served;
  });
  const auto start = MadClock::now();
  auto writer = writeLater(other, 20ms);
  auto in = loop.receive(wire, start + 5s);
  ASSERT_TRUE(in);
  EXPECT_FALSE(*in);  // back to the caller as soon as a handler ran
  EXPECT_EQ(served, 1);
  EXPECT_GE(since(start), 20ms);
  EXPECT_LT(since(start), 100ms);
}

TEST(EventLoop, AMadOnTheWireComesBackAtOnce) {
  PipeTransport wire;
  EventLoop loop;
  Pipe other;
  loop.watch(other.fd(), [] { ADD_FAILURE() << "nothing was written to the other fd"; });
  wire.arrive(42);
  const auto start = MadClock::now();
  auto in = loop.receive(wire, start + 5s);
  ASSERT_TRUE(in && *in);
  EXPECT_EQ((*in)->mad[0], 42);
  EXPECT_LT(since(start), 50ms);
}

TEST(EventLoop, NothingHappeningReturnsAtTheDeadline) {
  PipeTransport wire;
  EventLoop loop;
  const auto start = MadClock::now();
  auto in = loop.receive(wire, start + 60ms);
  ASSERT_TRUE(in);
  EXPECT_FALSE(*in);
  EXPECT_GE(since(start), 60ms);
  EXPECT_LT(since(start), 200ms);
}

TEST(EventLoop, TimersFireInOrderFromInsideTheWaitAndCanBeCancelled) {
  PipeTransport wire;
  EventLoop loop;
  std::vector<int> fired;
  const auto start = loop.now();
  loop.at(start + 40ms, [&] { fired.push_back(2); });
  const auto never = loop.at(start + 30ms, [&] { fired.push_back(9); });
  loop.at(start + 20ms, [&] { fired.push_back(1); });
  loop.cancel(never);
  while (fired.size() < 2 && since(start) < 2s) ASSERT_TRUE(loop.receive(wire, start + 2s));
  EXPECT_EQ(fired, (std::vector<int>{1, 2}));
  EXPECT_GE(since(start), 40ms);
  EXPECT_LT(since(start), 200ms);
}

// No fd (the in-memory fake): the transport's receive() waits on its own
// clock, and the loop's timers stop that wait at their time -- minutes of
// fake time cost nothing.
class FakeClockWire final : public MadTransport {
 public:
  Result<void> send(const MadBuffer&, MadAddress) override { return {}; }
  Result<std::optional<ReceivedMad>> receive(MadClock::time_point deadline) override {
    now = std::max(now, deadline);
    return std::optional<ReceivedMad>{};
  }
  int pollFd() const override { return -1; }
  MadClock::time_point now{};
};

TEST(EventLoop, WithoutAnFdTimersRunOnTheTransportsClock) {
  FakeClockWire wire;
  EventLoop loop([&wire] { return wire.now; });
  bool fired = false;
  loop.at(MadClock::time_point{} + 10min, [&] { fired = true; });
  const auto realStart = MadClock::now();
  auto in = loop.receive(wire, MadClock::time_point{} + 1h);
  ASSERT_TRUE(in);
  EXPECT_TRUE(fired);
  EXPECT_EQ(wire.now, MadClock::time_point{} + 10min);
  EXPECT_LT(since(realStart), 50ms);
}

TEST(EventLoop, AHandlerMayUnwatchAnotherFdThatWasReadyInTheSameRound) {
  PipeTransport wire;
  EventLoop loop;
  Pipe a, b;
  int aRuns = 0, bRuns = 0;
  loop.watch(a.fd(), [&] {
    a.drain();
    ++aRuns;
    loop.unwatch(b.fd());
    loop.unwatch(a.fd());
  });
  loop.watch(b.fd(), [&] { ++bRuns; });
  a.write();
  b.write();
  ASSERT_TRUE(loop.receive(wire, MadClock::now() + 100ms));
  // Whichever ran first, the other is gone: a ran once, b at most once
  // (if its turn came first, a then removed it).
  EXPECT_EQ(aRuns, 1);
  EXPECT_LE(bRuns, 1);
  ASSERT_TRUE(loop.receive(wire, MadClock::now() + 20ms));
  EXPECT_EQ(aRuns, 1);
  EXPECT_LE(bRuns, 1);
}

// ibsim: the transport's fd must be polled alone. The loop never mixes it
// with the others and still serves them within kAloneSlice.
TEST(EventLoop, UnderAnUmad2simPollTheOtherFdsAreServedWithinTheSlice) {
  PipeTransport wire(/*pollsWithOthers=*/false);
  std::vector<std::vector<int>> calls;
  EventLoop loop({}, umad2simPoll(wire.pollFd(), calls));
  Pipe other;
  int served = 0;
  loop.watch(other.fd(), [&] {
    other.drain();
    ++served;
  });
  const auto start = MadClock::now();
  auto writer = writeLater(other, 30ms);
  auto in = loop.receive(wire, start + 5s);
  ASSERT_TRUE(in);
  EXPECT_EQ(served, 1);
  EXPECT_LT(since(start), 30ms + EventLoop::kAloneSlice + 40ms);
  EXPECT_GT(wire.receives, 1);  // short waits on the wire, in turn with the others
  for (const auto& fds : calls)
    EXPECT_EQ(std::ranges::count(fds, wire.pollFd()), 0)
        << "the fake fd went to poll() with others";

  wire.arrive(7);  // and the wire itself is still read
  auto mad = loop.receive(wire, MadClock::now() + 5s);
  ASSERT_TRUE(mad && *mad);
  EXPECT_EQ((*mad)->mad[0], 7);
}

// Why the transport must say so: the same poll with a transport that claims
// its fd mixes with others -- the other fd is never seen before the deadline.
TEST(EventLoop, OnePollOverAllFdsMissesTheOthersUnderUmad2sim) {
  PipeTransport wire(/*pollsWithOthers=*/true);
  std::vector<std::vector<int>> calls;
  EventLoop loop({}, umad2simPoll(wire.pollFd(), calls));
  Pipe other;
  int served = 0;
  loop.watch(other.fd(), [&] {
    other.drain();
    ++served;
  });
  other.write();
  const auto start = MadClock::now();
  ASSERT_TRUE(loop.receive(wire, start + 150ms));
  EXPECT_EQ(served, 0);
  EXPECT_GE(since(start), 150ms);
}

}  // namespace
}  // namespace ibsm::sm::loop
