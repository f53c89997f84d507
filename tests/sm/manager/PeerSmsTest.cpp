// SM-to-SM MADs: which ports discovery shows as other SMs, how they are
// reached, and what readPeerSmInfos / pollSmInfo / sendSmControl /
// notifyMaster put on the wire and make of the answers.
#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>

#include <deque>
#include <map>

#include "sm/discovery/Discovery.h"
#include "sm/manager/PeerSms.h"
#include "tests/sm/support/FakeFabricTransport.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::sm::manager {
namespace {

using namespace std::chrono_literals;
using testing::FakeFabricTransport;

std::shared_ptr<spdlog::logger> quiet() {
  return std::make_shared<spdlog::logger>("t", std::make_shared<spdlog::sinks::null_sink_st>());
}

MadEngineOptions optionsFor(std::function<MadClock::time_point()> clock) {
  MadEngineOptions o;
  o.clock = std::move(clock);
  o.logger = quiet();
  return o;
}

// Hca1 port 1 and Hca2 port 1 run SMs; ours is Hca2 port 2.
struct TwoOtherSms {
  Fabric truth = testing::sampleFabric("two-switch-dual-port-hcas.net");
  NodeId hca1 = testing::nodeNamed(truth, "Hca1");
  NodeId hca2 = testing::nodeNamed(truth, "Hca2");
  TwoOtherSms() {
    truth.node(hca1).ports[1].capabilityMask |= capability::kIsSm;
    truth.node(hca2).ports[1].capabilityMask |= capability::kIsSm;
    truth.node(hca2).ports[2].capabilityMask |= capability::kIsSm;  // ours
  }
};

discovery::DiscoveredSubnet discover(FakeFabricTransport& wire) {
  MadEngine engine(wire, optionsFor(wire.clock()));
  discovery::Discovery discovery(engine, {}, quiet());
  auto subnet = discovery.run();
  EXPECT_TRUE(subnet) << subnet.error().message;
  return std::move(*subnet);
}

TEST(FindPeerSms, FindsEverySmPortButOurOwnAndRoutesToThatVeryPort) {
  TwoOtherSms f;
  FakeFabricTransport wire(f.truth, PortRef{f.hca2, 2});
  const discovery::DiscoveredSubnet subnet = discover(wire);

  const std::vector<PeerSm> peers = findPeerSms(subnet);
  ASSERT_EQ(peers.size(), 2U);
  std::set<Guid> guids;
  MadEngine engine(wire, optionsFor(wire.clock()));
  for (const PeerSm& p : peers) {
    guids.insert(p.portGuid);
    ASSERT_TRUE(std::holds_alternative<DrPath>(p.address));
    // NodeInfo names the port an SMP came in by: the route must end there,
    // not at whichever port of the HCA discovery happened to use.
    engine.submit(SmpRequest::get(AttributeId::NodeInfo, 0, p.address),
                  [&](const SmpRequest&, const SmpReply& r) {
                    ASSERT_TRUE(r.ok());
                    EXPECT_EQ(decodeNodeInfo(r.smp->data).portGuid, p.portGuid);
                  });
  }
  ASSERT_TRUE(engine.runUntilIdle());
  EXPECT_EQ(guids, (std::set<Guid>{f.truth.node(f.hca1).ports[1].guid,
                                   f.truth.node(f.hca2).ports[1].guid}));
}

TEST(FindPeerSms, NoSmCapablePortMeansNoPeers) {
  Fabric truth = testing::sampleFabric("two-switch-dual-port-hcas.net");
  FakeFabricTransport wire(truth, PortRef{testing::nodeNamed(truth, "Hca2"), 2});
  EXPECT_TRUE(findPeerSms(discover(wire)).empty());
}

TEST(FindPeerSms, KeepsTheDiscoveredLidForTraps) {
  TwoOtherSms f;
  testing::assignLids(f.truth);
  FakeFabricTransport wire(f.truth, PortRef{f.hca2, 2});
  for (const PeerSm& p : findPeerSms(discover(wire))) {
    const auto port = f.truth.findPort(p.portGuid);
    ASSERT_TRUE(port);
    EXPECT_EQ(p.lid, f.truth.port(*port).lid);
    EXPECT_TRUE(p.lid.isUnicast());
  }
}

// A wire of SMs only: each destination answers SMInfo as its script says.
class SmWire final : public MadTransport {
 public:
  using Script = std::function<std::optional<Smp>(const Smp& request)>;
  void at(std::initializer_list<std::uint8_t> route, Script s) {
    const DrPath path = *DrPath::fromPorts(std::vector<std::uint8_t>(route));
    scripts_[fmt::format("DR {}", path)] = std::move(s);
  }

  Result<void> send(const MadBuffer& mad, MadAddress to) override {
    auto smp = decodeSmp(mad);
    if (!smp) return std::unexpected(smp.error());
    sent.push_back({*smp, to});
    const std::string key =
        smp->isDirected() ? fmt::format("DR {}", drOf(*smp)) : fmt::format("LID {}", to.lid);
    auto it = scripts_.find(key);
    if (it == scripts_.end()) return {};
    if (auto reply = it->second(*smp)) inbox_.push_back(ReceivedMad{encodeSmp(*reply), to});
    return {};
  }
  Result<std::optional<ReceivedMad>> receive(MadClock::time_point deadline) override {
    if (inbox_.empty()) {
      now_ = std::max(now_, deadline);
      return std::optional<ReceivedMad>{};
    }
    ReceivedMad m = inbox_.front();
    inbox_.pop_front();
    return std::optional<ReceivedMad>{m};
  }
  int pollFd() const override { return -1; }
  std::function<MadClock::time_point()> clock() {
    return [this] { return now_; };
  }

  std::vector<std::pair<Smp, MadAddress>> sent;

 private:
  static DrPath drOf(const Smp& smp) {
    std::vector<std::uint8_t> ports(smp.initialPath.begin() + 1,
                                    smp.initialPath.begin() + 1 + smp.header.hopCount);
    return *DrPath::fromPorts(ports);
  }
  std::map<std::string, Script> scripts_;
  std::deque<ReceivedMad> inbox_;
  MadClock::time_point now_{};
};

Smp answered(const Smp& request, const SmInfo& info, std::uint16_t status = 0) {
  Smp r = request;
  r.header.method = Method::GetResp;
  r.header.status = status;
  r.header.direction = request.isDirected();
  r.data = encode(info);
  return r;
}

PeerSm peerAt(std::initializer_list<std::uint8_t> ports, Guid guid, Lid lid = {}) {
  return PeerSm{guid, *DrPath::fromPorts(std::vector<std::uint8_t>(ports)), lid};
}

SmInfo smInfo(Guid guid, std::uint8_t priority, SmState state, std::uint32_t actCount = 0) {
  return SmInfo{
      .guid = guid, .smKey = 0, .actCount = actCount, .priority = priority, .smState = state};
}

const SmInfo kSelf{.guid = Guid{0xA},
                   .smKey = 0x1234,
                   .actCount = 7,
                   .priority = 3,
                   .smState = SmState::Discovering};

TEST(ReadPeerSmInfos, ReturnsOnlyThePeersThatAnsweredInTheirOrder) {
  SmWire wire;
  const SmInfo master{.guid = Guid{0xB}, .priority = 5, .smState = SmState::Master};
  const SmInfo standby{.guid = Guid{0xC}, .priority = 1, .smState = SmState::Standby};
  wire.at({1, 3, 1}, [&](const Smp& r) { return answered(r, master); });
  wire.at({1, 2}, [&](const Smp& r) { return answered(r, standby); });
  // DR 1,4 is silent: a port whose SM has stopped.
  const std::vector<PeerSm> peers{peerAt({1, 2}, Guid{0xC}), peerAt({1, 4}, Guid{0xD}),
                                  peerAt({1, 3, 1}, Guid{0xB})};
  MadEngine engine(wire, optionsFor(wire.clock()));

  auto infos = readPeerSmInfos(engine, peers, kSelf);
  ASSERT_TRUE(infos);
  ASSERT_EQ(infos->size(), 2U);
  EXPECT_EQ((*infos)[0].peer.portGuid, Guid{0xC});
  EXPECT_EQ((*infos)[0].info, standby);
  EXPECT_EQ((*infos)[1].peer.portGuid, Guid{0xB});
  EXPECT_EQ((*infos)[1].info, master);
}

TEST(ReadPeerSmInfos, AsksAllPeersAtOnceAndPresentsOurSmKey) {
  SmWire wire;
  const std::vector<PeerSm> peers{peerAt({1, 2}, Guid{0xC}), peerAt({1, 4}, Guid{0xD})};
  MadEngine engine(wire, optionsFor(wire.clock()));
  ASSERT_TRUE(readPeerSmInfos(engine, peers, kSelf));
  // Both first transmissions precede any retry.
  ASSERT_GE(wire.sent.size(), 2U);
  for (std::size_t i = 0; i < 2; ++i) {
    const Smp& q = wire.sent[i].first;
    EXPECT_EQ(q.header.method, Method::Get);
    EXPECT_EQ(q.header.attributeId, AttributeId::SmInfo);
    EXPECT_EQ(decodeSmInfo(q.data).smKey, kSelf.smKey);
  }
  EXPECT_NE(wire.sent[0].first.header.tid, wire.sent[1].first.header.tid);
}

TEST(PollSmInfo, GivesTheMastersSmInfoOrNothingWhenItIsGone) {
  SmWire wire;
  const SmInfo master{.guid = Guid{0xB}, .actCount = 99, .priority = 5, .smState = SmState::Master};
  wire.at({1, 3}, [&](const Smp& r) { return answered(r, master); });
  wire.at({1, 5},
          [&](const Smp& r) { return answered(r, master, madstatus::kMethodAttrUnsupported); });
  MadEngine engine(wire, optionsFor(wire.clock()));

  auto alive = pollSmInfo(engine, peerAt({1, 3}, Guid{0xB}), kSelf);
  ASSERT_TRUE(alive);
  ASSERT_TRUE(*alive);
  EXPECT_EQ((*alive)->actCount, 99U);

  auto gone = pollSmInfo(engine, peerAt({1, 4}, Guid{0xB}), kSelf);
  ASSERT_TRUE(gone);
  EXPECT_FALSE(*gone);

  auto refusing = pollSmInfo(engine, peerAt({1, 5}, Guid{0xB}), kSelf);
  ASSERT_TRUE(refusing);
  EXPECT_FALSE(*refusing);
}

TEST(SendSmControl, SetsSmInfoWithTheControlAsModifierAndOurInfoAsPayload) {
  SmWire wire;
  std::optional<Smp> seen;
  wire.at({1, 3}, [&](const Smp& r) {
    seen = r;
    return answered(r, smInfo(Guid{0xB}, 0, SmState::Standby));
  });
  wire.at({1, 5}, [&](const Smp& r) { return answered(r, SmInfo{}, madstatus::kInvalidField); });
  MadEngine engine(wire, optionsFor(wire.clock()));
  SmInfo self = kSelf;
  self.smState = SmState::Master;

  auto accepted = sendSmControl(engine, peerAt({1, 3}, Guid{0xB}), 1, self);
  ASSERT_TRUE(accepted);
  EXPECT_TRUE(*accepted);
  ASSERT_TRUE(seen);
  EXPECT_EQ(seen->header.method, Method::Set);
  EXPECT_EQ(seen->header.attributeId, AttributeId::SmInfo);
  EXPECT_EQ(seen->header.attributeModifier, 1U);
  EXPECT_EQ(decodeSmInfo(seen->data), self);

  auto refused = sendSmControl(engine, peerAt({1, 5}, Guid{0xB}), 1, self);
  ASSERT_TRUE(refused);
  EXPECT_FALSE(*refused);
  auto silent = sendSmControl(engine, peerAt({1, 6}, Guid{0xB}), 1, self);
  ASSERT_TRUE(silent);
  EXPECT_FALSE(*silent);
}

TEST(NotifyMaster, SendsTrap144SmPriorityChangedToTheMastersLid) {
  SmWire wire;
  MadEngine engine(wire, optionsFor(wire.clock()));
  ASSERT_TRUE(notifyMaster(engine, peerAt({1, 3}, Guid{0xB}, Lid{4}), Lid{12}, kSelf,
                           capability::kIsSm | capability::kIsTrapSupported));
  ASSERT_EQ(wire.sent.size(), 1U);
  const auto& [trap, to] = wire.sent.front();
  EXPECT_EQ(to.lid, Lid{4});
  EXPECT_EQ(trap.header.method, Method::Trap);
  EXPECT_FALSE(trap.isDirected());
  const Notice n = decodeNotice(trap.data);
  EXPECT_TRUE(n.isGeneric);
  EXPECT_EQ(n.type, 4);
  EXPECT_EQ(n.producerType, 1U);
  EXPECT_EQ(n.trapNumber, 144);
  EXPECT_EQ(n.issuerLid, Lid{12});
  const Trap144Details d = decodeTrap144(n);
  EXPECT_EQ(d.lid, Lid{12});
  EXPECT_EQ(d.capabilityMask, capability::kIsSm | capability::kIsTrapSupported);
  EXPECT_EQ(d.changeFlags, trap144::kSmPriorityChange);
}

TEST(NotifyMaster, NeedsALidAtBothEnds) {
  SmWire wire;
  MadEngine engine(wire, optionsFor(wire.clock()));
  EXPECT_FALSE(notifyMaster(engine, peerAt({1, 3}, Guid{0xB}), Lid{12}, kSelf));
  EXPECT_FALSE(notifyMaster(engine, peerAt({1, 3}, Guid{0xB}, Lid{4}), Lid{}, kSelf));
  EXPECT_TRUE(wire.sent.empty());
}

}  // namespace
}  // namespace ibsm::sm::manager
