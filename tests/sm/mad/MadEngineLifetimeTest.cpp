// The engine's lifetime rule (MadEngine.h): every submitted callback runs
// exactly once, inside the run that is going on when its request completes,
// and a run that fails -- the transport dies, or cancel() stops the work --
// completes everything pending before it returns its error. Callers rely
// on it to capture their own frame; these tests fail if one callback is
// dropped, run twice, or left behind for a later run.
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>

#include <algorithm>
#include <sstream>

#include "sm/loop/EventLoop.h"
#include "sm/mad/MadEngine.h"
#include "tests/sm/support/DyingPort.h"
#include "tests/sm/support/FakeFabricTransport.h"
#include "tests/sm/support/TwoSwitches.h"

namespace ibsm {
namespace {

using namespace std::chrono_literals;
using testing::FakeFabricTransport;
using Fate = FakeFabricTransport::Fate;

// sw0 (the SM on port 0) --3-- sw1 (tests/sm/support/TwoSwitches.h).
using testing::twoSwitches;

struct Done {
  int tag;
  SmpOutcome outcome;
  auto operator<=>(const Done&) const = default;
};

class MadEngineLifetimeTest : public ::testing::Test {
 protected:
  MadEngineOptions options(std::size_t window) {
    MadEngineOptions o;
    o.window = window;
    o.perNodeWindow = 0;  // the window's lifetime specs, on two nodes
    o.timeout = 200ms;
    o.retries = 3;
    o.clock = wire.clock();
    o.logger = std::make_shared<spdlog::logger>(
        "test", std::make_shared<spdlog::sinks::ostream_sink_st>(logStream));
    return o;
  }
  // Submits NodeInfo of the SM's own switch, recording the outcome under `tag`.
  void ask(MadEngine& engine, int tag) {
    engine.submit(SmpRequest::get(AttributeId::NodeInfo, 0, DrPath{}),
                  [this, tag](const SmpRequest&, const SmpReply& r) {
                    done.push_back({tag, r.outcome});
                  });
  }
  // An unsolicited SubnGet(SMInfo) arriving `after` from now.
  void injectQuery(std::chrono::microseconds after) {
    wire.inject(Smp::lidRouted(Method::Get, AttributeId::SmInfo, 0), MadAddress::toLid(Lid{7}),
                after);
  }

  FakeFabricTransport wire{twoSwitches(), PortRef{0, 0}};
  std::ostringstream logStream;
  std::vector<Done> done;
};

TEST_F(MadEngineLifetimeTest, ATransportFailureCompletesEveryPendingRequestBeforeTheError) {
  testing::DyingPort port(wire, 1);
  MadEngine engine(port, options(2));
  for (int tag = 0; tag < 5; ++tag) ask(engine, tag);
  // A callback that submits while the failure drains: its request completes too.
  engine.submit(SmpRequest::get(AttributeId::NodeInfo, 0, DrPath{}),
                [&](const SmpRequest&, const SmpReply& r) {
                  done.push_back({5, r.outcome});
                  ask(engine, 6);
                });

  auto ran = engine.runUntilIdle();
  ASSERT_FALSE(ran);
  EXPECT_NE(ran.error().message.find("port went away"), std::string::npos);
  // Outstanding (the window: 0 and 1) first, then the queue in order.
  const auto failed = SmpOutcome::TransportFailed;
  EXPECT_EQ(done, (std::vector<Done>{{0, failed},
                                     {1, failed},
                                     {2, failed},
                                     {3, failed},
                                     {4, failed},
                                     {5, failed},
                                     {6, failed}}));
  EXPECT_TRUE(engine.idle());
  EXPECT_EQ(engine.counters().transportFailed, 7U);
}

TEST_F(MadEngineLifetimeTest, AfterAFailedRunLateAnswersReachNoCallback) {
  testing::DyingPort port(wire, 1);
  MadEngine engine(port, options(4));
  for (int tag = 0; tag < 4; ++tag) ask(engine, tag);
  ASSERT_FALSE(engine.runUntilIdle());
  ASSERT_EQ(done.size(), 4U);

  // The four answers are still on the fake wire; the next run reads them.
  ask(engine, 9);
  ASSERT_TRUE(engine.runUntilIdle());
  ASSERT_EQ(done.size(), 5U);
  EXPECT_EQ(done.back(), (Done{9, SmpOutcome::Ok}));
  EXPECT_EQ(engine.counters().unmatched, 4U);
}

TEST_F(MadEngineLifetimeTest, CancelFromAHandlerEndsTheRunAtOnceWithEveryRequestCancelled) {
  MadEngine engine(wire, options(2));
  wire.setFaults([](const Smp&, std::size_t) { return Fate::dropped(); });  // 800 ms each
  engine.onUnsolicited([&](const IncomingSmp&) { engine.cancel(); });
  injectQuery(50ms);
  for (int tag = 0; tag < 4; ++tag) ask(engine, tag);

  const auto start = wire.now();
  auto ran = engine.runUntilIdle();
  ASSERT_FALSE(ran);
  EXPECT_NE(ran.error().message.find("cancel"), std::string::npos);
  EXPECT_EQ(wire.now() - start, 50ms);  // not the 800 ms of retries
  const auto c = SmpOutcome::Cancelled;
  EXPECT_EQ(done, (std::vector<Done>{{0, c}, {1, c}, {2, c}, {3, c}}));
  EXPECT_EQ(engine.counters().cancelled, 4U);
  EXPECT_EQ(engine.counters().sent, 2U);  // the queued two never went out
}

TEST_F(MadEngineLifetimeTest, CancelIsFinalLaterRunsSendNothingAndFailAtOnce) {
  MadEngine engine(wire, options(4));
  engine.cancel();
  ask(engine, 1);
  const auto start = wire.now();
  EXPECT_FALSE(engine.runUntilIdle());
  EXPECT_EQ(done, (std::vector<Done>{{1, SmpOutcome::Cancelled}}));
  ask(engine, 2);
  EXPECT_FALSE(engine.runUntil(wire.now() + 10s));
  EXPECT_EQ(done.back(), (Done{2, SmpOutcome::Cancelled}));
  EXPECT_TRUE(wire.sent().empty());
  EXPECT_EQ(wire.now(), start);
  EXPECT_TRUE(engine.cancelled());
}

TEST_F(MadEngineLifetimeTest, CancelInTheLastCallbackStillFailsThatRun) {
  MadEngine engine(wire, options(4));
  engine.submit(SmpRequest::get(AttributeId::NodeInfo, 0, DrPath{}),
                [&](const SmpRequest&, const SmpReply&) { engine.cancel(); });
  EXPECT_FALSE(engine.runUntilIdle());
}

// The waiter's handlers run inside the engine's waits: a timer of the event
// loop (as the daemon's signal fd would) cancels a run that would otherwise
// wait out every retry.
TEST_F(MadEngineLifetimeTest, ATimerOfTheWaiterCancelsARunningSweep) {
  sm::loop::EventLoop loop(wire.clock());
  auto o = options(4);
  o.waiter = &loop;
  MadEngine engine(wire, o);
  wire.setFaults([](const Smp&, std::size_t) { return Fate::dropped(); });
  for (int tag = 0; tag < 8; ++tag) ask(engine, tag);
  const auto start = wire.now();
  loop.at(start + 30ms, [&] { engine.cancel(); });

  ASSERT_FALSE(engine.runUntilIdle());
  EXPECT_EQ(wire.now() - start, 30ms);
  EXPECT_EQ(done.size(), 8U);
  EXPECT_TRUE(
      std::ranges::all_of(done, [](const Done& d) { return d.outcome == SmpOutcome::Cancelled; }));
}

TEST_F(MadEngineLifetimeTest, RunUntilReturnsWhenItsStopConditionHolds) {
  MadEngine engine(wire, options(4));
  bool asked = false;
  engine.onUnsolicited([&](const IncomingSmp&) { asked = true; });
  injectQuery(1s);
  const auto start = wire.now();
  ASSERT_TRUE(engine.runUntil(start + 10s, [&] { return asked; }));
  EXPECT_EQ(wire.now() - start, 1s);
}

TEST_F(MadEngineLifetimeTest, SendAllGivesTheRepliesInRequestOrder) {
  MadEngine engine(wire, options(8));
  // Later requests are answered sooner; one is lost for good.
  wire.setFaults([](const Smp& req, std::size_t n) {
    if (req.header.attributeModifier == 2) return Fate::dropped();
    return Fate::delayed(std::chrono::microseconds(1000 - 100 * n));
  });
  std::vector<SmpRequest> requests;
  for (std::uint32_t port = 1; port <= 4; ++port)
    requests.push_back(SmpRequest::get(AttributeId::PortInfo, port, DrPath{}));
  auto replies = engine.sendAll(requests);
  ASSERT_TRUE(replies);
  ASSERT_EQ(replies->size(), 4U);
  for (std::size_t i = 0; i < 4; ++i) {
    const auto& r = (*replies)[i];
    if (i == 1) {
      EXPECT_EQ(r.outcome, SmpOutcome::Timeout);
      continue;
    }
    ASSERT_TRUE(r.ok()) << i;
    EXPECT_EQ(r.smp->header.attributeModifier, i + 1);
  }
}

}  // namespace
}  // namespace ibsm
