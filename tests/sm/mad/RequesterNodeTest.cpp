// The requester's window per node (RequesterOptions::perNodeWindow, the
// node hook; sm/mad/NodeQueues.h): at most N requests in the window to one
// node, the rest held in that node's FIFO while requests to other nodes
// fill the window; a held request goes out when one of its node's leaves
// the window (answered, timed out, or past its hold), nodes served in the
// order they freed a place. On a fake clock and a wire that records sends.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sm/mad/Requester.h"

namespace ibsm::sm::mad {
namespace {

using namespace std::chrono_literals;

// "a1": a request to node 'a'.
struct Ask {
  std::string name;
  std::chrono::milliseconds timeout{100ms};
  std::chrono::milliseconds holds{100ms};
  unsigned attempts{3};
};

struct World {
  MadClock::time_point now{};
  std::vector<std::string> sent;
  std::vector<std::string> ended;
  std::vector<std::uint32_t> tids;

  RequesterHooks<Ask, int> hooks() {
    return {.send =
                [this](Ask& a, std::uint32_t tid, unsigned) {
                  sent.push_back(a.name);
                  tids.push_back(tid);
                  return true;
                },
            .timeout = [](const Ask& a, unsigned) { return a.timeout; },
            .holds = [](const Ask& a, unsigned) { return a.holds; },
            .node = [](const Ask& a) { return static_cast<std::uint64_t>(a.name.at(0)); },
            .attempts = [](const Ask& a) { return a.attempts; },
            .complete = [this](Ask& a, Completion<int>&&) { ended.push_back(a.name); },
            .clock = [this] { return now; },
            .retrying = {},
            .wakeAt = {}};
  }
  std::uint32_t tidOf(const std::string& name) const {
    for (std::size_t i = 0; i < sent.size(); ++i)
      if (sent[i] == name) return tids[i];
    ADD_FAILURE() << name << " was never sent";
    return 0;
  }
};

using Names = std::vector<std::string>;

TEST(RequesterNode, AFullNodeHoldsItsRequestsWhileOthersFillTheWindow) {
  World w;
  Requester<Ask, int> r(w.hooks(), {.window = 4, .perNodeWindow = 2});
  for (const char* n : {"a1", "a2", "a3", "a4", "b1", "c1", "c2", "c3"}) r.submit({.name = n});
  r.pump();
  // a3, a4 and c3 wait for their node; b1 and c1, c2 behind them do not.
  EXPECT_EQ(w.sent, (Names{"a1", "a2", "b1", "c1"}));
  EXPECT_EQ(r.inWindow(), 4U);
  EXPECT_EQ(r.queued(), 4U);
  EXPECT_EQ(r.heldForNode(), 2U);  // a3, a4; c2 and c3 are still in the queue

  ASSERT_TRUE(r.deliver(w.tidOf("b1"), 0, false));
  r.pump();  // b's place goes to the next in the queue: c2 (c has room)
  EXPECT_EQ(w.sent.back(), "c2");
  ASSERT_TRUE(r.deliver(w.tidOf("a1"), 0, false));
  r.pump();  // a's first held request, before c3 which waits for c
  EXPECT_EQ(w.sent.back(), "a3");
  EXPECT_EQ(r.heldForNode(), 1U);  // a4; c3 is still in the queue (the window is full)
}

TEST(RequesterNode, ANodeSendsInOrderAndNodesAreServedAsTheyFreeAPlace) {
  World w;
  Requester<Ask, int> r(w.hooks(), {.window = 4, .perNodeWindow = 1});
  for (const char* n : {"a1", "a2", "a3", "b1", "b2", "b3"}) r.submit({.name = n});
  r.pump();
  EXPECT_EQ(w.sent, (Names{"a1", "b1"}));
  EXPECT_EQ(r.heldForNode(), 4U);
  // b answers first: b's next goes before a's.
  ASSERT_TRUE(r.deliver(w.tidOf("b1"), 0, false));
  ASSERT_TRUE(r.deliver(w.tidOf("a1"), 0, false));
  r.pump();
  EXPECT_EQ(w.sent, (Names{"a1", "b1", "b2", "a2"}));
  ASSERT_TRUE(r.deliver(w.tidOf("a2"), 0, false));
  ASSERT_TRUE(r.deliver(w.tidOf("b2"), 0, false));
  r.pump();
  EXPECT_EQ(w.sent, (Names{"a1", "b1", "b2", "a2", "a3", "b3"}));
}

TEST(RequesterNode, ARequestPastItsHoldGivesItsNodesPlaceToTheNext) {
  World w;
  Requester<Ask, int> r(w.hooks(), {.window = 8, .perNodeWindow = 1});
  r.submit({.name = "a1", .timeout = 100ms, .holds = 10ms});
  r.submit({.name = "a2"});
  r.pump();
  EXPECT_EQ(w.sent, (Names{"a1"}));
  w.now += 10ms;
  r.expire();  // a1 is overdue: still waits for its answer, out of a's window
  EXPECT_EQ(w.sent, (Names{"a1", "a2"}));
  EXPECT_EQ(r.outstanding(), 2U);
  // a1's late answer does not give a's place twice: a3 waits for a2.
  r.submit({.name = "a3"});
  ASSERT_TRUE(r.deliver(w.tidOf("a1"), 0, false));
  r.pump();
  EXPECT_EQ(w.sent, (Names{"a1", "a2"}));
  ASSERT_TRUE(r.deliver(w.tidOf("a2"), 0, false));
  r.pump();
  EXPECT_EQ(w.sent, (Names{"a1", "a2", "a3"}));
}

TEST(RequesterNode, ARetryGoesBeforeItsNodesHeldRequests) {
  World w;
  Requester<Ask, int> r(w.hooks(), {.window = 8, .perNodeWindow = 1});
  r.submit({.name = "a1", .timeout = 10ms, .holds = 10ms});
  r.submit({.name = "a2"});
  r.submit({.name = "b1"});
  r.pump();
  EXPECT_EQ(w.sent, (Names{"a1", "b1"}));
  w.now += 10ms;
  r.expire();  // a1 timed out: its retry, not a2, takes a's place
  EXPECT_EQ(w.sent, (Names{"a1", "b1", "a1"}));
  ASSERT_TRUE(r.deliver(w.tidOf("a1"), 0, false));
  r.pump();
  EXPECT_EQ(w.sent.back(), "a2");
}

TEST(RequesterNode, CancelCompletesHeldRequestsOnceAndLeavesItIdle) {
  World w;
  Requester<Ask, int> r(w.hooks(), {.window = 4, .perNodeWindow = 1});
  for (const char* n : {"a1", "a2", "a3", "b1"}) r.submit({.name = n});
  r.pump();
  EXPECT_EQ(r.heldForNode(), 2U);
  EXPECT_EQ(r.cancelAll(), 4U);
  EXPECT_EQ(w.ended, (Names{"a1", "b1", "a2", "a3"}));
  EXPECT_TRUE(r.idle());
  // Nothing of a's count is left over: a new a goes out at once.
  r.submit({.name = "a4"});
  r.pump();
  EXPECT_EQ(w.sent.back(), "a4");
}

TEST(RequesterNode, WithoutALimitEveryRequestToOneNodeFillsTheWindow) {
  World w;
  Requester<Ask, int> r(w.hooks(), {.window = 3, .perNodeWindow = 0});
  for (const char* n : {"a1", "a2", "a3", "a4"}) r.submit({.name = n});
  r.pump();
  EXPECT_EQ(w.sent, (Names{"a1", "a2", "a3"}));
  EXPECT_EQ(r.heldForNode(), 0U);
}

}  // namespace
}  // namespace ibsm::sm::mad
