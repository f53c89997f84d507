// The MAD engine against an in-memory fabric whose wire drops, delays,
// reorders and duplicates on command. Time is the fake's clock, so a test
// of 3 retries of 200 ms takes microseconds.
#include <gtest/gtest.h>
#include <ibsm/MadAttributes.h>
#include <spdlog/sinks/ostream_sink.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "sm/mad/MadEngine.h"
#include "tests/sm/support/FakeFabricTransport.h"

namespace ibsm {
namespace {

using namespace std::chrono_literals;
using testing::FakeFabricTransport;
using Fate = FakeFabricTransport::Fate;

constexpr Guid kSw0{0x200000};
constexpr Guid kSw1{0x200001};
constexpr Guid kCa0{0x100000};
constexpr Guid kCa1{0x100003};

// sw0 (SM on port 0) --3-- sw1; ca0 on sw0 ports 1+2, ca1 on sw1 ports 1+2.
Fabric twoSwitches() {
  Fabric f;
  const NodeId s0 = *f.addNode(Node::makeSwitch(kSw0, 8, "sw0"));
  const NodeId s1 = *f.addNode(Node::makeSwitch(kSw1, 8, "sw1"));
  const NodeId c0 = *f.addNode(Node::makeCa(kCa0, {Guid{0x100001}, Guid{0x100002}}, "ca0"));
  const NodeId c1 = *f.addNode(Node::makeCa(kCa1, {Guid{0x100004}, Guid{0x100005}}, "ca1"));
  EXPECT_TRUE(f.connect({s0, 1}, {c0, 1}));
  EXPECT_TRUE(f.connect({s0, 2}, {c0, 2}));
  EXPECT_TRUE(f.connect({s1, 1}, {c1, 1}));
  EXPECT_TRUE(f.connect({s1, 2}, {c1, 2}));
  EXPECT_TRUE(f.connect({s0, 3}, {s1, 3}));
  return f;
}

DrPath path(std::initializer_list<std::uint8_t> ports) {
  return *DrPath::fromPorts(std::vector<std::uint8_t>(ports));
}

class MadEngineTest : public ::testing::Test {
 protected:
  // Many of these SMPs go to one node: no limit per node here (pacing per
  // node has its own specs, MadEnginePacingTest).
  MadEngine makeEngine(std::size_t window = 4, unsigned retries = 3) {
    MadEngineOptions o;
    o.window = window;
    o.perNodeWindow = 0;
    o.timeout = 200ms;
    o.retries = retries;
    o.clock = wire.clock();
    o.logger = logger;
    return MadEngine(wire, o);
  }

  FakeFabricTransport wire{twoSwitches(), PortRef{0, 0}};
  std::ostringstream logStream;
  std::shared_ptr<spdlog::logger> logger = [this] {
    auto l = std::make_shared<spdlog::logger>(
        "test", std::make_shared<spdlog::sinks::ostream_sink_st>(logStream));
    l->set_level(spdlog::level::debug);
    return l;
  }();
};

// A copyable record of what a callback saw.
struct Seen {
  SmpRequest request;
  SmpReply reply;
};

TEST_F(MadEngineTest, QueriesTheLocalNodeAndOneTwoHopsAway) {
  MadEngine engine = makeEngine();
  std::vector<Seen> seen;
  auto record = [&](const SmpRequest& q, const SmpReply& r) { seen.push_back({q, r}); };
  engine.submit(SmpRequest::get(AttributeId::NodeInfo, 0, DrPath{}), record);
  engine.submit(SmpRequest::get(AttributeId::NodeInfo, 0, path({3, 1})), record);
  ASSERT_TRUE(engine.runUntilIdle());

  ASSERT_EQ(seen.size(), 2U);
  ASSERT_TRUE(seen[0].reply.ok());
  EXPECT_EQ(decodeNodeInfo(seen[0].reply.smp->data).nodeGuid, kSw0);
  ASSERT_TRUE(seen[1].reply.ok());
  const NodeInfo far = decodeNodeInfo(seen[1].reply.smp->data);
  EXPECT_EQ(far.nodeGuid, kCa1);
  EXPECT_EQ(far.localPortNum, 1);
  EXPECT_EQ(seen[1].reply.attempts, 1U);
}

TEST_F(MadEngineTest, SendsDirectedRouteSmpsPurelyDirectedFromHopZero) {
  MadEngine engine = makeEngine();
  engine.submit(SmpRequest::get(AttributeId::NodeInfo, 0, path({3, 1})),
                [](const SmpRequest&, const SmpReply&) {});
  ASSERT_TRUE(engine.runUntilIdle());
  ASSERT_EQ(wire.sent().size(), 1U);
  const Smp& smp = wire.sent()[0].smp;
  EXPECT_EQ(smp.header.mgmtClass, MgmtClass::SubnDirected);
  EXPECT_EQ(smp.header.hopCount, 2);
  EXPECT_EQ(smp.header.hopPointer, 0);
  EXPECT_FALSE(smp.header.direction);
  EXPECT_EQ(smp.header.drSlid, Lid{kPermissiveLid});
  EXPECT_EQ(smp.header.drDlid, Lid{kPermissiveLid});
  EXPECT_EQ(smp.initialPath[1], 3);
  EXPECT_EQ(smp.initialPath[2], 1);
  EXPECT_EQ(wire.sent()[0].to, MadAddress::directed());
}

TEST_F(MadEngineTest, CallbacksCanSubmitMoreAndTheEngineRunsUntilAllAreDone) {
  MadEngine engine = makeEngine(2);
  std::set<Guid> found;
  std::function<void(const SmpRequest&, const SmpReply&)> visit;
  visit = [&](const SmpRequest& q, const SmpReply& r) {
    if (!r.ok()) return;  // an empty port: nobody answers
    const NodeInfo ni = decodeNodeInfo(r.smp->data);
    if (!found.insert(ni.nodeGuid).second || ni.nodeType != NodeType::Switch) return;
    for (std::uint8_t p = 1; p <= ni.numPorts; ++p) {
      if (std::get<DrPath>(q.to).hopCount() > 0 && p == ni.localPortNum) continue;
      engine.submit(SmpRequest::get(AttributeId::NodeInfo, 0, *std::get<DrPath>(q.to).extended(p)),
                    visit);
    }
  };
  engine.submit(SmpRequest::get(AttributeId::NodeInfo, 0, DrPath{}), visit);
  ASSERT_TRUE(engine.runUntilIdle());
  EXPECT_EQ(found, (std::set<Guid>{kSw0, kSw1, kCa0, kCa1}));
  EXPECT_EQ(engine.outstanding(), 0U);
  EXPECT_EQ(engine.queued(), 0U);
}

TEST_F(MadEngineTest, NeverHasMoreThanTheWindowOnTheWire) {
  constexpr std::size_t kWindow = 4;
  MadEngine engine = makeEngine(kWindow);
  std::size_t completed = 0;
  std::size_t mostInFlight = 0;
  wire.setFaults([&](const Smp&, std::size_t n) {
    mostInFlight = std::max(mostInFlight, n + 1 - completed);
    return Fate::delayed(std::chrono::microseconds(50 + (n * 37) % 100));
  });
  for (std::uint32_t port = 1; port <= 40; ++port) {
    engine.submit(SmpRequest::get(AttributeId::PortInfo, port % 9, DrPath{}),
                  [&](const SmpRequest&, const SmpReply&) { ++completed; });
  }
  ASSERT_TRUE(engine.runUntil(wire.now() + 1us));
  EXPECT_EQ(wire.sent().size(), kWindow);
  EXPECT_EQ(engine.outstanding(), kWindow);
  EXPECT_EQ(engine.queued(), 40 - kWindow);

  ASSERT_TRUE(engine.runUntilIdle());
  EXPECT_EQ(completed, 40U);
  EXPECT_EQ(mostInFlight, kWindow);
}

TEST_F(MadEngineTest, RetriesADroppedRequestWithTheSameTid) {
  MadEngine engine = makeEngine();
  wire.setFaults([](const Smp&, std::size_t n) { return Fate::dropped(n < 2); });
  std::optional<SmpReply> reply;
  engine.submit(SmpRequest::get(AttributeId::NodeInfo, 0, DrPath{}),
                [&](const SmpRequest&, const SmpReply& r) { reply = r; });
  const auto start = wire.now();
  ASSERT_TRUE(engine.runUntilIdle());

  ASSERT_TRUE(reply && reply->ok());
  EXPECT_EQ(reply->attempts, 3U);
  EXPECT_EQ(engine.counters().retries, 2U);
  EXPECT_EQ(engine.counters().sent, 3U);
  EXPECT_EQ(engine.counters().timeouts, 0U);
  ASSERT_EQ(wire.sent().size(), 3U);
  EXPECT_EQ(wire.sent()[0].smp.header.tid, wire.sent()[2].smp.header.tid);
  EXPECT_GE(wire.now() - start, 400ms);  // two timeouts passed
}

TEST_F(MadEngineTest, GivesUpAfterTheRetriesAndSaysWhereItWasGoing) {
  MadEngine engine = makeEngine(4, 2);
  wire.setFaults([](const Smp&, std::size_t) { return Fate::dropped(true); });
  std::optional<SmpReply> reply;
  std::string where;  // what MAD-0101 and the callers' lines name
  engine.submit(SmpRequest::get(AttributeId::NodeInfo, 0, path({3, 5})),
                [&](const SmpRequest& q, const SmpReply& r) {
                  reply = r;
                  where = q.destination();
                });
  const auto start = wire.now();
  ASSERT_TRUE(engine.runUntilIdle());

  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->outcome, SmpOutcome::Timeout);
  EXPECT_FALSE(reply->smp);
  EXPECT_EQ(reply->attempts, 3U);
  EXPECT_EQ(wire.now() - start, 600ms);
  EXPECT_EQ(engine.counters().timeouts, 1U);
  EXPECT_EQ(where, "DR 0,3,5");
}

// A path that loses two attempts in three (ibsim's 10% per switch on a
// 5-hop probe): with the fixed 1 + 3 attempts about one probe in five would
// be lost; learning the loss from the answered ones, the engine gives the
// rest more attempts and loses none of a few hundred.
TEST_F(MadEngineTest, GivesRequestsOnALossyPathTheAttemptsItsLossNeeds) {
  MadEngineOptions o;
  o.window = 8;
  o.perNodeWindow = 0;  // every SMP to one node
  o.timeout = 200ms;
  o.retries = 3;
  o.maxAttempts = 24;
  o.clock = wire.clock();
  o.logger = logger;
  MadEngine engine(wire, o);
  std::uint64_t seen = 0;
  wire.setFaults([&](const Smp&, std::size_t) { return Fate::dropped(seen++ % 3 != 2); });
  int answered = 0, lost = 0;
  for (int i = 0; i < 300; ++i) {
    engine.submit(SmpRequest::get(AttributeId::NodeInfo, 0, path({3})),
                  [&](const SmpRequest&, const SmpReply& r) { ++(r.ok() ? answered : lost); });
  }
  ASSERT_TRUE(engine.runUntilIdle());
  EXPECT_EQ(lost, 0);
  EXPECT_EQ(answered, 300);
  EXPECT_GT(engine.counters().lossRetries, 0U);
  EXPECT_GT(engine.loss().lossRate(MadLoss::bucketOf(path({3}))), 0.5);
}

TEST_F(MadEngineTest, WithoutLossARequestNeverAnsweredGetsOnlyTheRetries) {
  MadEngineOptions o;
  o.retries = 2;
  o.maxAttempts = 16;
  o.clock = wire.clock();
  o.logger = logger;
  MadEngine engine(wire, o);
  wire.setFaults([](const Smp& smp, std::size_t) {
    return Fate::dropped(smp.header.hopCount == 2);  // a dead port at 2 hops
  });
  std::optional<SmpReply> dead;
  for (int i = 0; i < 20; ++i)
    engine.submit(SmpRequest::get(AttributeId::NodeInfo, 0, path({3})),
                  [](const SmpRequest&, const SmpReply&) {});
  engine.submit(SmpRequest::get(AttributeId::NodeInfo, 0, path({3, 5})),
                [&](const SmpRequest&, const SmpReply& r) { dead = r; });
  ASSERT_TRUE(engine.runUntilIdle());
  ASSERT_TRUE(dead);
  EXPECT_EQ(dead->outcome, SmpOutcome::Timeout);
  EXPECT_EQ(dead->attempts, 3U);
  EXPECT_EQ(engine.counters().lossRetries, 0U);
}

// A request that asks for one attempt (an SMP to a port that refuses the
// SM's M_Key: each resend would be one more violation there) goes once.
TEST_F(MadEngineTest, ARequestAskingForOneAttemptIsNeverResent) {
  MadEngine engine = makeEngine(4, 3);
  wire.setFaults([](const Smp&, std::size_t) { return Fate::dropped(true); });
  SmpRequest once = SmpRequest::get(AttributeId::NodeInfo, 0, path({3}));
  once.attempts = 1;
  std::optional<SmpReply> reply;
  engine.submit(once, [&](const SmpRequest&, const SmpReply& r) { reply = r; });
  ASSERT_TRUE(engine.runUntilIdle());
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->outcome, SmpOutcome::Timeout);
  EXPECT_EQ(reply->attempts, 1U);
  EXPECT_EQ(wire.sent().size(), 1U);
  EXPECT_EQ(engine.counters().retries, 0U);
}

TEST_F(MadEngineTest, MatchesReorderedResponsesToTheirRequestsByTid) {
  MadEngine engine = makeEngine(8);
  // Each later request is answered sooner: responses come back reversed.
  wire.setFaults([](const Smp&, std::size_t n) {
    return Fate::delayed(std::chrono::microseconds(1000 - 100 * n));
  });
  const std::vector<std::pair<DrPath, Guid>> targets = {{DrPath{}, kSw0},     {path({1}), kCa0},
                                                        {path({2}), kCa0},    {path({3}), kSw1},
                                                        {path({3, 1}), kCa1}, {path({3, 2}), kCa1}};
  std::vector<std::pair<DrPath, Guid>> answers;
  for (const auto& [p, guid] : targets) {
    engine.submit(
        SmpRequest::get(AttributeId::NodeInfo, 0, p), [&](const SmpRequest& q, const SmpReply& r) {
          ASSERT_TRUE(r.ok());
          answers.emplace_back(std::get<DrPath>(q.to), decodeNodeInfo(r.smp->data).nodeGuid);
        });
  }
  ASSERT_TRUE(engine.runUntilIdle());
  ASSERT_EQ(answers.size(), targets.size());
  EXPECT_EQ(answers.front().first, path({3, 2}));  // the last sent came back first
  for (const auto& a : answers) {
    EXPECT_NE(std::ranges::find(targets, a), targets.end()) << a.first.toString();
  }
}

TEST_F(MadEngineTest, IgnoresDuplicateResponses) {
  MadEngine engine = makeEngine();
  wire.setFaults([](const Smp&, std::size_t) { return Fate::duplicated(2); });
  int calls = 0;
  for (int i = 0; i < 5; ++i) {
    engine.submit(SmpRequest::get(AttributeId::NodeInfo, 0, DrPath{}),
                  [&](const SmpRequest&, const SmpReply&) { ++calls; });
  }
  ASSERT_TRUE(engine.runUntil(wire.now() + 1s));
  EXPECT_EQ(calls, 5);
  EXPECT_EQ(engine.counters().unmatched, 10U);
  EXPECT_EQ(engine.counters().received, 15U);
}

TEST_F(MadEngineTest, ALateFirstAnswerCompletesTheRequestOnceAndTheSecondIsIgnored) {
  MadEngine engine = makeEngine();
  wire.setFaults([](const Smp&, std::size_t n) {
    return Fate::delayed(n == 0 ? std::chrono::microseconds(300ms) : 10us);
  });
  std::vector<SmpReply> replies;
  engine.submit(SmpRequest::get(AttributeId::NodeInfo, 0, DrPath{}),
                [&](const SmpRequest&, const SmpReply& r) { replies.push_back(r); });
  ASSERT_TRUE(engine.runUntil(wire.now() + 1s));
  ASSERT_EQ(replies.size(), 1U);
  EXPECT_TRUE(replies[0].ok());
  EXPECT_EQ(replies[0].attempts, 2U);
  EXPECT_EQ(engine.counters().unmatched, 1U);
}

TEST_F(MadEngineTest, GivesEachRequestItsOwnTid) {
  MadEngine engine = makeEngine(16);
  for (int i = 0; i < 50; ++i) {
    engine.submit(SmpRequest::get(AttributeId::NodeInfo, 0, DrPath{}),
                  [](const SmpRequest&, const SmpReply&) {});
  }
  ASSERT_TRUE(engine.runUntilIdle());
  std::set<std::uint64_t> tids;
  for (const auto& s : wire.sent()) {
    EXPECT_EQ(s.smp.header.tid >> 32, 0U);  // the upper half is the transport's
    tids.insert(s.smp.header.tid);
  }
  EXPECT_EQ(tids.size(), 50U);
}

TEST_F(MadEngineTest, SurfacesANonZeroStatusToTheCallbackAndCountsIt) {
  MadEngine engine = makeEngine();
  wire.setFaults([](const Smp&, std::size_t n) {
    return n == 0 ? Fate::answeredWith(madstatus::kBusy) : Fate{};
  });
  std::vector<SmpReply> replies;
  auto record = [&](const SmpRequest&, const SmpReply& r) { replies.push_back(r); };
  engine.submit(SmpRequest::get(AttributeId::NodeInfo, 0, path({3})), record);
  engine.submit(SmpRequest::get(AttributeId::SmInfo, 0, path({3})), record);  // sw1 has no SM
  engine.submit(SmpRequest::get(AttributeId::PortInfo, 99, path({3})), record);
  ASSERT_TRUE(engine.runUntilIdle());

  ASSERT_EQ(replies.size(), 3U);
  EXPECT_EQ(replies[0].outcome, SmpOutcome::BadStatus);
  EXPECT_EQ(replies[0].status, madstatus::kBusy);
  ASSERT_TRUE(replies[0].smp);  // the response itself is there to look at
  EXPECT_EQ(replies[1].status, madstatus::kMethodAttrUnsupported);
  EXPECT_EQ(replies[2].status, madstatus::kInvalidField);
  EXPECT_EQ(engine.counters().errors, 3U);
  EXPECT_EQ(engine.counters().retries, 0U);                               // an answer is an answer
  EXPECT_TRUE(describeMadStatus(replies[0].status).starts_with("busy"));  // as MAD-0102 says it
}

TEST_F(MadEngineTest, ASendFailureFailsThatRequestOnly) {
  MadEngine engine = makeEngine();
  wire.failNextSend();
  std::vector<SmpOutcome> outcomes;
  for (int i = 0; i < 3; ++i) {
    engine.submit(SmpRequest::get(AttributeId::NodeInfo, 0, DrPath{}),
                  [&](const SmpRequest&, const SmpReply& r) { outcomes.push_back(r.outcome); });
  }
  ASSERT_TRUE(engine.runUntilIdle());
  EXPECT_EQ(outcomes,
            (std::vector<SmpOutcome>{SmpOutcome::SendFailed, SmpOutcome::Ok, SmpOutcome::Ok}));
  EXPECT_EQ(engine.counters().sendFailures, 1U);
}

TEST_F(MadEngineTest, SetsGoOutWithTheirDataAndChangeTheFabric) {
  MadEngine engine = makeEngine();
  LftBlock block;
  block.ports.fill(3);
  std::optional<SmpReply> reply;
  engine.submit(SmpRequest::set(AttributeId::LinearForwardingTable, 1, path({3}), encode(block)),
                [&](const SmpRequest&, const SmpReply& r) { reply = r; });
  ASSERT_TRUE(engine.runUntilIdle());
  ASSERT_TRUE(reply && reply->ok());
  EXPECT_EQ(decodeLftBlock(reply->smp->data), block);
  ASSERT_EQ(wire.lft(1).size(), 128U);
  EXPECT_EQ(wire.lft(1)[64], 3);
}

TEST_F(MadEngineTest, AnswersAnSmInfoQueryWhileASweepIsRunning) {
  MadEngine engine = makeEngine(1);
  wire.setFaults([](const Smp&, std::size_t) { return Fate::delayed(1ms); });
  const SmInfo mine{
      .guid = kSw0, .smKey = 0, .actCount = 9, .priority = 5, .smState = SmState::Master};
  std::vector<IncomingSmp> asked;
  engine.onUnsolicited([&](const IncomingSmp& in) {
    asked.push_back(in);
    EXPECT_TRUE(engine.respond(in, encode(mine)));
  });
  int done = 0;
  for (int i = 0; i < 10; ++i) {
    engine.submit(SmpRequest::get(AttributeId::NodeInfo, 0, DrPath{}),
                  [&](const SmpRequest&, const SmpReply&) { ++done; });
  }
  Smp query = Smp::lidRouted(Method::Get, AttributeId::SmInfo, 0);
  query.header.tid = 0x0005000700000099;
  wire.inject(query, MadAddress::toLid(Lid{7}), 2500us);
  ASSERT_TRUE(engine.runUntilIdle());

  EXPECT_EQ(done, 10);
  ASSERT_EQ(asked.size(), 1U);
  EXPECT_EQ(engine.counters().unsolicited, 1U);
  const auto it = std::ranges::find_if(
      wire.sent(), [](const auto& s) { return s.smp.header.method == Method::GetResp; });
  ASSERT_NE(it, wire.sent().end());
  EXPECT_NE(it + 1, wire.sent().end()) << "answered only after the sweep";
  const auto& answer = *it;
  EXPECT_EQ(answer.to, MadAddress::toLid(Lid{7}));
  EXPECT_EQ(answer.smp.header.method, Method::GetResp);
  EXPECT_EQ(answer.smp.header.tid, 0x0005000700000099U);  // the asker's TID, whole
  EXPECT_EQ(answer.smp.header.attributeId, AttributeId::SmInfo);
  EXPECT_EQ(decodeSmInfo(answer.smp.data), mine);
}

TEST_F(MadEngineTest, AnswersADirectedRouteQueryOnItsReturnPath) {
  MadEngine engine = makeEngine();
  engine.onUnsolicited([&](const IncomingSmp& in) {
    EXPECT_TRUE(engine.respond(in, encode(SmInfo{}), madstatus::kInvalidField));
  });
  Smp query = Smp::directed(Method::Get, AttributeId::SmInfo, 0, path({3, 3}));
  query.returnPath[1] = 3;
  query.returnPath[2] = 3;
  wire.inject(query, MadAddress::directed());
  ASSERT_TRUE(engine.runUntil(wire.now() + 1ms));

  ASSERT_EQ(wire.sent().size(), 1U);
  const Smp& answer = wire.sent()[0].smp;
  EXPECT_TRUE(answer.header.direction);
  EXPECT_EQ(answer.header.status, madstatus::kInvalidField);
  EXPECT_EQ(answer.header.hopCount, 2);
  EXPECT_EQ(answer.returnPath, query.returnPath);
  EXPECT_EQ(wire.sent()[0].to, MadAddress::directed());
}

TEST_F(MadEngineTest, RepressesATrapAndDropsUnsolicitedMadsWithoutAHandler) {
  MadEngine engine = makeEngine();
  Smp trap = Smp::lidRouted(Method::Trap, AttributeId::Notice, 0);
  Notice notice;
  notice.trapNumber = 128;
  notice.dataDetails = encodeDetails(Trap128Details{Lid{3}});
  trap.data = encode(notice);
  wire.inject(trap, MadAddress::toLid(Lid{3}));
  ASSERT_TRUE(engine.runUntil(wire.now() + 1ms));
  EXPECT_TRUE(wire.sent().empty());
  EXPECT_EQ(engine.counters().unhandled, 1U);

  std::vector<Trap128Details> traps;
  engine.onUnsolicited([&](const IncomingSmp& in) {
    traps.push_back(decodeTrap128(decodeNotice(in.smp.data)));
    EXPECT_TRUE(engine.repress(in));
  });
  wire.inject(trap, MadAddress::toLid(Lid{3}));
  ASSERT_TRUE(engine.runUntil(wire.now() + 1ms));
  ASSERT_EQ(traps.size(), 1U);
  EXPECT_EQ(traps[0].lid, Lid{3});
  ASSERT_EQ(wire.sent().size(), 1U);
  EXPECT_EQ(wire.sent()[0].smp.header.method, Method::TrapRepress);
  EXPECT_EQ(wire.sent()[0].to, MadAddress::toLid(Lid{3}));
}

TEST_F(MadEngineTest, DropsAMalformedMadAndCountsIt) {
  MadEngine engine = makeEngine();
  Smp odd = Smp::lidRouted(Method::Get, AttributeId::SmInfo, 0);
  odd.header.baseVersion = 2;
  wire.inject(odd, MadAddress::toLid(Lid{4}));
  ASSERT_TRUE(engine.runUntil(wire.now() + 1ms));
  EXPECT_EQ(engine.counters().malformed, 1U);
}

}  // namespace
}  // namespace ibsm
