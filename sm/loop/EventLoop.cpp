#include "sm/loop/EventLoop.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

namespace ibsm::sm::loop {

EventLoop::EventLoop(Clock clock, PollFn poll) : clock_(std::move(clock)), poll_(std::move(poll)) {
  if (!clock_) clock_ = [] { return MadClock::now(); };
  if (!poll_)
    poll_ = [](pollfd* fds, nfds_t n, int timeoutMs) { return ::poll(fds, n, timeoutMs); };
}

void EventLoop::watch(int fd, Handler onReadable) {
  watched_[fd] = std::move(onReadable);
}

void EventLoop::unwatch(int fd) {
  watched_.erase(fd);
}

EventLoop::TimerId EventLoop::at(MadClock::time_point when, Handler handler) {
  const TimerId id = ++lastTimer_;
  timers_.emplace(when, Timer{id, std::move(handler)});
  return id;
}

void EventLoop::cancel(TimerId id) {
  std::erase_if(timers_, [id](const auto& entry) { return entry.second.id == id; });
}

std::optional<MadClock::time_point> EventLoop::nextTimer() const {
  if (timers_.empty()) return std::nullopt;
  return timers_.begin()->first;
}

bool EventLoop::runDueTimers() {
  const auto t = now();
  std::vector<Handler> due;
  while (!timers_.empty() && timers_.begin()->first <= t) {
    due.push_back(std::move(timers_.begin()->second.handler));
    timers_.erase(timers_.begin());
  }
  // Taken out first: a handler may set or cancel timers.
  for (auto& h : due) h();
  return !due.empty();
}

int EventLoop::msUntil(MadClock::time_point t) const {
  if (t == MadClock::time_point::max()) return -1;
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(t - now()).count();
  return static_cast<int>(std::clamp<long long>(left, 0, INT_MAX));
}

Result<bool> EventLoop::pollAndDispatch(int transportFd, int timeoutMs, bool& transportReady) {
  auto& fds = fds_;
  fds.clear();
  if (transportFd >= 0) fds.push_back({.fd = transportFd, .events = POLLIN, .revents = 0});
  for (const auto& [fd, handler] : watched_)
    fds.push_back({.fd = fd, .events = POLLIN, .revents = 0});
  transportReady = false;
  const int n = poll_(fds.data(), fds.size(), timeoutMs);
  if (n < 0 && errno == EINTR) return false;
  if (n < 0) return fail(fmt::format("poll failed: {}", std::strerror(errno)));
  bool ran = false;
  for (std::size_t i = 0; i < fds.size(); ++i) {
    const pollfd& p = fds[i];
    if (p.revents == 0) continue;
    if (transportFd >= 0 && i == 0) {
      transportReady = true;
      continue;
    }
    auto it = watched_.find(p.fd);
    if (it == watched_.end()) continue;  // unwatched by an earlier handler of this round
    if ((p.revents & POLLNVAL) != 0) {
      // Closed without unwatch(): a caller's bug; calling it again would spin.
      watched_.erase(it);
      continue;
    }
    // A copy: the handler may unwatch (and so destroy) itself.
    const Handler handler = it->second;
    handler();
    ran = true;
  }
  return ran;
}

Result<std::optional<ReceivedMad>> EventLoop::receive(MadTransport& transport,
                                                      MadClock::time_point deadline) {
  const int fd = transport.pollFd();
  const bool alone = fd < 0 || !transport.pollsWithOtherFds();
  for (;;) {
    if (runDueTimers()) return std::nullopt;
    auto until = deadline;
    if (auto next = nextTimer()) until = std::min(until, *next);
    bool transportReady = false;
    if (alone) {
      // The others first, without waiting; then the wire by itself. (A
      // transport without an fd waits on its own clock: look every time.)
      if (!watched_.empty() && (fd < 0 || now() - lastLook_ >= kAloneLookEvery)) {
        lastLook_ = now();
        auto ran = pollAndDispatch(-1, 0, transportReady);
        if (!ran) return std::unexpected(ran.error());
        if (*ran) return std::nullopt;
      }
      if (fd >= 0 && !watched_.empty()) until = std::min(until, lastLook_ + kAloneSlice);
      auto in = transport.receive(until);
      if (!in || *in) return in;
    } else {
      auto ran = pollAndDispatch(fd, msUntil(until), transportReady);
      if (!ran) return std::unexpected(ran.error());
      if (transportReady) {
        auto in = transport.receive(now());
        if (!in || *in) return in;
      }
      if (*ran) return std::nullopt;
    }
    if (now() >= deadline) return std::nullopt;
  }
}

}  // namespace ibsm::sm::loop
