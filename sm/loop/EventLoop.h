// The SM's one event loop: fd handlers and timers on one clock, served
// while the MAD engine waits for the wire. It exists so that the daemon
// waits on the transport, the signal fd and the control socket together
// (a SIGTERM or `ibsm status` is answered within milliseconds even in the
// middle of a sweep) without a second thread: the engine calls receive()
// instead of blocking in MadTransport::receive(), and handlers run from
// inside that call, on the caller's thread, between MADs.
//
//   EventLoop loop;                                     // real time
//   MadEngine engine(transport, {.clock = loop.clock(), .waiter = &loop});
//   loop.watch(signals.fd(), [&] { while (auto s = signals.poll()) daemon.signal(*s); });
//   loop.at(loop.now() + 1s, [&] { ... });              // one-shot timer
//   engine.runUntil(deadline, [&] { return somethingToDo(); });
//
// How it waits, by what the transport says of its fd (MadTransport.h):
// - a kernel fd (pollsWithOtherFds()): one poll() over the transport fd and
//   every watched fd, until the deadline or the next timer;
// - an fd that must be polled alone (umad2sim: its poll() sees only its fake
//   fd): a zero-timeout poll() of the watched fds, then transport.receive()
//   until kAloneSlice after that look, in turn, so other fds wait at most
//   that long (and are looked at no more often than kAloneLookEvery);
// - no fd (pollFd() -1, the in-memory fake): the watched fds are polled
//   without waiting, then transport.receive() waits on the transport's own
//   clock until the deadline or the next timer -- which is how unit tests
//   run minutes of daemon life, timers included, in milliseconds.
//
// Handlers must not run the MAD engine (they run inside its waits); they
// may cancel it, watch, unwatch, and set or cancel timers. A watched fd is
// level-triggered: a handler that leaves it readable is called again.
#pragma once

#include <poll.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "sm/mad/MadTransport.h"

namespace ibsm::sm::loop {

class EventLoop final : public MadWaiter {
 public:
  using Clock = std::function<MadClock::time_point()>;
  using Handler = std::function<void()>;
  using TimerId = std::uint64_t;
  // poll(2), replaceable so tests can stand in for umad2sim's.
  using PollFn = std::function<int(pollfd* fds, nfds_t count, int timeoutMs)>;

  // The longest wait on a transport fd that must be polled alone, i.e. how
  // late another fd may be seen on ibsim. Well under the 100 ms in which
  // the daemon promises to answer.
  static constexpr std::chrono::milliseconds kAloneSlice{10};
  // ...and how often at most they are looked at while MADs keep coming: a
  // sweep reads thousands of MADs a second, and under umad2sim every poll()
  // takes the lock its receiver thread needs for each MAD.
  static constexpr std::chrono::milliseconds kAloneLookEvery{1};

  // `clock` defaults to MadClock (steady_clock); give the engine the same
  // (clock()), so there is one time in the program.
  explicit EventLoop(Clock clock = {}, PollFn poll = {});
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  const Clock& clock() const { return clock_; }
  MadClock::time_point now() const { return clock_(); }

  // Calls `onReadable` whenever `fd` is readable (or hung up), from inside
  // waits, until unwatch(fd). Watching an fd again replaces its handler.
  void watch(int fd, Handler onReadable);
  void unwatch(int fd);
  // Calls `handler` once, from inside the first wait at or after `when`.
  TimerId at(MadClock::time_point when, Handler handler);
  void cancel(TimerId id);

  // MadWaiter: the next MAD before `deadline`; nullopt at the deadline or
  // as soon as any handler ran.
  [[nodiscard]] Result<std::optional<ReceivedMad>> receive(MadTransport& transport,
                                                           MadClock::time_point deadline) override;

 private:
  struct Timer {
    TimerId id;
    Handler handler;
  };

  // Runs the timers that are due; true if any ran.
  bool runDueTimers();
  std::optional<MadClock::time_point> nextTimer() const;
  // poll() over the watched fds (and `transportFd` first, when >= 0) for up
  // to `timeoutMs`; runs the handlers of those readable. Sets
  // `transportReady`; returns whether a handler ran, or the poll error.
  Result<bool> pollAndDispatch(int transportFd, int timeoutMs, bool& transportReady);
  int msUntil(MadClock::time_point t) const;

  Clock clock_;
  PollFn poll_;
  MadClock::time_point lastLook_{};  // alone: when the watched fds were last polled
  std::vector<pollfd> fds_;          // poll()'s array, kept to spare an allocation per MAD
  std::map<int, Handler> watched_;
  std::multimap<MadClock::time_point, Timer> timers_;
  TimerId lastTimer_{0};
};

}  // namespace ibsm::sm::loop
