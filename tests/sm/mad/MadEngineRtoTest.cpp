// The MAD engine's timeouts learnt from answered SMPs (sm/mad/MadRto.h) and
// its window under loss, against the in-memory fabric whose answers come
// back after a per-request latency (FakeFabricTransport::Fate::latency) on
// its fake clock. Expectations are worked out from the latencies given and
// the engine's own estimate, never copied from a run.
#include <gtest/gtest.h>
#include <ibsm/MadAttributes.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "sm/mad/MadEngine.h"
#include "tests/sm/support/FakeFabricTransport.h"
#include "tests/sm/support/TwoSwitches.h"

namespace ibsm {
namespace {

using namespace std::chrono_literals;
using testing::FakeFabricTransport;
using Fate = FakeFabricTransport::Fate;
using Us = MadRto::Duration;

// sw0 (the SM on port 0) --3-- sw1 (tests/sm/support/TwoSwitches.h).
using testing::twoSwitches;

const DrPath kOneHop = *DrPath::fromPorts(std::vector<std::uint8_t>{3});
// The estimate of Gets one hop away (Sets have their own: MadRto::keyOf).
const std::size_t kBucket = MadRto::keyOf(MadLoss::bucketOf(kOneHop), MadRto::Kind::Get);

class MadEngineRtoTest : public ::testing::Test {
 protected:
  MadEngine makeEngine(std::size_t window = 1, unsigned retries = 3) {
    MadEngineOptions o;
    o.window = window;
    o.perNodeWindow = 0;  // the window's specs, on one or two nodes
    o.timeout = 200ms;
    o.timeoutMin = floor;
    o.timeoutMax = 200ms;
    o.retries = retries;
    o.clock = wire.clock();
    return MadEngine(wire, o);
  }
  // `n` Gets of NodeInfo one hop away, run until answered.
  void warmUp(MadEngine& engine, int n) {
    for (int i = 0; i < n; ++i)
      engine.submit(SmpRequest::get(AttributeId::NodeInfo, 0, kOneHop),
                    [](const SmpRequest&, const SmpReply& r) { EXPECT_TRUE(r.ok()); });
    ASSERT_TRUE(engine.runUntilIdle());
  }
  // When the wire saw each transmission of requests for `attribute`.
  std::vector<MadClock::time_point> sendsOf(AttributeId attribute) const {
    std::vector<MadClock::time_point> at;
    for (const auto& s : wire.sent())
      if (s.smp.header.attributeId == attribute) at.push_back(s.at);
    return at;
  }

  FakeFabricTransport wire{twoSwitches(), PortRef{0, 0}};
  std::chrono::milliseconds floor{1ms};
};

TEST_F(MadEngineRtoTest, TheTimeoutConvergesToTheMeasuredRoundTripPlusFourDeviations) {
  MadEngine engine = makeEngine();
  // Answers after 1 ms and 3 ms in turn: a round trip of 2 ms on average,
  // each 1 ms off it.
  wire.setFaults([](const Smp&, std::size_t n) { return Fate::delayed(n % 2 == 0 ? 1ms : 3ms); });
  warmUp(engine, 300);
  const double mean = 2000, deviation = 1000;  // microseconds
  const auto& e = engine.rto().estimate(kBucket);
  EXPECT_EQ(e.samples, 300U);
  EXPECT_NEAR(static_cast<double>(e.srtt.count()), mean, 0.15 * deviation);
  EXPECT_NEAR(static_cast<double>(e.rttvar.count()), deviation, 0.15 * deviation);
  EXPECT_NEAR(static_cast<double>(engine.rto().rto(kBucket).count()), mean + 4 * deviation,
              0.15 * 4 * deviation);
  EXPECT_LT(engine.rto().rto(kBucket), Us(200ms));
}

TEST_F(MadEngineRtoTest, SlowTableSetsAreNotTimedByQuickGetsNorSentTwice) {
  // A switch answers Gets and a PortInfo Set in 0.1 ms but takes 30 ms to
  // write an LFT block (a busy management processor): the table Sets wait
  // their own timeout, each is sent once, and their round trip is learnt
  // apart.
  MadEngine engine = makeEngine(/*window=*/4);
  wire.setFaults([](const Smp& smp, std::size_t) {
    return Fate::delayed(smp.header.attributeId == AttributeId::LinearForwardingTable ? 30ms
                                                                                      : 100us);
  });
  warmUp(engine, 40);
  for (int i = 0; i < 40; ++i)
    engine.submit(SmpRequest::set(AttributeId::PortInfo, 3, kOneHop, SmpData{}),
                  [](const SmpRequest&, const SmpReply&) {});
  ASSERT_TRUE(engine.runUntilIdle());
  ASSERT_LT(engine.rto().rto(kBucket), Us(30ms)) << "the Gets' timeout is below the Sets' time";
  constexpr int kSets = 20;
  int ok = 0;
  for (int i = 0; i < kSets; ++i)
    engine.submit(SmpRequest::set(AttributeId::LinearForwardingTable, static_cast<std::uint32_t>(i),
                                  kOneHop, SmpData{}),
                  [&](const SmpRequest&, const SmpReply& r) { ok += r.ok() ? 1 : 0; });
  ASSERT_TRUE(engine.runUntilIdle());
  EXPECT_EQ(ok, kSets);
  EXPECT_EQ(sendsOf(AttributeId::LinearForwardingTable).size(), static_cast<std::size_t>(kSets))
      << "no Set sent again";
  const std::size_t sets = MadRto::keyOf(MadLoss::bucketOf(kOneHop), MadRto::Kind::TableSet);
  EXPECT_GT(engine.rto().estimate(sets).samples, 0U);
  EXPECT_GE(engine.rto().rto(sets), Us(30ms));
}

TEST_F(MadEngineRtoTest, TheLastAttemptWaitsTheInitialTimeoutAtLeast) {
  // Gets that answer at once, then one that takes 30 ms: the retries come
  // at the learnt timeout, but the request is not failed before its last
  // attempt has waited mad.timeout_ms, so the late answer still counts.
  MadEngine engine = makeEngine(/*window=*/1, /*retries=*/2);
  wire.setFaults([](const Smp&, std::size_t) { return Fate::delayed(100us); });
  warmUp(engine, 40);
  wire.setFaults([](const Smp& smp, std::size_t) {
    return Fate::delayed(smp.header.attributeId == AttributeId::PortInfo ? 30ms : 100us);
  });
  SmpReply reply;
  engine.submit(SmpRequest::get(AttributeId::PortInfo, 3, kOneHop),
                [&](const SmpRequest&, const SmpReply& r) { reply = r; });
  ASSERT_TRUE(engine.runUntilIdle());
  EXPECT_TRUE(reply.ok());
  EXPECT_EQ(sendsOf(AttributeId::PortInfo).size(), 3U) << "the retries came at the learnt timeout";
}

TEST_F(MadEngineRtoTest, ALostSmpIsRetriedAfterTheLearntTimeoutNotTheInitialOne) {
  MadEngine engine = makeEngine();
  wire.setFaults([](const Smp&, std::size_t) { return Fate::delayed(500us); });
  warmUp(engine, 40);
  const Us learnt = engine.rto().timeout(kBucket, 1);
  ASSERT_LT(learnt, Us(200ms));
  // The next PortInfo Get is lost once, then answered.
  int lost = 0;
  wire.setFaults([&](const Smp& smp, std::size_t) {
    if (smp.header.attributeId == AttributeId::PortInfo && lost++ == 0) return Fate::dropped();
    return Fate::delayed(500us);
  });
  SmpReply reply;
  engine.submit(SmpRequest::get(AttributeId::PortInfo, 3, kOneHop),
                [&](const SmpRequest&, const SmpReply& r) { reply = r; });
  ASSERT_TRUE(engine.runUntilIdle());
  EXPECT_TRUE(reply.ok());
  EXPECT_EQ(reply.attempts, 2U);
  const auto sends = sendsOf(AttributeId::PortInfo);
  ASSERT_EQ(sends.size(), 2U);
  EXPECT_EQ(std::chrono::duration_cast<Us>(sends[1] - sends[0]), learnt);
}

TEST_F(MadEngineRtoTest, APathNotMeasuredYetWaitsTheInitialTimeoutAtEachAttempt) {
  MadEngine engine = makeEngine(1, 2);
  wire.setFaults([](const Smp&, std::size_t) { return Fate::dropped(); });
  SmpReply reply;
  engine.submit(SmpRequest::get(AttributeId::NodeInfo, 0, kOneHop),
                [&](const SmpRequest&, const SmpReply& r) { reply = r; });
  ASSERT_TRUE(engine.runUntilIdle());
  EXPECT_EQ(reply.outcome, SmpOutcome::Timeout);
  const auto sends = sendsOf(AttributeId::NodeInfo);
  ASSERT_EQ(sends.size(), 3U);
  // 200 ms each, however short the cap: nothing is known of the path yet.
  EXPECT_EQ(sends[1] - sends[0], 200ms);
  EXPECT_EQ(sends[2] - sends[1], 200ms);
  EXPECT_EQ(engine.rto().estimate(kBucket).samples, 0U);  // nothing answered, nothing learnt
}

TEST_F(MadEngineRtoTest, EachRetryWaitsTwiceTheOneBefore) {
  MadEngine engine = makeEngine(1, 4);
  wire.setFaults([](const Smp&, std::size_t) { return Fate::delayed(2ms); });
  warmUp(engine, 40);
  const Us first = engine.rto().timeout(kBucket, 1);
  wire.setFaults([](const Smp& smp, std::size_t) {
    return smp.header.attributeId == AttributeId::PortInfo ? Fate::dropped() : Fate::delayed(2ms);
  });
  engine.submit(SmpRequest::get(AttributeId::PortInfo, 3, kOneHop),
                [](const SmpRequest&, const SmpReply&) {});
  ASSERT_TRUE(engine.runUntilIdle());
  const auto sends = sendsOf(AttributeId::PortInfo);
  ASSERT_EQ(sends.size(), 5U);
  for (std::size_t i = 1; i < sends.size(); ++i)
    EXPECT_EQ(std::chrono::duration_cast<Us>(sends[i] - sends[i - 1]), first * (1 << (i - 1)))
        << "wait before attempt " << i + 1;
}

// Karn's rule: an answer to a retried request may answer any attempt, so
// it says nothing of the round trip.
TEST_F(MadEngineRtoTest, ARetriedRequestTeachesNothingOfTheRoundTrip) {
  MadEngine engine = makeEngine();
  wire.setFaults([](const Smp&, std::size_t) { return Fate::delayed(1ms); });
  warmUp(engine, 40);
  const MadRto::Estimate before = engine.rto().estimate(kBucket);
  const Us rto = engine.rto().rto(kBucket);
  // One lost at its first attempt and answered at its second; one
  // whose first answer comes only after it was sent again (that answer
  // completes it, the second's is late and unmatched).
  int portInfos = 0;
  wire.setFaults([&](const Smp& smp, std::size_t) {
    if (smp.header.attributeId != AttributeId::PortInfo) return Fate::delayed(1ms);
    // Answered, when at all, after 1.5 timeouts: within a retry's 2.
    if (portInfos++ == 0) return Fate::dropped();
    return Fate::delayed(std::chrono::duration_cast<std::chrono::microseconds>(rto * 3 / 2));
  });
  std::vector<SmpReply> replies;
  auto record = [&](const SmpRequest&, const SmpReply& r) { replies.push_back(r); };
  engine.submit(SmpRequest::get(AttributeId::PortInfo, 3, kOneHop), record);
  ASSERT_TRUE(engine.runUntilIdle());
  engine.submit(SmpRequest::get(AttributeId::PortInfo, 3, kOneHop), record);
  ASSERT_TRUE(engine.runUntilIdle());
  ASSERT_EQ(replies.size(), 2U);
  for (const SmpReply& r : replies) {
    EXPECT_TRUE(r.ok());
    EXPECT_EQ(r.attempts, 2U);
  }
  const MadRto::Estimate& after = engine.rto().estimate(kBucket);
  EXPECT_EQ(after.samples, before.samples);
  EXPECT_EQ(after.srtt, before.srtt);
  EXPECT_EQ(after.rttvar, before.rttvar);
}

// One request to a port that never answers waits out its backed-off
// retries; the window keeps sending the others meanwhile, its place held
// only while its answer is due (one learnt timeout per attempt).
TEST_F(MadEngineRtoTest, TheWindowStaysFullWhileOneRequestWaitsOnItsRetries) {
  const std::size_t window = 2;
  const unsigned retries = 7;
  // Answers well inside the timeout (its floor), so none is retried.
  floor = 2ms;
  MadEngine engine = makeEngine(window, retries);
  const auto latency = 1ms;
  wire.setFaults([&](const Smp& smp, std::size_t) {
    return smp.header.attributeId == AttributeId::PortInfo ? Fate::dropped()
                                                           : Fate::delayed(latency);
  });
  warmUp(engine, 40);
  const Us rto = engine.rto().rto(kBucket);
  const auto start = wire.now();
  SmpReply dead;
  engine.submit(SmpRequest::get(AttributeId::PortInfo, 3, kOneHop),
                [&](const SmpRequest&, const SmpReply& r) { dead = r; });
  const int live = 100;
  int answered = 0;
  std::size_t most = 0;
  MadClock::time_point lastAnswer{};
  for (int i = 0; i < live; ++i) {
    engine.submit(SmpRequest::get(AttributeId::NodeInfo, 0, kOneHop),
                  [&](const SmpRequest&, const SmpReply& r) {
                    answered += r.ok() ? 1 : 0;
                    lastAnswer = wire.now();
                    most = std::max(most, engine.inWindow());
                  });
  }
  ASSERT_TRUE(engine.runUntilIdle());
  EXPECT_EQ(answered, live);
  EXPECT_EQ(dead.outcome, SmpOutcome::Timeout);
  EXPECT_EQ(dead.attempts, 1 + retries);
  EXPECT_LE(most, window);
  // The live requests take ceil(live / window) round trips with the whole
  // window, plus what the dead one's attempts hold of it: one timeout each.
  const auto full = latency * ((live + window - 1) / window);
  const auto held = rto * (1 + retries);
  EXPECT_LE(lastAnswer - start, full + held + 2 * latency);
  // Held for its whole life, the window would have sent them one at a
  // time for as long as the dead request waited.
  const auto deadLife = sendsOf(AttributeId::PortInfo).back() - start;
  EXPECT_GT(deadLife, full + held + 2 * latency);
}

// A loop kept from reading (a busy machine) comes back to answers waiting
// and timeouts passed: it reads what has arrived before judging any
// timeout, so nothing answered is sent again.
TEST_F(MadEngineRtoTest, AnswersWaitingAfterAStallAreReadBeforeTimeoutsAreJudged) {
  struct StallingWaiter final : MadWaiter {
    FakeFabricTransport* wire{nullptr};
    std::chrono::microseconds stall{0};
    Result<std::optional<ReceivedMad>> receive(MadTransport& t,
                                               MadClock::time_point deadline) override {
      wire->advance(std::exchange(stall, {}));
      return t.receive(deadline);
    }
  } waiter;
  waiter.wire = &wire;
  MadEngineOptions o;
  o.window = 8;
  o.perNodeWindow = 0;  // a full window of answers, all from sw1
  o.timeout = 200ms;
  o.timeoutMin = 1ms;
  o.clock = wire.clock();
  o.waiter = &waiter;
  MadEngine engine(wire, o);
  wire.setFaults([](const Smp&, std::size_t) { return Fate::delayed(1ms); });
  warmUp(engine, 40);
  const Us rto = engine.rto().rto(kBucket);
  const auto retriesBefore = engine.counters().retries;
  // The loop sleeps through every answer of a full window and past every
  // timeout of it.
  waiter.stall = std::chrono::duration_cast<std::chrono::microseconds>(rto * 5);
  int answered = 0;
  for (int i = 0; i < 8; ++i)
    engine.submit(SmpRequest::get(AttributeId::NodeInfo, 0, kOneHop),
                  [&](const SmpRequest&, const SmpReply& r) { answered += r.ok() ? 1 : 0; });
  ASSERT_TRUE(engine.runUntilIdle());
  EXPECT_EQ(answered, 8);
  EXPECT_EQ(engine.counters().retries, retriesBefore);
}

}  // namespace
}  // namespace ibsm
