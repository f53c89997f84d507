// Discovery when the wire misbehaves or the fabric changes under the sweep:
// lost and duplicated MADs, nodes that never answer or refuse one
// attribute, cables cut or moved between two BFS steps. The result must
// stay whole where it can and self-consistent everywhere: a cable only when
// both ends agree, and every port left unconnected named in `problems`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>

#include <algorithm>
#include <random>
#include <sstream>

#include "sm/discovery/Discovery.h"
#include "tests/sm/discovery/DiscoveryChecks.h"
#include "tests/sm/support/DyingPort.h"
#include "tests/sm/support/FakeFabricTransport.h"
#include "tests/support/FabricBuilder.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::sm::discovery {
namespace {

using namespace std::chrono_literals;
using ::testing::AllOf;
using testing::Compare;
using ::testing::Contains;
using testing::FakeFabricTransport;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using Fate = FakeFabricTransport::Fate;

class DiscoveryFaultTest : public ::testing::Test {
 protected:
  void useFabric(Fabric fabric) {
    smPort_ = testing::firstNodePort(fabric);
    wire_ = std::make_unique<FakeFabricTransport>(std::move(fabric), smPort_);
  }
  FakeFabricTransport& wire() { return *wire_; }
  const Fabric& truth() const { return wire_->fabric(); }

  Result<DiscoveredSubnet> discover(DiscoveryOptions options = {}, unsigned retries = 3) {
    MadEngineOptions o;
    o.window = 16;
    o.timeout = 200ms;
    o.retries = retries;
    o.clock = wire_->clock();
    o.logger = logger_;
    MadEngine engine(*wire_, o);
    Discovery discovery(engine, options, logger_);
    auto subnet = discovery.run();
    counters_ = discovery.counters();
    if (subnet) expectSelfConsistent(*subnet);
    return subnet;
  }

  // The nodes an SMP passes through or lands on, in the fake's fabric now.
  std::vector<NodeId> nodesOn(const Smp& smp) const {
    return testing::nodesOnPath(truth(), smPort_,
                                std::span(smp.initialPath).subspan(1, smp.header.hopCount));
  }
  bool landsOn(const Smp& smp, NodeId node) const {
    const auto nodes = nodesOn(smp);
    return nodes.size() == std::size_t{smp.header.hopCount} + 1 && nodes.back() == node;
  }

  // A NodeInfo sent out of `port` of `node` (its last hop leaves `node`).
  bool probesOutOf(const Smp& smp, NodeId node, std::uint8_t port) const {
    const auto nodes = nodesOn(smp);
    const std::size_t hops = smp.header.hopCount;
    return smp.header.attributeId == AttributeId::NodeInfo && hops >= 1 && nodes.size() >= hops &&
           nodes[hops - 1] == node && smp.initialPath[hops] == port;
  }

  // Every cable has both ends up; every up port without a cable is listed
  // as unconfirmed and named by a problem line.
  void expectSelfConsistent(const DiscoveredSubnet& s) const {
    const Fabric& f = s.fabric;
    for (NodeId id = 0; id < f.size(); ++id) {
      const Node& n = f.node(id);
      for (std::uint8_t p = 1; p <= n.numPorts(); ++p) {
        const PortRef ref{id, p};
        const auto pi = s.portInfo.find(ref);
        if (f.port(ref).connected()) {
          ASSERT_NE(pi, s.portInfo.end()) << f.describe(ref);
          EXPECT_GE(pi->second.portState, PortState::Init) << f.describe(ref);
          continue;
        }
        if (pi == s.portInfo.end() || pi->second.portState < PortState::Init) continue;
        EXPECT_THAT(s.unconfirmedLinks, Contains(ref)) << f.describe(ref);
        const std::string named = fmt::format("\"{}\"[{}]", n.description, p);
        EXPECT_TRUE(std::ranges::any_of(
            s.problems, [&](const std::string& line) { return line.contains(named); }))
            << named << " is up, unconnected and not in problems";
      }
    }
  }

  PortRef smPort_;
  std::unique_ptr<FakeFabricTransport> wire_;
  DiscoveryCounters counters_;
  std::ostringstream log_;
  std::shared_ptr<spdlog::logger> logger_ = std::make_shared<spdlog::logger>(
      "discovery", std::make_shared<spdlog::sinks::ostream_sink_st>(log_));
};

TEST_F(DiscoveryFaultTest, TenPercentLostSmpsAreRetriedAndTheResultIsComplete) {
  useFabric(testing::generatedFabric(FatTreeSpec{.levels = 3, .radix = 8}));
  const Fabric before = truth();
  std::mt19937_64 draw(7);
  wire().setFaults([&](const Smp&, std::size_t) {
    return Fate::dropped(std::uniform_int_distribution<int>(0, 9)(draw) == 0);
  });
  // Five retries: a request is lost for good once in a million at 10% loss.
  auto subnet = discover({}, /*retries=*/5);
  ASSERT_TRUE(subnet);
  EXPECT_THAT(testing::compareFabrics(before, subnet->fabric, Compare::Everything), IsEmpty());
  EXPECT_THAT(subnet->problems, IsEmpty());
  EXPECT_GT(counters_.retries, counters_.madsSent / 20);
  EXPECT_EQ(counters_.timeouts, 0U);
}

TEST_F(DiscoveryFaultTest, DuplicatedAnswersChangeNothing) {
  useFabric(testing::generatedFabric(FatTreeSpec{.levels = 2, .radix = 8}));
  wire().setFaults([](const Smp&, std::size_t) { return Fate::duplicated(2); });
  auto subnet = discover();
  ASSERT_TRUE(subnet);
  EXPECT_THAT(testing::compareFabrics(truth(), subnet->fabric, Compare::Everything), IsEmpty());
  EXPECT_THAT(subnet->problems, IsEmpty());
}

TEST_F(DiscoveryFaultTest, ASilentSwitchIsReportedAtEveryPortThatLeadsToItAndTheRestIsFound) {
  useFabric(testing::generatedFabric(FatTreeSpec{.levels = 3, .radix = 8}));
  const NodeId dead = testing::nodeNamed(truth(), "core0");
  wire().setFaults([&](const Smp& smp, std::size_t) {
    const auto nodes = nodesOn(smp);
    return Fate::dropped(std::ranges::find(nodes, dead) != nodes.end());
  });
  auto subnet = discover();
  ASSERT_TRUE(subnet);

  // Expected: the fabric without core0's cables, and core0 missing.
  Fabric expected = truth();
  std::vector<std::string> neighbours;
  for (std::uint8_t p = 1; p <= expected.node(dead).numPorts(); ++p) {
    const PortRef far = *expected.node(dead).ports[p].remote;
    neighbours.push_back(fmt::format("\"{}\"[{}]", expected.node(far.node).description, far.port));
    expected.disconnect({dead, p});
  }
  EXPECT_THAT(testing::compareFabrics(expected, subnet->fabric, Compare::Everything),
              ::testing::ElementsAre(HasSubstr("\"core0\"")));
  EXPECT_EQ(subnet->problems.size(), neighbours.size());
  EXPECT_EQ(subnet->unconfirmedLinks.size(), neighbours.size());
  for (const auto& name : neighbours) {
    EXPECT_THAT(subnet->problems, Contains(::testing::AllOf(HasSubstr("DISC-0201"), HasSubstr(name),
                                                            HasSubstr("no response after 4"))));
  }
  EXPECT_EQ(counters_.problems, neighbours.size());  // each one logged
}

TEST_F(DiscoveryFaultTest, AnAttributeRefusedByOneNodeIsReportedAndTheNodeKept) {
  useFabric(testing::generatedFabric(FatTreeSpec{.levels = 2, .radix = 8}));
  const NodeId host = testing::nodeNamed(truth(), "h1_2");
  wire().setFaults([&](const Smp& smp, std::size_t) {
    const bool refuse =
        smp.header.attributeId == AttributeId::NodeDescription && landsOn(smp, host);
    return refuse ? Fate::answeredWith(madstatus::kInvalidField) : Fate{};
  });
  auto subnet = discover();
  ASSERT_TRUE(subnet);
  const auto found = subnet->fabric.findNode(truth().node(host).guid);
  ASSERT_TRUE(found);
  EXPECT_EQ(subnet->fabric.node(*found).description, "");
  EXPECT_TRUE(subnet->fabric.node(*found).ports[1].connected());
  ASSERT_EQ(subnet->problems.size(), 1U);
  EXPECT_THAT(subnet->problems[0], HasSubstr("DISC-0202"));
  EXPECT_THAT(subnet->problems[0], HasSubstr("invalid field"));
}

TEST_F(DiscoveryFaultTest, APortWhosePortInfoFailsCarriesNoCableAndItsPeerIsReported) {
  useFabric(testing::generatedFabric(FatTreeSpec{.levels = 2, .radix = 8}));
  const NodeId spine = testing::nodeNamed(truth(), "spine1");
  const PortRef far = *truth().port({spine, 3}).remote;
  wire().setFaults([&](const Smp& smp, std::size_t) {
    const bool refuse = smp.header.attributeId == AttributeId::PortInfo &&
                        smp.header.attributeModifier == 3 && landsOn(smp, spine);
    return refuse ? Fate::answeredWith(madstatus::kBusy) : Fate{};
  });
  auto subnet = discover();
  ASSERT_TRUE(subnet);
  const Fabric& f = subnet->fabric;
  const PortRef farFound{*f.findNode(truth().node(far.node).guid), far.port};
  EXPECT_FALSE(f.port(farFound).connected());
  EXPECT_EQ(f.port({*f.findNode(truth().node(spine).guid), 3}).state, PortState::Down);
  EXPECT_THAT(subnet->problems, Contains(HasSubstr("DISC-0203 PortInfo of \"spine1\"[3]")));
  EXPECT_THAT(subnet->problems, Contains(AllOf(HasSubstr("DISC-0309"), HasSubstr("\"spine1\"[3]"),
                                               HasSubstr("could not be read"))));
  EXPECT_EQ(subnet->unconfirmedLinks, std::vector{farFound});
}

TEST_F(DiscoveryFaultTest, ACableCutAfterOneEndWasSeenIsLeftOutWhole) {
  useFabric(testing::generatedFabric(FatTreeSpec{.levels = 2, .radix = 8}));
  // spine3 and leaf5 are each first reached through other switches, so the
  // cut only takes their cable: spine3's NodeInfo through it is answered,
  // then the cable goes before leaf5 can look back.
  const NodeId spine = testing::nodeNamed(truth(), "spine3");
  const NodeId leaf = testing::nodeNamed(truth(), "leaf5");
  std::uint8_t spinePort = 0, leafPort = 0;
  for (std::uint8_t p = 1; p <= truth().node(spine).numPorts(); ++p) {
    const auto& r = truth().node(spine).ports[p].remote;
    if (r && r->node == leaf) spinePort = p, leafPort = r->port;
  }
  ASSERT_NE(spinePort, 0);
  bool armed = false, cut = false;
  wire().setFaults([&](const Smp& smp, std::size_t) {
    if (armed && !cut) {
      wire().fabric().disconnect({spine, spinePort});
      cut = true;
    }
    armed = armed || probesOutOf(smp, spine, spinePort);
    return Fate{};
  });
  auto subnet = discover();
  ASSERT_TRUE(subnet);
  ASSERT_TRUE(cut);
  for (const DrPath& path : subnet->pathTo) {
    const auto nodes = testing::nodesOnPath(truth(), smPort_, path.ports());
    ASSERT_FALSE(std::ranges::find(nodes, spine) != nodes.end() &&
                 std::ranges::find(nodes, leaf) != nodes.end())
        << "precondition: no node is first reached over the cut cable, DR " << path.toString();
  }
  EXPECT_EQ(testing::cableList(subnet->fabric), testing::cableList(truth()));
  const std::string spineEnd = fmt::format("\"spine3\"[{}]", spinePort);
  const std::string leafEnd = fmt::format("\"leaf5\"[{}]", leafPort);
  EXPECT_THAT(subnet->unconfirmedLinks,
              Contains(PortRef{*subnet->fabric.findNode(truth().node(spine).guid), spinePort}));
  ASSERT_THAT(subnet->problems, Contains(AllOf(HasSubstr("DISC-0302 " + spineEnd),
                                               HasSubstr("leads to " + leafEnd))));
  for (const std::string& line : subnet->problems)
    EXPECT_TRUE(line.contains(spineEnd) || line.contains(leafEnd)) << line;
}

TEST_F(DiscoveryFaultTest, ACableCutWhileTheProbeCrossesItLeavesThePortSilent) {
  useFabric(testing::generatedFabric(FatTreeSpec{.levels = 2, .radix = 8}));
  const NodeId leaf = testing::nodeNamed(truth(), "leaf3");
  const std::uint8_t up = truth().node(leaf).numPorts();  // its last port leads to a spine
  // The spine, nearer the SM, probes that cable; leaf3 does not probe it back.
  const PortRef spine = *truth().port({leaf, up}).remote;
  bool cut = false;
  wire().setFaults([&](const Smp& smp, std::size_t) {
    if (!cut && probesOutOf(smp, spine.node, spine.port)) {
      wire().fabric().disconnect(spine);
      cut = true;
    }
    return Fate{};
  });
  auto subnet = discover();
  ASSERT_TRUE(subnet);
  ASSERT_TRUE(cut);
  EXPECT_EQ(testing::cableList(subnet->fabric), testing::cableList(truth()));
  EXPECT_THAT(
      subnet->problems,
      Contains(AllOf(
          HasSubstr("DISC-0201"),
          HasSubstr(fmt::format("\"{}\"[{}]", truth().node(spine.node).description, spine.port)))));
}

TEST_F(DiscoveryFaultTest, ACableMovedDuringTheSweepIsAContradictionNotAMerge) {
  testing::FabricBuilder b;
  b.addSwitch("a", 8);  // the SM's node: the first one
  b.addSwitch("b", 8);
  b.addSwitch("c", 8);
  b.addSwitch("d", 8);  // cabled only once c[4] moves to it
  b.cable("a", 1, "b", 1);
  b.cable("a", 2, "c", 2);
  b.cable("b", 2, "c", 4);
  useFabric(b.build());
  const NodeId nb = testing::nodeNamed(truth(), "b");
  const NodeId nc = testing::nodeNamed(truth(), "c");
  const NodeId nd = testing::nodeNamed(truth(), "d");
  // b and c are as far from the SM, so both probe their cable. c's NodeInfo
  // out of port 4 lands on b[2]; then c[4] is re-cabled to d. b's first
  // NodeInfo out of port 2 is lost, so b probes that port after the move.
  bool armed = false, moved = false, lost = false;
  wire().setFaults([&](const Smp& smp, std::size_t) {
    if (armed && !moved) {
      wire().fabric().disconnect({nc, 4});
      EXPECT_TRUE(wire().fabric().connect({nc, 4}, {nd, 1}));
      moved = true;
    }
    armed = armed || probesOutOf(smp, nc, 4);
    if (!lost && probesOutOf(smp, nb, 2)) {
      lost = true;
      return Fate::dropped();
    }
    return Fate{};
  });
  auto subnet = discover();
  ASSERT_TRUE(subnet);
  ASSERT_TRUE(moved);
  // Neither b[2]-c[4] (b's probe found nothing) nor c[4]-d[1] (seen from
  // neither end) is recorded.
  EXPECT_EQ(testing::cableList(subnet->fabric),
            std::vector<std::string>({"0x0000000000200000[1]-0x0000000000200001[1]",
                                      "0x0000000000200000[2]-0x0000000000200002[2]"}));
  EXPECT_THAT(subnet->problems,
              Contains(AllOf(HasSubstr("DISC-0308 \"c\"[4]"), HasSubstr("leads to \"b\"[2]"))));
}

TEST_F(DiscoveryFaultTest, FailsOnlyWhenTheSmsOwnNodeIsSilent) {
  useFabric(testing::generatedFabric(FatTreeSpec{.levels = 2, .radix = 8}));
  wire().setFaults([](const Smp&, std::size_t) { return Fate::dropped(); });
  auto subnet = discover();
  ASSERT_FALSE(subnet);
  EXPECT_THAT(subnet.error().message, HasSubstr("SM's own node"));
  EXPECT_EQ(counters_.madsSent, 4U);  // one NodeInfo, three retries
}

TEST_F(DiscoveryFaultTest, StopsAtTheHopLimitAndSaysWhere) {
  testing::FabricBuilder b;
  b.addSwitch("s0", 4);
  b.addSwitch("s1", 4);
  b.addSwitch("s2", 4);
  b.cable("s0", 1, "s1", 2);
  b.cable("s1", 1, "s2", 2);
  useFabric(b.build());
  auto subnet = discover({.maxHops = 1});
  ASSERT_TRUE(subnet);
  EXPECT_EQ(subnet->fabric.size(), 2U);
  EXPECT_THAT(subnet->problems, ::testing::ElementsAre(AllOf(HasSubstr("DISC-0205 \"s1\"[1]"),
                                                             HasSubstr("2 hops, more than 1"))));
}

// Counts requests on the wire between the engine and the fake.
class CountingTransport final : public MadTransport {
 public:
  explicit CountingTransport(MadTransport& inner) : inner_(inner) {}
  Result<void> send(const MadBuffer& mad, MadAddress to) override {
    ++inFlight_;
    atSend.push_back(inFlight_);
    sentSinceReceive_ = true;
    return inner_.send(mad, to);
  }
  Result<std::optional<ReceivedMad>> receive(MadClock::time_point deadline) override {
    // The engine turns to the wire after sending what it could: the
    // window's fill then (it reads every answer waiting before it sends
    // again, so the count between two turns says nothing).
    if (sentSinceReceive_) atTurn.push_back(inFlight_);
    sentSinceReceive_ = false;
    auto in = inner_.receive(deadline);
    if (in && *in) --inFlight_;
    return in;
  }
  int pollFd() const override { return inner_.pollFd(); }
  std::vector<std::size_t> atSend;  // requests outstanding just after each send
  std::vector<std::size_t> atTurn;  // and when the engine next reads the wire

 private:
  MadTransport& inner_;
  std::size_t inFlight_{0};
  bool sentSinceReceive_{false};
};

TEST_F(DiscoveryFaultTest, KeepsTheEngineWindowFullAcrossBfsLevelsAndNeverOverIt) {
  useFabric(testing::generatedFabric(FatTreeSpec{.levels = 3, .radix = 8}));
  CountingTransport counting(wire());
  MadEngineOptions o;
  o.window = 8;
  o.perNodeWindow = 0;  // the global window's fill: no limit per switch here
  o.clock = wire().clock();
  o.logger = logger_;
  MadEngine engine(counting, o);
  Discovery discovery(engine, {}, logger_);
  auto subnet = discovery.run();
  ASSERT_TRUE(subnet);
  EXPECT_EQ(counting.atSend.size(), discovery.counters().madsSent);
  EXPECT_EQ(std::ranges::max(counting.atSend), 8U);
  const auto full = std::ranges::count(counting.atTurn, 8U);
  // Only the first few round trips (one node known) and the last few (the
  // walk draining) turn to the wire below the window.
  EXPECT_GT(full, static_cast<std::ptrdiff_t>(counting.atTurn.size() * 90 / 100));
  // Every fake round trip takes 10 us; a full window divides the sweep time.
  const auto trips = discovery.counters().elapsed / 10us;
  EXPECT_LT(trips, static_cast<std::int64_t>(counting.atSend.size() / 8 + 20));
}

TEST_F(DiscoveryFaultTest, ASweepCutShortByTheTransportLeavesTheNextSweepWhole) {
  useFabric(testing::generatedFabric(FatTreeSpec{.levels = 2, .radix = 8}));
  testing::DyingPort port(wire(), 50);
  MadEngineOptions o;
  o.window = 8;
  o.clock = wire().clock();
  o.logger = logger_;
  MadEngine engine(port, o);
  {
    Discovery first(engine, {}, logger_);
    auto cut = first.run();
    ASSERT_FALSE(cut);
    EXPECT_THAT(cut.error().message, HasSubstr("port went away"));
    EXPECT_FALSE(engine.cancelled());  // a failed port, not a stop
  }
  // The first sweep's requests all completed (TransportFailed) before its
  // run() returned; their answers, still on the wire, must reach nothing,
  // and the second sweep must see the fabric as it is.
  Discovery second(engine, {}, logger_);
  auto subnet = second.run();
  ASSERT_TRUE(subnet);
  EXPECT_THAT(testing::compareFabrics(truth(), subnet->fabric, Compare::Everything), IsEmpty());
  EXPECT_THAT(subnet->problems, IsEmpty());
}

}  // namespace
}  // namespace ibsm::sm::discovery
