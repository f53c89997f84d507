// MasterSweep::lightSweep() against the in-memory fake fabric: a quiet
// subnet costs one SMP per switch; a pulled cable is routed around from the
// last discovery, writing exactly the LFT blocks whose contents change; a
// new link is left to a heavy sweep.
#include <gtest/gtest.h>
#include <ibsm/Engines.h>
#include <ibsm/Mad.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <unordered_map>

#include "sm/manager/MasterSweep.h"
#include "tests/sm/program/SubnetSnapshot.h"
#include "tests/sm/support/FakeFabricTransport.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::sm::manager {
namespace {

using ibsm::testing::FakeFabricTransport;

// The fake fabric plus what it lacks: SwitchInfo:PortStateChange. A test
// flags the switches whose ports it changed; SwitchInfo Gets to them read
// the bit set until a Set writes 1 to clear it, as IBA 14.2.5.4 says.
class PscWire final : public MadTransport {
 public:
  PscWire(Fabric fabric, PortRef smPort) : inner_(std::move(fabric), smPort), smPort_(smPort) {}

  Result<void> send(const MadBuffer& mad, MadAddress to) override {
    if (auto smp = decodeSmp(mad);
        smp && smp->isDirected() && smp->header.attributeId == AttributeId::SwitchInfo) {
      if (auto at = reached(*smp)) {
        if (smp->header.method == Method::Get) asked_[smp->header.tid] = *at;
        if (smp->header.method == Method::Set && decodeSwitchInfo(smp->data).portStateChange)
          flagged_.erase(*at);
      }
    }
    return inner_.send(mad, to);
  }
  Result<std::optional<ReceivedMad>> receive(MadClock::time_point deadline) override {
    auto got = inner_.receive(deadline);
    if (!got || !*got) return got;
    auto smp = decodeSmp((*got)->mad);
    if (!smp || smp->header.attributeId != AttributeId::SwitchInfo) return got;
    auto it = asked_.find(smp->header.tid);
    if (it == asked_.end() || !flagged_.contains(it->second)) return got;
    SwitchInfo si = decodeSwitchInfo(smp->data);
    si.portStateChange = true;
    smp->data = encode(si);
    (*got)->mad = encodeSmp(*smp);
    return got;
  }
  int pollFd() const override { return -1; }

  void flag(NodeId sw) { flagged_.insert(sw); }
  bool flagged(NodeId sw) const { return flagged_.contains(sw); }
  FakeFabricTransport& fake() { return inner_; }

 private:
  std::optional<NodeId> reached(const Smp& smp) const {
    NodeId at = smPort_.node;
    const Fabric& f = inner_.fabric();
    for (std::uint8_t hop = 1; hop <= smp.header.hopCount; ++hop) {
      const auto& remote = f.node(at).ports.at(smp.initialPath[hop]).remote;
      if (!remote) return std::nullopt;
      at = remote->node;
    }
    return at;
  }

  FakeFabricTransport inner_;
  PortRef smPort_;
  std::unordered_map<std::uint64_t, NodeId> asked_;
  std::set<NodeId> flagged_;
};

std::size_t countSent(const std::vector<FakeFabricTransport::SentMad>& sent, std::size_t from,
                      Method method, AttributeId id) {
  std::size_t n = 0;
  for (std::size_t i = from; i < sent.size(); ++i)
    n += sent[i].smp.header.method == method && sent[i].smp.header.attributeId == id;
  return n;
}

// 64-entry blocks that differ between two tables as the fake holds them
// (entries past a table's end are unrouted, 0xFF).
std::size_t blocksThatDiffer(const std::vector<std::uint8_t>& a,
                             const std::vector<std::uint8_t>& b) {
  const std::size_t size = std::max(a.size(), b.size());
  auto at = [](const std::vector<std::uint8_t>& t, std::size_t i) -> std::uint8_t {
    return i < t.size() ? t[i] : 0xFF;
  };
  std::size_t n = 0;
  for (std::size_t block = 0; block * 64 < size; ++block) {
    for (std::size_t i = block * 64; i < (block + 1) * 64; ++i) {
      if (at(a, i) != at(b, i)) {
        ++n;
        break;
      }
    }
  }
  return n;
}

bool sameTables(const std::vector<Lft>& a, const std::vector<Lft>& b) {
  return std::ranges::equal(a, b, {}, &Lft::port, &Lft::port);
}

class MasterLightSweep : public ::testing::Test {
 protected:
  void SetUp() override {
    Fabric f = ibsm::testing::sampleFabric("fat-tree-3level-k8.net");
    smPort_ = PortRef{f.endNodes().front(), 1};
    wire_.emplace(ibsm::testing::unprogrammed(std::move(f)), smPort_);
    wire_->fake().fabric().port(smPort_).capabilityMask |= capability::kIsSm;
    engine_.emplace(*wire_, engineOptions());
    dir_ = std::filesystem::temp_directory_path() /
           ("ibsm-light-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    store_.emplace(dir_);
    sweep_.emplace(*engine_, *store_, SweepSettings{}, nullptr);
  }
  MadEngineOptions engineOptions() {
    MadEngineOptions options;
    options.clock = wire_->fake().clock();
    return options;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  Fabric& fabric() { return wire_->fake().fabric(); }
  const std::vector<FakeFabricTransport::SentMad>& sent() { return wire_->fake().sent(); }

  // A cable between two switches one level below the top: the kind whose
  // loss moves routes on several switches but strands nobody.
  std::pair<PortRef, PortRef> spineCable() {
    const Fabric& f = fabric();
    for (const NodeId sw : f.switches()) {
      const Node& node = f.node(sw);
      for (std::uint8_t p = 1; p <= node.numPorts(); ++p) {
        const auto& r = node.ports[p].remote;
        if (r && f.node(r->node).isSwitch() && node.description.find("core") != std::string::npos)
          return {PortRef{sw, p}, *r};
      }
    }
    ADD_FAILURE() << "no core cable in the sample";
    return {};
  }

  // The first spine cable pulled, both ends flagged, and a light sweep.
  Result<LightResult> loseSpineCable() {
    const auto [a, b] = spineCable();
    fabric().disconnect(a);
    wire_->flag(a.node);
    wire_->flag(b.node);
    return sweep_->lightSweep();
  }
  // What a fresh computation plans for the fabric the SM holds.
  Result<SubnetPlan> freshPlan() {
    PlanInputs inputs;
    inputs.guid2lid = *store_->loadGuid2Lid();
    return planSubnet(sweep_->held().observed().fabric, inputs, defaultRegistry());
  }

  PortRef smPort_;
  std::optional<PscWire> wire_;
  std::optional<MadEngine> engine_;
  std::filesystem::path dir_;
  std::optional<StateStore> store_;
  std::optional<MasterSweep> sweep_;
};

TEST_F(MasterLightSweep, NothingSweptYetCannotRunAndAsksForAHeavySweep) {
  auto light = sweep_->lightSweep();
  ASSERT_TRUE(light);
  EXPECT_FALSE(light->ok);
  EXPECT_TRUE(light->needsHeavy);
  EXPECT_EQ(light->mads, 0u);
}

TEST_F(MasterLightSweep, AQuietFabricCostsExactlyOneSwitchInfoGetPerSwitch) {
  auto heavy = sweep_->run();
  ASSERT_TRUE(heavy);
  ASSERT_TRUE(heavy->up);
  const std::size_t mark = sent().size();
  auto light = sweep_->lightSweep();
  ASSERT_TRUE(light);
  EXPECT_TRUE(light->ok);
  EXPECT_FALSE(light->changed);
  EXPECT_FALSE(light->needsHeavy);
  EXPECT_FALSE(light->reroute);
  const std::size_t switches = fabric().switches().size();
  EXPECT_EQ(light->mads, switches);
  EXPECT_EQ(sent().size() - mark, switches);
  EXPECT_EQ(countSent(sent(), mark, Method::Get, AttributeId::SwitchInfo), switches);
}

TEST_F(MasterLightSweep, ALostCableIsRoutedAroundWritingOnlyTheBlocksThatChange) {
  ASSERT_TRUE(sweep_->run());
  const auto [a, b] = spineCable();
  std::map<NodeId, std::vector<std::uint8_t>> before;
  for (const NodeId sw : fabric().switches()) before[sw] = wire_->fake().lft(sw);

  fabric().disconnect(a);
  wire_->flag(a.node);
  wire_->flag(b.node);
  const std::size_t mark = sent().size();
  const auto timeoutsBefore = engine_->counters().timeouts;
  auto light = sweep_->lightSweep();
  ASSERT_TRUE(light);
  EXPECT_TRUE(light->ok);
  EXPECT_TRUE(light->changed);
  EXPECT_FALSE(light->needsHeavy);
  // Switches behind the cable are asked by a route around it, not left to time out.
  EXPECT_EQ(engine_->counters().timeouts, timeoutsBefore);
  ASSERT_TRUE(light->reroute);
  EXPECT_EQ(light->reroute->unreachablePairs, 0u);
  EXPECT_GT(light->reroute->routedPairs, 0u);
  EXPECT_TRUE(light->reroute->up) << ::testing::PrintToString(light->reroute->reasons);
  ASSERT_EQ(light->changes.size(), 1u);
  EXPECT_NE(light->changes[0].find("cable lost"), std::string::npos);

  // Both switches had their PortStateChange cleared, and nothing was rediscovered.
  EXPECT_FALSE(wire_->flagged(a.node));
  EXPECT_FALSE(wire_->flagged(b.node));
  EXPECT_EQ(countSent(sent(), mark, Method::Get, AttributeId::NodeInfo), 0u);
  EXPECT_EQ(light->mads, sent().size() - mark);

  std::size_t differ = 0;
  for (const NodeId sw : fabric().switches()) {
    const auto& now = wire_->fake().lft(sw);
    differ += blocksThatDiffer(before[sw], now);
    // Nothing is forwarded into the dead ports any more.
    for (const PortRef dead : {a, b}) {
      if (dead.node == sw) {
        EXPECT_EQ(std::count(now.begin(), now.end(), dead.port), 0) << "switch " << sw;
      }
    }
  }
  EXPECT_GT(differ, 0u);
  EXPECT_EQ(countSent(sent(), mark, Method::Set, AttributeId::LinearForwardingTable), differ);
  EXPECT_EQ(light->reroute->program.table(program::TableKind::Lft).written, differ);

  // The next heavy sweep agrees with the reroute: it writes no block.
  const std::size_t again = sent().size();
  auto heavy = sweep_->run();
  ASSERT_TRUE(heavy);
  EXPECT_TRUE(heavy->up);
  EXPECT_EQ(countSent(sent(), again, Method::Set, AttributeId::LinearForwardingTable), 0u);
  // And the subnet is quiet again.
  auto quiet = sweep_->lightSweep();
  ASSERT_TRUE(quiet);
  EXPECT_FALSE(quiet->changed);
  EXPECT_EQ(quiet->mads, fabric().switches().size());
}

// routing.stable_routes (the default): a lost cable writes at most the
// blocks holding an entry whose path crossed it; a rebalance then writes the
// tables a fresh computation gives, and a sweep after it keeps them.
TEST_F(MasterLightSweep, ALostCableMovesOnlyWhatCrossedItAndARebalanceRoutesAfresh) {
  ASSERT_TRUE(sweep_->run());
  auto light = loseSpineCable();
  ASSERT_TRUE(light && light->reroute);
  const SubnetPlan& kept = *light->reroute->plan;
  ASSERT_TRUE(kept.stable);
  EXPECT_EQ(kept.stable->change, FabricChange::CapacityLost);
  EXPECT_TRUE(kept.stable->stats.stabilised) << kept.stable->stats.why;
  const auto written = light->reroute->program.table(program::TableKind::Lft).written;
  EXPECT_GT(written, 0u);
  EXPECT_LE(written, kept.stable->stats.brokenBlocks);

  const auto fresh = freshPlan();
  ASSERT_TRUE(fresh);
  ASSERT_FALSE(sameTables(fresh->routing.lfts, kept.routing.lfts))
      << "fresh tables equal the kept ones: the test proves nothing";
  sweep_->requestRebalance();
  const auto rebalanced = sweep_->replan();
  ASSERT_TRUE(rebalanced);
  EXPECT_TRUE(rebalanced->up);
  EXPECT_FALSE(rebalanced->plan->stable);
  EXPECT_TRUE(sameTables(rebalanced->plan->routing.lfts, fresh->routing.lfts));
  EXPECT_GT(rebalanced->program.table(program::TableKind::Lft).written, 0u);

  const std::size_t mark = sent().size();
  const auto again = sweep_->run();
  ASSERT_TRUE(again && again->plan->stable);
  EXPECT_EQ(again->plan->stable->change, FabricChange::HostsOnly);
  EXPECT_EQ(countSent(sent(), mark, Method::Set, AttributeId::LinearForwardingTable), 0u);
}

// routing.stable_routes = false: OpenSM's way, the fresh tables at every plan.
TEST_F(MasterLightSweep, WithoutStableRoutesALostCableGetsTheFreshTables) {
  SweepSettings settings;
  settings.stableRoutes = false;
  sweep_->setSettings(settings);
  ASSERT_TRUE(sweep_->run());
  auto light = loseSpineCable();
  ASSERT_TRUE(light && light->reroute);
  EXPECT_FALSE(light->reroute->plan->stable);
  const auto fresh = freshPlan();
  ASSERT_TRUE(fresh);
  EXPECT_TRUE(sameTables(light->reroute->plan->routing.lfts, fresh->routing.lfts));
  EXPECT_FALSE(sweep_->rebalanceDue());
}

TEST_F(MasterLightSweep, AHostWhoseOnlyCableIsLostIsDroppedAndTheRestStaysRouted) {
  auto heavy = sweep_->run();
  ASSERT_TRUE(heavy);
  const NodeId host = fabric().endNodes().back();
  ASSERT_NE(host, smPort_.node);
  const PortRef hostPort{host, 1};
  const PortRef edge = *fabric().port(hostPort).remote;
  fabric().disconnect(hostPort);
  wire_->flag(edge.node);

  auto light = sweep_->lightSweep();
  ASSERT_TRUE(light);
  EXPECT_FALSE(light->needsHeavy);
  ASSERT_TRUE(light->reroute);
  EXPECT_TRUE(light->reroute->up) << ::testing::PrintToString(light->reroute->reasons);
  EXPECT_EQ(light->reroute->caPorts, heavy->caPorts - 1);
  EXPECT_EQ(light->reroute->unreachablePairs, 0u);
  ASSERT_TRUE(sweep_->held().hasObservation());
  EXPECT_FALSE(sweep_->held().observed().fabric.findNode(fabric().node(host).guid));
  // Nothing leads into the dead port but the host's own LID, whose entry
  // stays so that the host coming back writes no block (routing.stable_routes).
  const auto& planned = heavy->plan->fabric;
  const Lid hostLid = planned.port(*planned.findPort(fabric().port(hostPort).guid)).lid;
  const auto& table = wire_->fake().lft(edge.node);
  for (std::size_t lid = 0; lid < table.size(); ++lid)
    EXPECT_TRUE(lid == hostLid.value || table[lid] != edge.port) << "LID " << lid;
}

TEST_F(MasterLightSweep, ANewLinkNeedsAHeavySweep) {
  const auto [a, b] = spineCable();
  fabric().disconnect(a);
  ASSERT_TRUE(sweep_->run());
  ASSERT_TRUE(fabric().connect(a, b));
  wire_->flag(a.node);
  wire_->flag(b.node);
  const std::size_t mark = sent().size();
  auto light = sweep_->lightSweep();
  ASSERT_TRUE(light);
  EXPECT_TRUE(light->changed);
  EXPECT_TRUE(light->needsHeavy);
  EXPECT_FALSE(light->reroute);
  EXPECT_EQ(countSent(sent(), mark, Method::Set, AttributeId::LinearForwardingTable), 0u);
  ASSERT_FALSE(light->changes.empty());
  EXPECT_NE(light->changes[0].find("new link"), std::string::npos);
}

}  // namespace
}  // namespace ibsm::sm::manager
