// The one requester, as its users see it: a window with a FIFO queue
// behind it, TIDs unique while outstanding, retries that resend the same
// TID (so a late answer to an earlier attempt completes the request), a
// Timeout after the last attempt, cancel completing everything exactly
// once, answers to nothing counted, hooks that submit more. On a fake
// clock and a wire that only records what was sent.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "sm/mad/Requester.h"
#include "tests/sm/mad/RequesterWorld.h"

namespace ibsm::sm::mad {
namespace {

using testing::Ask;
using testing::Ended;
using testing::Sent;
using testing::World;

using namespace std::chrono_literals;

TEST(Requester, KeepsAtMostTheWindowOutstandingAndSendsTheQueueInOrder) {
  World w;
  Requester<Ask, int> r(w.hooks(), {.window = 2});
  for (const char* n : {"a", "b", "c", "d", "e"}) r.submit(Ask{.name = n});
  EXPECT_TRUE(w.sent.empty());  // submit only queues
  r.pump();
  EXPECT_EQ(w.sentNames(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(r.outstanding(), 2U);
  EXPECT_EQ(r.queued(), 3U);

  EXPECT_TRUE(r.deliver(w.tidOf("b"), 2, false));
  r.pump();
  EXPECT_EQ(w.sentNames(), (std::vector<std::string>{"a", "b", "c"}));
  for (const char* n : {"a", "c", "d", "e"}) {
    EXPECT_TRUE(r.deliver(w.tidOf(n), 0, false)) << n;
    r.pump();
  }
  EXPECT_TRUE(r.idle());
  EXPECT_EQ(w.sentNames(), (std::vector<std::string>{"a", "b", "c", "d", "e"}));
  EXPECT_EQ(w.ended.size(), 5U);
  EXPECT_EQ(r.counters().sent, 5U);
  EXPECT_EQ(r.counters().answered, 5U);
}

TEST(Requester, NeverHasMoreThanTheWindowOnTheWire) {
  World w;
  Requester<Ask, int> r(w.hooks(), {.window = 3});
  for (int i = 0; i < 20; ++i) r.submit(Ask{.name = std::to_string(i)});
  r.pump();
  std::size_t most = 0;
  std::size_t answered = 0;
  while (!r.idle()) {
    most = std::max(most, r.outstanding());
    ASSERT_TRUE(r.deliver(w.sent.at(answered++).tid, 0, false));
    r.pump();
  }
  EXPECT_EQ(most, 3U);
  ASSERT_EQ(w.ended.size(), 20U);
  for (std::size_t i = 0; i < w.ended.size(); ++i) EXPECT_EQ(w.ended[i].name, std::to_string(i));
}

// Outstanding requests' records are reused once answered or expired (no
// allocation per request): a reused record must answer to its new TID,
// carry its new request and deadline, and leave nothing of the old one.
TEST(Requester, ARecordReusedAfterAnAnswerOrATimeoutServesOnlyItsNewRequest) {
  World w;
  Requester<Ask, int> r(w.hooks(), {.window = 2});
  r.submit(Ask{.name = "answered"});
  r.submit(Ask{.name = "lost", .timeout = 10ms, .attempts = 1});
  r.pump();
  const std::uint32_t answeredTid = w.tidOf("answered");
  ASSERT_TRUE(r.deliver(answeredTid, 1, false));
  w.now += 10ms;
  r.expire();  // "lost" ends as Timeout; both records are free for reuse
  r.submit(Ask{.name = "next", .timeout = 50ms});
  r.submit(Ask{.name = "last", .timeout = 50ms});
  r.pump();
  EXPECT_FALSE(r.deliver(answeredTid, 9, false));  // the old TID completes nothing now
  EXPECT_FALSE(r.deliver(w.tidOf("lost"), 9, false));
  w.now += 20ms;
  r.expire();  // the reused records carry the new deadlines: nothing expires yet
  EXPECT_EQ(r.outstanding(), 2U);
  EXPECT_TRUE(r.deliver(w.tidOf("last"), 4, false));
  EXPECT_TRUE(r.deliver(w.tidOf("next"), 3, false));
  ASSERT_EQ(w.ended.size(), 4U);
  EXPECT_EQ(w.ended[1].name, "lost");
  EXPECT_EQ(w.ended[1].how.outcome, RequestOutcome::Timeout);
  EXPECT_EQ(w.ended[2].name, "last");
  EXPECT_EQ(w.ended[2].how.answer, 4);
  EXPECT_EQ(w.ended[3].name, "next");
  EXPECT_EQ(w.ended[3].how.answer, 3);
  EXPECT_EQ(r.counters().unmatched, 2U);
}

TEST(Requester, GivesEveryOutstandingRequestItsOwnNonZeroTid) {
  World w;
  Requester<Ask, int> r(w.hooks(), {.window = 8, .firstTid = 0xFFFFFFFE});
  for (int i = 0; i < 8; ++i) r.submit(Ask{.name = std::to_string(i)});
  r.pump();
  std::vector<std::uint32_t> tids;
  for (const Sent& s : w.sent) tids.push_back(s.tid);
  std::ranges::sort(tids);
  EXPECT_EQ(std::ranges::adjacent_find(tids), tids.end());
  EXPECT_EQ(std::ranges::count(tids, 0U), 0);  // the count wrapped past 0 without using it
  EXPECT_EQ(tids.front(), 1U);
}

TEST(Requester, RetriesWithTheSameTidSoALateAnswerToTheFirstAttemptCompletes) {
  World w;
  Requester<Ask, int> r(w.hooks(), {.window = 4});
  r.submit(Ask{.name = "slow", .timeout = 100ms, .attempts = 3});
  r.pump();
  w.now += 100ms;
  r.expire();
  ASSERT_EQ(w.sent.size(), 2U);
  EXPECT_EQ(w.sent[1].tid, w.sent[0].tid);
  EXPECT_EQ(w.sent[1].attempt, 2U);
  EXPECT_EQ(r.counters().retried, 1U);

  // The answer to the first attempt arrives now: it carries the same TID.
  EXPECT_TRUE(r.deliver(w.sent[0].tid, 42, false));
  ASSERT_EQ(w.ended.size(), 1U);
  EXPECT_EQ(w.ended[0].how.outcome, RequestOutcome::Ok);
  EXPECT_EQ(w.ended[0].how.answer, 42);
  EXPECT_EQ(w.ended[0].how.attempts, 2U);
  // The second attempt's answer finds nothing: counted, dropped.
  EXPECT_FALSE(r.deliver(w.sent[1].tid, 42, false));
  EXPECT_EQ(r.counters().unmatched, 1U);
  EXPECT_EQ(w.ended.size(), 1U);
}

TEST(Requester, TimesOutAfterItsLastAttemptEachWaitingItsOwnTimeout) {
  World w;
  Requester<Ask, int> r(w.hooks(), {.window = 4});
  r.submit(Ask{.name = "dead", .timeout = 50ms, .attempts = 3});
  r.pump();
  EXPECT_EQ(r.nextDeadline(), w.now + 50ms);
  w.now += 49ms;
  r.expire();
  EXPECT_EQ(w.sent.size(), 1U);  // not yet due
  for (int i = 0; i < 3; ++i) {
    w.now += 50ms;
    r.expire();
  }
  EXPECT_EQ(w.sent.size(), 3U);
  ASSERT_EQ(w.ended.size(), 1U);
  EXPECT_EQ(w.ended[0].how.outcome, RequestOutcome::Timeout);
  EXPECT_EQ(w.ended[0].how.attempts, 3U);
  EXPECT_FALSE(w.ended[0].how.answer);
  EXPECT_EQ(r.counters().timedOut, 1U);
  EXPECT_EQ(r.counters().retried, 2U);
  EXPECT_EQ(r.counters().sent, 3U);
  EXPECT_TRUE(r.idle());
  EXPECT_FALSE(r.nextDeadline());
}

TEST(Requester, AsksTheAttemptsAtEachTimeoutSoAPolicyMayGrowThem) {
  World w;
  unsigned allowed = 1;
  auto hooks = w.hooks();
  hooks.attempts = [&](const Ask&) { return allowed; };
  Requester<Ask, int> r(std::move(hooks), {.window = 1});
  r.submit(Ask{.name = "lossy"});
  r.pump();
  allowed = 5;  // the path turned out lossy: MadLoss grants more attempts
  for (int i = 0; i < 4; ++i) {
    w.now += 100ms;
    r.expire();
  }
  EXPECT_EQ(w.sent.size(), 5U);
  EXPECT_TRUE(w.ended.empty());
  EXPECT_TRUE(r.deliver(w.tidOf("lossy"), 1, false));
  EXPECT_EQ(w.ended.at(0).how.attempts, 5U);
}

TEST(Requester, ABadStatusIsAnAnswerToo) {
  World w;
  Requester<Ask, int> r(w.hooks(), {.window = 1});
  r.submit(Ask{.name = "busy"});
  r.pump();
  EXPECT_TRUE(r.deliver(w.tidOf("busy"), 7, true));
  ASSERT_EQ(w.ended.size(), 1U);
  EXPECT_EQ(w.ended[0].how.outcome, RequestOutcome::BadStatus);
  EXPECT_EQ(w.ended[0].how.answer, 7);
  EXPECT_EQ(r.counters().badStatus, 1U);
  EXPECT_EQ(r.counters().answered, 1U);
}

TEST(Requester, CountsAnswersToNothingOutstandingOrThatTheUserRefuses) {
  World w;
  Requester<Ask, int> r(w.hooks(), {.window = 1});
  EXPECT_FALSE(r.deliver(1234, 0, false));
  r.submit(Ask{.name = "a"});
  r.pump();
  EXPECT_FALSE(r.deliver(w.tidOf("a"), 0, false, [](const Ask&) { return false; }));
  r.countUnmatched();
  EXPECT_EQ(r.counters().unmatched, 3U);
  EXPECT_EQ(r.outstanding(), 1U);  // still waiting for its own answer
}

TEST(Requester, ARefusedSendCompletesAtOnceAndTheWindowGoesOn) {
  World w;
  Requester<Ask, int> r(w.hooks(), {.window = 1});
  w.refuse = true;
  r.submit(Ask{.name = "a"});
  r.submit(Ask{.name = "b"});
  r.pump();
  ASSERT_EQ(w.ended.size(), 2U);
  EXPECT_EQ(w.ended[0].how.outcome, RequestOutcome::SendFailed);
  EXPECT_EQ(w.ended[0].how.attempts, 1U);
  EXPECT_EQ(r.counters().sendFailed, 2U);
  EXPECT_EQ(r.counters().sent, 0U);
  EXPECT_TRUE(r.idle());
}

TEST(Requester, CancelCompletesEverythingExactlyOnceEvenWhatCallbacksSubmit) {
  World w;
  Requester<Ask, int> r(w.hooks(), {.window = 2});
  w.requester = &r;
  for (const char* n : {"a", "b", "c", "d"}) r.submit(Ask{.name = n});
  r.pump();
  w.then = [&](const Ended& e) {
    if (e.name == "a") r.submit(Ask{.name = "from a's callback"});
  };
  EXPECT_EQ(r.cancelAll(), 5U);
  EXPECT_TRUE(r.idle());
  std::map<std::string, int> times;
  for (const Ended& e : w.ended) {
    ++times[e.name];
    EXPECT_EQ(e.how.outcome, RequestOutcome::Cancelled);
  }
  EXPECT_EQ(times.size(), 5U);
  for (const auto& [name, n] : times) EXPECT_EQ(n, 1) << name;
  EXPECT_EQ(w.sent.size(), 2U);  // cancelling sends nothing, queued never went out
  EXPECT_EQ(r.counters().cancelled, 5U);
  // What was outstanding ends first, by TID, then the queue in order.
  EXPECT_EQ(w.ended[0].name, "a");
  EXPECT_EQ(w.ended[2].name, "c");
  // Answers after the cancel find nothing.
  EXPECT_FALSE(r.deliver(w.tidOf("a"), 0, false));
}

TEST(Requester, CancelWithAnotherOutcomeCountsNothingAsCancelled) {
  World w;
  Requester<Ask, int> r(w.hooks(), {.window = 2});
  r.submit(Ask{.name = "a"});
  r.pump();
  EXPECT_EQ(r.cancelAll(RequestOutcome::TransportFailed), 1U);
  EXPECT_EQ(w.ended.at(0).how.outcome, RequestOutcome::TransportFailed);
  EXPECT_EQ(r.counters().cancelled, 0U);
}

TEST(Requester, CallbacksMaySubmitMoreWhichTheNextPumpSends) {
  World w;
  Requester<Ask, int> r(w.hooks(), {.window = 4});
  w.then = [&](const Ended& e) {
    if (e.name.size() < 3) r.submit(Ask{.name = e.name + "+"});
  };
  r.submit(Ask{.name = "a"});
  r.pump();
  while (!r.idle()) {
    ASSERT_TRUE(r.deliver(w.sent.back().tid, 0, false));
    r.pump();
  }
  EXPECT_EQ(w.sentNames(), (std::vector<std::string>{"a", "a+", "a++"}));
}

TEST(Requester, ARefusedSendsCallbackMaySubmitAndTheSamePumpTakesIt) {
  World w;
  Requester<Ask, int> r(w.hooks(), {.window = 1});
  w.refuse = true;
  w.then = [&](const Ended& e) {
    w.refuse = false;
    if (e.name == "a") r.submit(Ask{.name = "b"});
  };
  r.submit(Ask{.name = "a"});
  r.pump();
  EXPECT_EQ(w.sentNames(), (std::vector<std::string>{"b"}));
}

TEST(Requester, PausedSendsNothingAndARetryWaitsAtTheHeadWithItsTid) {
  World w;
  Requester<Ask, int> r(w.hooks(), {.window = 1});
  r.submit(Ask{.name = "a"});
  r.submit(Ask{.name = "b"});
  r.pump();
  r.pause(true);
  w.now += 100ms;
  r.expire();
  EXPECT_EQ(w.sent.size(), 1U);
  EXPECT_EQ(r.queued(), 2U);
  r.pause(false);
  ASSERT_EQ(w.sent.size(), 2U);
  EXPECT_EQ(w.sent[1].name, "a");
  EXPECT_EQ(w.sent[1].tid, w.sent[0].tid);
  EXPECT_EQ(w.sent[1].attempt, 2U);
}

TEST(Requester, AsksForATimerOnlyWhenItsEarliestDeadlineChangesOrWasSpent) {
  World w;
  Requester<Ask, int> r(w.hooks(), {.window = 4});
  r.submit(Ask{.name = "a", .timeout = 100ms});
  r.pump();
  ASSERT_EQ(w.wakes.size(), 1U);
  EXPECT_EQ(w.wakes[0], w.now + 100ms);
  w.now += 10ms;
  r.submit(Ask{.name = "b", .timeout = 100ms});
  r.pump();
  EXPECT_EQ(w.wakes.size(), 1U);  // a's deadline is still the earliest
  EXPECT_TRUE(r.deliver(w.tidOf("a"), 0, false));
  r.pump();
  ASSERT_EQ(w.wakes.size(), 2U);
  EXPECT_EQ(w.wakes[1], w.now + 100ms);  // b's
  EXPECT_TRUE(r.deliver(w.tidOf("b"), 0, false));
  r.pump();
  EXPECT_EQ(w.wakes.back(), std::nullopt);
}

TEST(Requester, HandsOutTidsForMadsSentOutsideTheWindowThatNoRequestHolds) {
  World w;
  Requester<Ask, int> r(w.hooks(), {.window = 2});
  r.submit(Ask{.name = "a"});
  r.pump();
  const std::uint32_t trap = r.takeTid();
  EXPECT_NE(trap, w.tidOf("a"));
  r.submit(Ask{.name = "b"});
  r.pump();
  EXPECT_NE(w.tidOf("b"), trap);
  EXPECT_NE(w.tidOf("b"), w.tidOf("a"));
}

}  // namespace
}  // namespace ibsm::sm::mad
