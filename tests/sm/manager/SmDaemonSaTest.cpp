// The daemon serves Subnet Administration only as MASTER: SA GMPs from the
// port reach the responder while this SM is master -- also between the
// SMPs of a sweep -- and are dropped, counted, otherwise (not master, no
// responder, not an SA MAD); none of them ever stops the daemon. A standby
// that takes over starts answering. Against the in-memory fake fabric on
// its clock, with GMPs injected at chosen times (tests/sm/support/
// GmpInjector.h) and a small responder that echoes a GetResp; the tests
// read the status's `sa` counters and the answers sent.
#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/sinks/ostream_sink.h>

#include <csignal>
#include <filesystem>
#include <sstream>

#include "sm/control/Metrics.h"
#include "sm/control/StatusFormat.h"
#include "sm/loop/EventLoop.h"
#include "sm/manager/SmDaemon.h"
#include "tests/sm/manager/DaemonOnFakeFabric.h"
#include "tests/sm/program/SubnetSnapshot.h"
#include "tests/sm/support/FakeFabricTransport.h"
#include "tests/sm/support/GmpInjector.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::sm::manager {
namespace {

using namespace std::chrono_literals;
using ibsm::testing::FakeFabricTransport;
using ibsm::testing::GmpInjector;

constexpr std::uint8_t kGet = 0x01;
constexpr std::uint8_t kGetResp = 0x81;
constexpr std::uint16_t kClassPortInfo = 0x0001;
// Where the queries come from: a host's QP1, without a GRH.
const GmpAddress kHost{.lid = Lid{42}, .qpn = 1, .sl = 0, .pkeyIndex = 0, .gid = std::nullopt};

// An SA Get of `attribute` with TID `tid`, as a host sends it.
std::vector<std::uint8_t> saGet(std::uint64_t tid, std::uint16_t attribute = kClassPortInfo) {
  std::vector<std::uint8_t> mad(kMadSize, 0);
  mad[0] = 1;  // base version
  mad[1] = kSaClass;
  mad[2] = kSaClassVersion;
  mad[3] = kGet;
  for (int i = 0; i < 8; ++i) mad[8 + i] = static_cast<std::uint8_t>(tid >> (56 - 8 * i));
  mad[16] = static_cast<std::uint8_t>(attribute >> 8);
  mad[17] = static_cast<std::uint8_t>(attribute);
  return mad;
}

std::uint64_t tidOf(const std::vector<std::uint8_t>& mad) {
  std::uint64_t tid = 0;
  for (int i = 0; i < 8; ++i) tid = (tid << 8) | mad[8 + i];
  return tid;
}

// Answers every request with the request itself as a GetResp; calls
// `probe` first (what the test wants to know at the moment it answers).
class EchoResponder final : public GmpResponder {
 public:
  std::function<void()> probe;
  std::optional<std::vector<std::uint8_t>> answer(std::span<const std::uint8_t> request,
                                                  const GmpAddress&) override {
    if (probe) probe();
    std::vector<std::uint8_t> out(request.begin(), request.end());
    out[3] = kGetResp;
    return out;
  }
};

class SmDaemonSaTest : public DaemonOnFakeFabric {
 protected:
  SmDaemonSaTest() : DaemonOnFakeFabric("ibsm-daemon-sa-test") {
    wire_.fabric().port(firstCaPort()).capabilityMask |= capability::kIsSm;
  }

  // A query from kHost at `after` since now.
  void query(std::uint64_t tid, std::chrono::milliseconds after,
             std::vector<std::uint8_t> mad = {}) {
    gmps_.inject({mad.empty() ? saGet(tid) : std::move(mad), kHost}, wire_.now() + after);
  }

  // Another SM, master, on the last CA port; it stops answering SMInfo
  // `after` from now, so this daemon, standby until then, takes over.
  void masterOnLastCaSilentFrom(std::chrono::seconds after) {
    const PortRef other = lastCaPort();
    wire_.fabric().port(other).capabilityMask |= capability::kIsSm;
    wire_.runSm(other, SmInfo{.guid = wire_.fabric().port(other).guid,
                              .smKey = kDefaultSmKey,
                              .priority = 5,
                              .smState = SmState::Master});
    const auto silentFrom = wire_.now() + after;
    wire_.setFaults([this, silentFrom](const Smp& request, std::size_t) {
      return FakeFabricTransport::Fate::dropped(request.header.attributeId == AttributeId::SmInfo &&
                                                wire_.now() >= silentFrom);
    });
    settings_.pollingTimeout = 1s;
    settings_.pollingRetries = 2;
  }

  // Runs the daemon until SIGTERM at `stopAt`; running_ is its status a
  // second before (`ibsm status`), status_ its last (--stats).
  int run(std::chrono::milliseconds stopAt, std::shared_ptr<GmpResponder> responder,
          std::shared_ptr<GroupSource> groups = nullptr,
          std::shared_ptr<spdlog::logger> log = quiet()) {
    return runReloading(stopAt, std::move(responder), {}, {}, std::move(groups), std::move(log));
  }
  // The same with a SIGHUP at `hupAt` that takes `reload`'s settings.
  int runReloading(std::chrono::milliseconds stopAt, std::shared_ptr<GmpResponder> responder,
                   ReloadSettings reload, std::optional<std::chrono::milliseconds> hupAt,
                   std::shared_ptr<GroupSource> groups = nullptr,
                   std::shared_ptr<spdlog::logger> log = quiet()) {
    SmDaemon daemon(*engine_, loop_, store_, wire_.fabric().port(firstCaPort()).guid, settings_,
                    std::move(reload), std::move(log));
    daemon.serveSa(gmps_, std::move(responder));
    if (groups) daemon.manageMulticast(std::move(groups));
    auto stop = loop_.at(wire_.now() + stopAt, [&daemon] { daemon.signal(SIGTERM); });
    auto look = loop_.at(wire_.now() + stopAt - 1s, [&] { running_ = daemon.status(); });
    std::optional<loop::EventLoop::TimerId> hup;
    if (hupAt) hup = loop_.at(wire_.now() + *hupAt, [&daemon] { daemon.signal(SIGHUP); });
    const int code = daemon.run();
    loop_.cancel(stop);
    loop_.cancel(look);
    if (hup) loop_.cancel(*hup);
    status_ = daemon.status();
    return code;
  }

  control::DaemonStatus running_;
  control::DaemonStatus status_;
};

TEST_F(SmDaemonSaTest, AnswersOnlyAsMasterToTheSenderWithItsTid) {
  query(0x1111, 0ms);  // while DISCOVERING
  query(0x2222, 5s);   // master, the subnet up
  EXPECT_EQ(run(8s, std::make_shared<EchoResponder>()), 0);
  EXPECT_EQ(running_.state, "MASTER");
  EXPECT_EQ(status_.sa.traffic.received, 2U);
  EXPECT_EQ(status_.sa.traffic.droppedNotMaster, 1U);
  EXPECT_EQ(status_.sa.traffic.answered, 1U);
  ASSERT_EQ(gmps_.sentGmps().size(), 1U);
  const auto& sent = gmps_.sentGmps().front();
  EXPECT_EQ(tidOf(sent.mad), 0x2222U);
  EXPECT_EQ(sent.mad[3], kGetResp);
  EXPECT_EQ(sent.to, kHost);
}

TEST_F(SmDaemonSaTest, AFloodingHostWaitsBehindItsOwnQueriesNotInFrontOfAnothers) {
  // 100 queries from kHost, then one from another host, all on the wire
  // together: the other host's is answered in the first turn after it is
  // read (round-robin per requester, sm/sa/FairQueue.h), and the flood's
  // oldest past its queue's bound are dropped unanswered, counted.
  const GmpAddress victim{.lid = Lid{43}, .qpn = 1, .sl = 0, .pkeyIndex = 0, .gid = std::nullopt};
  for (std::uint64_t tid = 1; tid <= 100; ++tid) query(tid, 5s);
  gmps_.inject({saGet(0x7777), victim}, wire_.now() + 5s);
  EXPECT_EQ(run(8s, std::make_shared<EchoResponder>()), 0);
  const auto& sent = gmps_.sentGmps();
  const auto victims = std::ranges::find_if(sent, [&](const auto& g) { return g.to == victim; });
  ASSERT_NE(victims, sent.end());
  EXPECT_EQ(tidOf(victims->mad), 0x7777U);
  // Read after 100 of the flood, answered before all but a turn's worth
  // of them (one turn per sa.queue_reads_per_turn reads).
  const auto before = static_cast<std::size_t>(victims - sent.begin());
  EXPECT_LE(before, 100 / settings_.saReadsPerTurn + 1);
  const sa::FairQueueCounters& f = status_.sa.queue;
  EXPECT_EQ(f.queued, 101U);
  EXPECT_GT(f.droppedRequesterFull, 0U);
  EXPECT_EQ(status_.sa.traffic.answered + f.droppedRequesterFull + f.droppedTotalFull, 101U);
  EXPECT_EQ(status_.sa.requestersWaiting, 0U) << "all served by the end";
  // The flood's answers kept its order.
  std::uint64_t last = 0;
  for (const auto& g : sent) {
    if (g.to != kHost) continue;
    EXPECT_GT(tidOf(g.mad), last);
    last = tidOf(g.mad);
  }
}

TEST_F(SmDaemonSaTest, TheFairQueuesLimitsAreTheConfiguredOnes) {
  // sa.queue_per_requester = 4, sa.queue_reads_per_turn = 2: the flood's
  // queue never holds more than 4 (16 by default), and a turn is served
  // every 2 requests read, so the victim, read after the 100, follows
  // about 50 of the flood's answers (about 13 with the default 8).
  settings_.saQueue = {.perRequester = 4, .total = 64};
  settings_.saReadsPerTurn = 2;
  const GmpAddress victim{.lid = Lid{43}, .qpn = 1, .sl = 0, .pkeyIndex = 0, .gid = std::nullopt};
  for (std::uint64_t tid = 1; tid <= 100; ++tid) query(tid, 5s);
  gmps_.inject({saGet(0x7777), victim}, wire_.now() + 5s);
  EXPECT_EQ(run(8s, std::make_shared<EchoResponder>()), 0);
  const sa::FairQueueCounters& f = status_.sa.queue;
  EXPECT_EQ(f.largestEver, 4U);
  EXPECT_GT(f.droppedRequesterFull, 0U);
  EXPECT_EQ(status_.sa.traffic.answered + f.droppedRequesterFull + f.droppedTotalFull, 101U);
  const auto& sent = gmps_.sentGmps();
  const auto victims = std::ranges::find_if(sent, [&](const auto& g) { return g.to == victim; });
  ASSERT_NE(victims, sent.end());
  const auto before = static_cast<std::size_t>(victims - sent.begin());
  EXPECT_GE(before, 100U / 2 - 2);
  EXPECT_LE(before, 100U / 2 + 1);
}

TEST_F(SmDaemonSaTest, ASighupAppliesTheFairQueuesNewLimits) {
  // Started with the defaults; a reload at 4 s brings sa.queue_per_requester
  // = 4, sa.queue_reads_per_turn = 2, and the flood at 5 s meets them.
  const auto tighter = [this]() -> Result<DaemonSettings> {
    DaemonSettings s = settings_;
    s.saQueue = {.perRequester = 4, .total = 64};
    s.saReadsPerTurn = 2;
    return s;
  };
  for (std::uint64_t tid = 1; tid <= 100; ++tid) query(tid, 5s);
  EXPECT_EQ(runReloading(8s, std::make_shared<EchoResponder>(), tighter, 4s), 0);
  EXPECT_EQ(status_.reloads.taken, 1U);
  EXPECT_EQ(status_.sa.queue.largestEver, 4U);
  EXPECT_EQ(status_.sa.traffic.answered + status_.sa.queue.droppedRequesterFull, 100U);
}

TEST_F(SmDaemonSaTest, TheSmKeyAppearsInNoLogLineStatusOrMetrics) {
  // Issue 29: the SM_Key is a secret shared by the SMs of a subnet; every
  // line logged (at trace level), the status as text and JSON and the
  // metrics are searched for it in hex, either case, and in decimal.
  settings_.smKey = 0x5EC2E7C0FFEE1234;
  std::ostringstream logged;
  auto log = std::make_shared<spdlog::logger>(
      "sm-key-test", std::make_shared<spdlog::sinks::ostream_sink_st>(logged));
  log->set_level(spdlog::level::trace);
  query(1, 5s);
  EXPECT_EQ(run(8s, std::make_shared<EchoResponder>(), nullptr, log), 0);
  ASSERT_EQ(running_.state, "MASTER");
  const std::string outputs[] = {logged.str(), control::formatStatus(running_),
                                 control::formatStatusJson(running_),
                                 control::formatMetrics(running_, health::HealthView{})};
  ASSERT_FALSE(outputs[0].empty()) << "the log was captured";
  for (const std::string& key : {std::string("5ec2e7c0ffee1234"), std::string("5EC2E7C0FFEE1234"),
                                 std::to_string(settings_.smKey)}) {
    for (const std::string& out : outputs) EXPECT_EQ(out.find(key), std::string::npos) << key;
  }
}

TEST_F(SmDaemonSaTest, AnswersBetweenTheSmpsOfASweep) {
  // The query arrives with the first Set of the first master sweep.
  bool injected = false;
  wire_.setFaults([&](const Smp& request, std::size_t) {
    if (!injected && request.header.method == Method::Set) {
      injected = true;
      query(0x3333, 0ms);
    }
    return FakeFabricTransport::Fate{};
  });
  auto responder = std::make_shared<EchoResponder>();
  std::size_t outstanding = 0;
  responder->probe = [&] { outstanding = engine_->outstanding(); };
  EXPECT_EQ(run(8s, responder), 0);
  ASSERT_TRUE(injected);
  EXPECT_EQ(status_.sa.traffic.answered, 1U);
  EXPECT_GT(outstanding, 0U) << "answered only once the sweep's SMPs were done";
  EXPECT_TRUE(running_.up);
}

TEST_F(SmDaemonSaTest, AJoinIsProgrammedWithinTheBatchNotAtTheNextTimer) {
  // The join is answered inside the transport's receive, in the daemon's
  // wait for its next timer; the MFTs must follow the batch window later,
  // not when that wait ends (here 30 s on).
  settings_.sweepInterval = 30s;
  settings_.pollingTimeout = 30s;
  settings_.multicastBatch = 20ms;
  std::uint64_t generation = 0;
  const Guid member = wire_.fabric().port(lastCaPort()).guid;
  // One group with one member from the first join on.
  struct OneGroup final : GroupSource {
    const std::uint64_t& generation_;
    Guid member;
    OneGroup(const std::uint64_t& g, Guid m) : generation_(g), member(m) {}
    std::uint64_t generation() const override { return generation_; }
    std::vector<McGroupRoute> routes() const override {
      std::vector<McGroupRoute> routes;
      if (generation_ > 0)
        routes.push_back({.mgid = ipoibBroadcastMgid(0xffff),
                          .mlid = kFirstMlid,
                          .members = {{.portGuid = member, .receives = true}}});
      return routes;
    }
  };
  auto groups = std::make_shared<OneGroup>(generation, member);
  auto responder = std::make_shared<EchoResponder>();
  responder->probe = [&] { ++generation; };  // the query stands for a join
  query(1, 5s);
  EXPECT_EQ(run(6500ms, responder, std::move(groups)), 0);  // looks at 5.5 s
  ASSERT_EQ(running_.sa.traffic.answered, 1U);
  EXPECT_EQ(running_.multicast.passes, 1U) << "the pass waited for the next timer";
  EXPECT_EQ(running_.multicast.members, 1U);
}

TEST_F(SmDaemonSaTest, WithoutAResponderEveryQueryIsDroppedAndCounted) {
  query(1, 5s);
  query(2, 6s);
  EXPECT_EQ(run(8s, nullptr), 0);
  EXPECT_EQ(status_.sa.traffic.received, 2U);
  EXPECT_EQ(status_.sa.traffic.droppedNoResponder, 2U);
  EXPECT_TRUE(gmps_.sentGmps().empty());
}

TEST_F(SmDaemonSaTest, MadsThatAreNotSaQueriesAreDroppedNeverFatal) {
  query(1, 5s, std::vector<std::uint8_t>(10, 0));  // shorter than a MAD header
  auto oldVersion = saGet(2);
  oldVersion[2] = 1;
  query(2, 5s, oldVersion);
  query(3, 6s);  // and the next good one is answered
  EXPECT_EQ(run(8s, std::make_shared<EchoResponder>()), 0);
  EXPECT_EQ(status_.sa.traffic.droppedUndecodable, 2U);
  EXPECT_EQ(status_.sa.traffic.answered, 1U);
}

TEST_F(SmDaemonSaTest, AnAnswerThatCannotBeSentIsCountedNotFatal) {
  gmps_.failSends();
  query(1, 5s);
  EXPECT_EQ(run(8s, std::make_shared<EchoResponder>()), 0);
  EXPECT_EQ(status_.sa.traffic.sendFailed, 1U);
  EXPECT_EQ(status_.sa.traffic.answered, 0U);
  EXPECT_EQ(running_.state, "MASTER");
}

TEST_F(SmDaemonSaTest, AStandbyStartsAnsweringWhenItTakesOver) {
  masterOnLastCaSilentFrom(20s);
  query(1, 10s);  // standby
  query(2, 50s);  // master since the takeover
  EXPECT_EQ(run(55s, std::make_shared<EchoResponder>()), 0);
  EXPECT_EQ(running_.state, "MASTER");
  EXPECT_EQ(status_.sa.traffic.droppedNotMaster, 1U);
  EXPECT_EQ(status_.sa.traffic.answered, 1U);
  ASSERT_EQ(gmps_.sentGmps().size(), 1U);
  EXPECT_EQ(tidOf(gmps_.sentGmps().front().mad), 2U);
}

TEST_F(SmDaemonSaTest, ATakeoverAsksEveryManagedPortToReregisterExactlyOnce) {
  // Hosts re-register with the new SA only when told (PortInfo
  // ClientReregister): every CA port that supports it is asked once by the
  // standby that takes over -- not while it is standby, not again on the
  // light sweeps that follow.
  std::vector<PortRef> supporting;
  for (NodeId n : wire_.fabric().endNodes()) {
    const PortRef p{n, 1};
    wire_.fabric().port(p).capabilityMask |= capability::kIsClientReregistrationSupported;
    supporting.push_back(p);
  }
  masterOnLastCaSilentFrom(20s);
  settings_.sweepInterval = 5s;  // light sweeps after the takeover ask no one again
  std::vector<unsigned> whileStandby;
  auto look = loop_.at(wire_.now() + 15s, [&] {
    for (PortRef p : supporting) whileStandby.push_back(wire_.reregistrations(p));
  });
  query(1, 80s);
  EXPECT_EQ(run(90s, std::make_shared<EchoResponder>()), 0);
  loop_.cancel(look);
  EXPECT_EQ(running_.state, "MASTER");
  EXPECT_TRUE(running_.up);
  EXPECT_EQ(status_.sa.traffic.answered, 1U);
  ASSERT_EQ(whileStandby.size(), supporting.size());
  for (std::size_t i = 0; i < supporting.size(); ++i) {
    EXPECT_EQ(whileStandby[i], 0U) << "asked while standby: port " << i;
    EXPECT_EQ(wire_.reregistrations(supporting[i]), 1U) << "port " << i;
  }
}

}  // namespace
}  // namespace ibsm::sm::manager
