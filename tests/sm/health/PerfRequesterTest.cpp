// The PerfMgt requester on a fake clock and a port that only records:
// window, timeouts and retries with the same TID, late and duplicate
// answers, TID matching, refused sends, pause and cancel.
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>

#include <algorithm>
#include <sstream>
#include <vector>

#include "sm/health/PerfRequester.h"

namespace ibsm::sm::health {
namespace {

using namespace std::chrono_literals;

struct Wire {
  struct Sent {
    PerfMad mad;
    GmpAddress to;
  };
  MadClock::time_point now{};
  std::vector<Sent> sent;
  std::vector<std::optional<MadClock::time_point>> wakes;
  bool refuse{false};

  PerfRequesterIo io() {
    return PerfRequesterIo{
        .send = [this](std::span<const std::uint8_t> bytes, const GmpAddress& to) -> Result<void> {
          if (refuse) return fail("refused");
          sent.push_back({*decodePerfMad(bytes), to});
          return {};
        },
        .clock = [this] { return now; },
        .wakeAt = [this](std::optional<MadClock::time_point> t) { wakes.push_back(t); },
    };
  }
  // The answer to the i-th GMP sent, with `status`, and the kernel's bits
  // in the TID's upper half.
  PerfMadBytes answerTo(std::size_t i, std::uint16_t status = 0) const {
    PerfMad a = sent.at(i).mad;
    a.method = perfMethod::kGetResp;
    a.status = status;
    a.tid |= 0xABCD000000000000;
    return encode(a);
  }
};

PerfRequest get(std::uint16_t lid, std::uint32_t modifier = 0) {
  PerfRequest r;
  r.to.lid = Lid{lid};
  r.attributeModifier = modifier;
  return r;
}

struct Done {
  std::vector<PerfReply> replies;
  PerfCallback callback() {
    return [this](const PerfReply& r) { replies.push_back(r); };
  }
};

TEST(PerfRequester, KeepsAtMostTheWindowOutstandingAndRefillsAsAnswersCome) {
  Wire wire;
  PerfRequester perf(wire.io(), {.window = 2, .timeout = 100ms, .retries = 1});
  Done done;
  for (std::uint16_t lid = 1; lid <= 5; ++lid) perf.submit(get(lid), done.callback());
  ASSERT_EQ(wire.sent.size(), 2U);
  EXPECT_EQ(perf.outstanding(), 2U);
  EXPECT_TRUE(perf.deliver(wire.answerTo(0)));
  EXPECT_EQ(wire.sent.size(), 3U);
  for (std::size_t i = 1; i < 5; ++i) {
    EXPECT_TRUE(perf.deliver(wire.answerTo(i)));
  }
  EXPECT_TRUE(perf.idle());
  ASSERT_EQ(done.replies.size(), 5U);
  for (const PerfReply& r : done.replies) EXPECT_TRUE(r.ok());
  EXPECT_EQ(wire.sent[4].to.lid, Lid{5});
  EXPECT_EQ(wire.sent[4].to.qpn, 1U);
  EXPECT_EQ(perf.counters().sent, 5U);
  EXPECT_EQ(perf.counters().answered, 5U);
}

// `--log-level trace`: one line per GMP that ended, answered or not.
TEST(PerfRequester, TracesOneLinePerGmpThatEndedAtTraceLevel) {
  Wire wire;
  PerfRequester perf(wire.io(), {.window = 4, .timeout = 100ms, .retries = 0});
  std::ostringstream text;
  auto logger = std::make_shared<spdlog::logger>(
      "perf", std::make_shared<spdlog::sinks::ostream_sink_st>(text));
  logger->set_level(spdlog::level::trace);
  perf.traceTo(logger);
  Done done;
  perf.submit(get(7, 3), done.callback());
  perf.submit(get(9), done.callback());
  wire.now += 25us;
  EXPECT_TRUE(perf.deliver(wire.answerTo(0)));
  wire.now += 100ms;
  perf.expire();
  ASSERT_EQ(done.replies.size(), 2U);
  EXPECT_EQ(perf.traceCounters().lines, 2U);
  EXPECT_NE(text.str().find("MAD-0113 PerfGet(PortCounters 0x0012, mod 0x3) LID 7: ok in 25 us, "
                            "attempt 1"),
            std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("MAD-0113 PerfGet(PortCounters 0x0012, mod 0x0) LID 9: timeout in "
                            "100025 us, attempt 1"),
            std::string::npos)
      << text.str();

  logger->set_level(spdlog::level::debug);
  perf.submit(get(11), done.callback());
  EXPECT_TRUE(perf.deliver(wire.answerTo(2)));
  EXPECT_EQ(perf.traceCounters().lines, 2U) << "nothing traced below trace level";
}

TEST(PerfRequester, RetriesWithTheSameTidThenTimesOut) {
  Wire wire;
  PerfRequester perf(wire.io(), {.window = 4, .timeout = 100ms, .retries = 2});
  Done done;
  perf.submit(get(7), done.callback());
  ASSERT_EQ(wire.wakes.back(), wire.now + 100ms);
  wire.now += 99ms;
  perf.expire();
  EXPECT_EQ(wire.sent.size(), 1U) << "not due yet";
  for (int i = 0; i < 3; ++i) {
    wire.now += 100ms;
    perf.expire();
  }
  ASSERT_EQ(wire.sent.size(), 3U) << "one try and two retries";
  EXPECT_EQ(wire.sent[1].mad.tid, wire.sent[0].mad.tid);
  EXPECT_EQ(wire.sent[2].mad.tid, wire.sent[0].mad.tid);
  ASSERT_EQ(done.replies.size(), 1U);
  EXPECT_EQ(done.replies[0].outcome, PerfOutcome::Timeout);
  EXPECT_EQ(done.replies[0].attempts, 3U);
  EXPECT_EQ(perf.counters().timeouts, 1U);
  EXPECT_EQ(perf.counters().retries, 2U);
  EXPECT_EQ(wire.wakes.back(), std::nullopt) << "idle: no timer wanted";
}

TEST(PerfRequester, ALateAnswerToTheFirstTryCompletesTheRetriedRequestOnce) {
  Wire wire;
  PerfRequester perf(wire.io(), {.window = 4, .timeout = 100ms, .retries = 2});
  Done done;
  perf.submit(get(7), done.callback());
  wire.now += 100ms;
  perf.expire();
  ASSERT_EQ(wire.sent.size(), 2U);
  EXPECT_TRUE(perf.deliver(wire.answerTo(0)));
  EXPECT_FALSE(perf.deliver(wire.answerTo(1))) << "the retry's answer, a duplicate";
  ASSERT_EQ(done.replies.size(), 1U);
  EXPECT_TRUE(done.replies[0].ok());
  EXPECT_EQ(done.replies[0].attempts, 2U);
  EXPECT_EQ(perf.counters().unmatched, 1U);
}

TEST(PerfRequester, AnswersGoToTheirOwnRequestByTidInAnyOrder) {
  Wire wire;
  PerfRequester perf(wire.io(), {.window = 4, .timeout = 100ms, .retries = 0});
  std::vector<std::uint32_t> order;
  for (std::uint32_t m = 1; m <= 3; ++m) {
    perf.submit(get(1, m), [&order, m](const PerfReply& r) {
      EXPECT_EQ(r.mad->attributeModifier, m);
      order.push_back(m);
    });
  }
  PerfMad stranger = wire.sent[0].mad;
  stranger.method = perfMethod::kGetResp;
  stranger.tid = 0xFFFF;
  EXPECT_FALSE(perf.deliver(encode(stranger)));
  PerfMad request = wire.sent[0].mad;  // a request, not an answer
  EXPECT_FALSE(perf.deliver(encode(request)));
  EXPECT_TRUE(perf.deliver(wire.answerTo(2)));
  EXPECT_TRUE(perf.deliver(wire.answerTo(0)));
  EXPECT_TRUE(perf.deliver(wire.answerTo(1)));
  EXPECT_EQ(order, (std::vector<std::uint32_t>{3, 1, 2}));
  EXPECT_EQ(perf.counters().unmatched, 2U);
  EXPECT_NE(wire.sent[0].mad.tid, wire.sent[1].mad.tid);
}

TEST(PerfRequester, ANonZeroStatusIsAnErrorAndACutMadIsNotAnAnswer) {
  Wire wire;
  PerfRequester perf(wire.io(), {.window = 4, .timeout = 100ms, .retries = 0});
  Done done;
  perf.submit(get(1), done.callback());
  const PerfMadBytes answer = wire.answerTo(0, 0x001C);
  EXPECT_FALSE(perf.deliver(std::span(answer).first(100)));
  EXPECT_TRUE(perf.deliver(answer));
  ASSERT_EQ(done.replies.size(), 1U);
  EXPECT_EQ(done.replies[0].outcome, PerfOutcome::BadStatus);
  EXPECT_EQ(done.replies[0].mad->status, 0x001C);
  EXPECT_EQ(perf.counters().errors, 1U);
}

TEST(PerfRequester, ARefusedSendCompletesAtOnceAndTheWindowMovesOn) {
  Wire wire;
  PerfRequester perf(wire.io(), {.window = 1, .timeout = 100ms, .retries = 0});
  Done done;
  wire.refuse = true;
  perf.submit(get(1), done.callback());
  wire.refuse = false;
  perf.submit(get(2), done.callback());
  ASSERT_EQ(done.replies.size(), 1U);
  EXPECT_EQ(done.replies[0].outcome, PerfOutcome::SendFailed);
  EXPECT_EQ(wire.sent.size(), 1U);
  EXPECT_EQ(perf.counters().sendFailures, 1U);
}

TEST(PerfRequester, PausedItSendsNothingNewAndRetriesWaitForTheResume) {
  Wire wire;
  PerfRequester perf(wire.io(), {.window = 4, .timeout = 100ms, .retries = 1});
  Done done;
  perf.submit(get(1), done.callback());
  perf.pause(true);
  perf.submit(get(2), done.callback());
  wire.now += 100ms;
  perf.expire();
  EXPECT_EQ(wire.sent.size(), 1U) << "neither the new request nor the retry while paused";
  perf.pause(false);
  ASSERT_EQ(wire.sent.size(), 3U);
  EXPECT_EQ(wire.sent[1].mad.tid, wire.sent[0].mad.tid) << "the retry first, same TID";
  EXPECT_EQ(wire.sent[2].to.lid, Lid{2});
}

TEST(PerfRequester, CancelAllCompletesEverythingIncludingWhatCallbacksSubmit) {
  Wire wire;
  PerfRequester perf(wire.io(), {.window = 1, .timeout = 100ms, .retries = 1});
  std::vector<PerfOutcome> outcomes;
  auto record = [&](const PerfReply& r) { outcomes.push_back(r.outcome); };
  perf.submit(get(1), [&](const PerfReply& r) {
    record(r);
    perf.submit(get(3), record);
  });
  perf.submit(get(2), record);
  perf.cancelAll();
  EXPECT_TRUE(perf.idle());
  EXPECT_EQ(outcomes.size(), 3U);
  EXPECT_TRUE(
      std::ranges::all_of(outcomes, [](PerfOutcome o) { return o == PerfOutcome::Cancelled; }));
  EXPECT_EQ(wire.sent.size(), 1U) << "nothing sent while cancelling";
  EXPECT_EQ(perf.counters().cancelled, 3U);
}

}  // namespace
}  // namespace ibsm::sm::health
