// The requester's window when a user says how long an attempt's answer is
// due (the holds hook): an overdue request gives its place in the window
// to the next request but still waits for its answer and its timeout, and
// overdue requests are bounded. On a fake clock.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sm/mad/Requester.h"

namespace ibsm::sm::mad {
namespace {

using namespace std::chrono_literals;

struct Ask {
  std::string name;
};

struct Wire {
  MadClock::time_point now{};
  std::vector<std::pair<std::string, std::uint32_t>> sent;  // name, TID
  std::vector<std::pair<std::string, RequestOutcome>> ended;

  RequesterHooks<Ask, int> hooks(std::chrono::milliseconds hold,
                                 std::chrono::milliseconds timeout) {
    return {
        .send =
            [this](Ask& a, std::uint32_t tid, unsigned) {
              sent.emplace_back(a.name, tid);
              return true;
            },
        .timeout = [timeout](const Ask&, unsigned) { return timeout; },
        .holds = [hold](const Ask&, unsigned) { return hold; },
        .attempts = [](const Ask&) { return 2U; },
        .complete = [this](Ask& a, Completion<int>&& c) { ended.emplace_back(a.name, c.outcome); },
        .clock = [this] { return now; },
        .retrying = {},
        .wakeAt = {}};
  }
};

TEST(RequesterHold, AnOverdueRequestGivesItsPlaceButItsAnswerStillCompletesIt) {
  Wire w;
  Requester<Ask, int> r(w.hooks(10ms, 100ms), {.window = 1});
  r.submit(Ask{"a"});
  r.submit(Ask{"b"});
  r.pump();
  ASSERT_EQ(w.sent.size(), 1U);
  // Still due: the window is full and stays so.
  w.now += 9ms;
  r.expire();
  EXPECT_EQ(w.sent.size(), 1U);
  EXPECT_EQ(r.nextDeadline(), MadClock::time_point{} + 10ms);  // woken when the hold ends
  w.now += 1ms;
  r.expire();
  ASSERT_EQ(w.sent.size(), 2U);
  EXPECT_EQ(w.sent[1].first, "b");
  EXPECT_EQ(r.outstanding(), 2U);
  EXPECT_EQ(r.inWindow(), 1U);
  // a's late answer: same TID, completes it; no retry went out.
  EXPECT_TRUE(r.deliver(w.sent[0].second, 7, false));
  EXPECT_EQ(w.ended.at(0), std::make_pair(std::string("a"), RequestOutcome::Ok));
  EXPECT_EQ(r.inWindow(), 1U);
  EXPECT_EQ(r.outstanding(), 1U);
}

TEST(RequesterHold, WithoutTheHookARequestHoldsItsPlaceUntilItsTimeout) {
  Wire w;
  auto hooks = w.hooks(10ms, 100ms);
  hooks.holds = {};
  Requester<Ask, int> r(std::move(hooks), {.window = 1});
  r.submit(Ask{"a"});
  r.submit(Ask{"b"});
  r.pump();
  w.now += 50ms;
  r.expire();
  EXPECT_EQ(w.sent.size(), 1U);
  EXPECT_EQ(r.inWindow(), 1U);
}

TEST(RequesterHold, OverdueRequestsAreBoundedToWindowsWorth) {
  Wire w;
  const std::size_t window = 2;
  Requester<Ask, int> r(w.hooks(1ms, 1000ms), {.window = window});
  for (int i = 0; i < 40; ++i) r.submit(Ask{std::to_string(i)});
  r.pump();
  std::size_t most = 0;
  for (int t = 0; t < 30; ++t) {
    w.now += 1ms;
    r.expire();
    most = std::max(most, r.outstanding());
    EXPECT_LE(r.inWindow(), window);
  }
  const std::size_t bound = window * (1 + Requester<Ask, int>::kWaitingPerWindow);
  EXPECT_EQ(most, bound);
  EXPECT_EQ(w.sent.size(), bound);  // nothing more went out: no answer, no timeout yet
}

TEST(RequesterHold, AnOverdueRequestsRetryWaitsForRoomAtTheQueuesHead) {
  Wire w;
  Requester<Ask, int> r(w.hooks(5ms, 8ms), {.window = 1});
  r.submit(Ask{"a"});
  r.submit(Ask{"b"});
  r.submit(Ask{"c"});
  r.pump();  // a, due until 5 ms, times out at 8 ms
  w.now += 5ms;
  r.expire();  // a overdue: b, due until 10 ms
  ASSERT_EQ(w.sent.size(), 2U);
  w.now += 3ms;
  r.expire();  // a's timeout: its retry waits, b still due
  EXPECT_EQ(w.sent.size(), 2U);
  EXPECT_EQ(r.queued(), 2U);
  w.now += 2ms;
  r.expire();  // b overdue: a's retry goes first, with its TID
  ASSERT_EQ(w.sent.size(), 3U);
  EXPECT_EQ(w.sent[2], w.sent[0]);
}

}  // namespace
}  // namespace ibsm::sm::mad
