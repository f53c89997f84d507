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
#include "tests/sm/mad/RequesterWorld.h"

namespace ibsm::sm::mad {
namespace {

using namespace std::chrono_literals;

using testing::Ask;
using testing::World;
using Names = std::vector<std::string>;

TEST(RequesterNode, AFullNodeHoldsItsRequestsWhileOthersFillTheWindow) {
  World w;
  Requester<Ask, int> r(w.hooks(), {.window = 4, .perNodeWindow = 2});
  for (const char* n : {"a1", "a2", "a3", "a4", "b1", "c1", "c2", "c3"}) r.submit({.name = n});
  r.pump();
  // a3, a4 and c3 wait for their node; b1 and c1, c2 behind them do not.
  EXPECT_EQ(w.sentNames(), (Names{"a1", "a2", "b1", "c1"}));
  EXPECT_EQ(r.inWindow(), 4U);
  EXPECT_EQ(r.queued(), 4U);
  EXPECT_EQ(r.heldForNode(), 2U);  // a3, a4; c2 and c3 are still in the queue

  ASSERT_TRUE(r.deliver(w.tidOf("b1"), 0, false));
  r.pump();  // b's place goes to the next in the queue: c2 (c has room)
  EXPECT_EQ(w.sentNames().back(), "c2");
  ASSERT_TRUE(r.deliver(w.tidOf("a1"), 0, false));
  r.pump();  // a's first held request, before c3 which waits for c
  EXPECT_EQ(w.sentNames().back(), "a3");
  EXPECT_EQ(r.heldForNode(), 1U);  // a4; c3 is still in the queue (the window is full)
}

TEST(RequesterNode, ANodeSendsInOrderAndNodesAreServedAsTheyFreeAPlace) {
  World w;
  Requester<Ask, int> r(w.hooks(), {.window = 4, .perNodeWindow = 1});
  for (const char* n : {"a1", "a2", "a3", "b1", "b2", "b3"}) r.submit({.name = n});
  r.pump();
  EXPECT_EQ(w.sentNames(), (Names{"a1", "b1"}));
  EXPECT_EQ(r.heldForNode(), 4U);
  // b answers first: b's next goes before a's.
  ASSERT_TRUE(r.deliver(w.tidOf("b1"), 0, false));
  ASSERT_TRUE(r.deliver(w.tidOf("a1"), 0, false));
  r.pump();
  EXPECT_EQ(w.sentNames(), (Names{"a1", "b1", "b2", "a2"}));
  ASSERT_TRUE(r.deliver(w.tidOf("a2"), 0, false));
  ASSERT_TRUE(r.deliver(w.tidOf("b2"), 0, false));
  r.pump();
  EXPECT_EQ(w.sentNames(), (Names{"a1", "b1", "b2", "a2", "a3", "b3"}));
}

TEST(RequesterNode, ARequestPastItsHoldGivesItsNodesPlaceToTheNext) {
  World w;
  Requester<Ask, int> r(w.hooks(), {.window = 8, .perNodeWindow = 1});
  r.submit({.name = "a1", .timeout = 100ms, .holds = 10ms});
  r.submit({.name = "a2"});
  r.pump();
  EXPECT_EQ(w.sentNames(), (Names{"a1"}));
  w.now += 10ms;
  r.expire();  // a1 is overdue: still waits for its answer, out of a's window
  EXPECT_EQ(w.sentNames(), (Names{"a1", "a2"}));
  EXPECT_EQ(r.outstanding(), 2U);
  // a1's late answer does not give a's place twice: a3 waits for a2.
  r.submit({.name = "a3"});
  ASSERT_TRUE(r.deliver(w.tidOf("a1"), 0, false));
  r.pump();
  EXPECT_EQ(w.sentNames(), (Names{"a1", "a2"}));
  ASSERT_TRUE(r.deliver(w.tidOf("a2"), 0, false));
  r.pump();
  EXPECT_EQ(w.sentNames(), (Names{"a1", "a2", "a3"}));
}

TEST(RequesterNode, ARetryGoesBeforeItsNodesHeldRequests) {
  World w;
  Requester<Ask, int> r(w.hooks(), {.window = 8, .perNodeWindow = 1});
  r.submit({.name = "a1", .timeout = 10ms, .holds = 10ms});
  r.submit({.name = "a2"});
  r.submit({.name = "b1"});
  r.pump();
  EXPECT_EQ(w.sentNames(), (Names{"a1", "b1"}));
  w.now += 10ms;
  r.expire();  // a1 timed out: its retry, not a2, takes a's place
  EXPECT_EQ(w.sentNames(), (Names{"a1", "b1", "a1"}));
  ASSERT_TRUE(r.deliver(w.tidOf("a1"), 0, false));
  r.pump();
  EXPECT_EQ(w.sentNames().back(), "a2");
}

TEST(RequesterNode, CancelCompletesHeldRequestsOnceAndLeavesItIdle) {
  World w;
  Requester<Ask, int> r(w.hooks(), {.window = 4, .perNodeWindow = 1});
  for (const char* n : {"a1", "a2", "a3", "b1"}) r.submit({.name = n});
  r.pump();
  EXPECT_EQ(r.heldForNode(), 2U);
  EXPECT_EQ(r.cancelAll(), 4U);
  EXPECT_EQ(w.endedNames(), (Names{"a1", "b1", "a2", "a3"}));
  EXPECT_TRUE(r.idle());
  // Nothing of a's count is left over: a new a goes out at once.
  r.submit({.name = "a4"});
  r.pump();
  EXPECT_EQ(w.sentNames().back(), "a4");
}

TEST(RequesterNode, WithoutALimitEveryRequestToOneNodeFillsTheWindow) {
  World w;
  Requester<Ask, int> r(w.hooks(), {.window = 3, .perNodeWindow = 0});
  for (const char* n : {"a1", "a2", "a3", "a4"}) r.submit({.name = n});
  r.pump();
  EXPECT_EQ(w.sentNames(), (Names{"a1", "a2", "a3"}));
  EXPECT_EQ(r.heldForNode(), 0U);
}

}  // namespace
}  // namespace ibsm::sm::mad
