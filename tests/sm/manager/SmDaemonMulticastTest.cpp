// The daemon manages multicast with the real SaResponder bound as `ibsm
// run` binds it (multicastGroupsOf): a join answered after the subnet is up
// is programmed by one multicast pass, with the joins of the same batch
// window; the leave of the last member clears the MFT entry; a subscriber
// of trap 66 hears of the group's creation; a port gone from the fabric
// loses its memberships after the sweep that no longer finds it; and an SM
// that leaves MASTER forgets the groups joins made (no trap 67 for them: it
// no longer speaks for the subnet). On the fake fabric and its clock; the
// tests read the status, the Reports sent and the MFTs the fabric holds.
#include <gtest/gtest.h>

#include <csignal>

#include "sm/control/StatusFormat.h"
#include "sm/fsm/SmStateMachine.h"
#include "sm/manager/SaFeed.h"
#include "sm/manager/SmDaemon.h"
#include "sm/sa/Components.h"
#include "sm/sa/Notices.h"
#include "sm/sa/Notifier.h"
#include "tests/sm/manager/DaemonOnFakeFabric.h"

namespace ibsm::sm::manager {
namespace {

using namespace std::chrono_literals;
using ibsm::testing::GmpInjector;

// An application's group (no IPoIB signature: no broadcast group needed).
const Gid kGroup{0xff, 0x12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x12, 0x34};

class SmDaemonMulticastTest : public DaemonOnFakeFabric {
 protected:
  SmDaemonMulticastTest() : DaemonOnFakeFabric("ibsm-daemon-multicast-test") {
    settings_.sweepInterval = 2s;
    for (const NodeId sw : wire_.fabric().switches())  // ibsim's MFT size
      wire_.fabric().node(sw).switchData->multicastFdbCap = 1024;
    // The default partition's broadcast group, pre-created as `ibsm run`
    // always has it (nobody joins it here).
    settings_.multicastGroups = {
        McGroupSpec{.mgid = ipoibBroadcastMgid(0xFFFF), .params = {}, .where = "test"}};
    // Every Report is acknowledged at once (no retries to count).
    gmps_.onSend([this](const GmpInjector::SentGmp& g) {
      if (g.mad[3] != saMethod::kReport) return;
      auto resp = g.mad;
      resp[3] = saMethod::kReportResp;
      gmps_.inject({resp, g.to}, wire_.now() + 1ms);
    });
  }

  // Hosts: CA ports on different leaves (the SM is on the first).
  static PortRef host(std::size_t i) {
    const auto cas = fabric().endNodes();
    return PortRef{cas.at((1 + i * 5) % cas.size()), 1};
  }
  GmpAddress addressOf(PortRef port) const {
    return GmpAddress{
        .lid = wire_.fabric().port(port).lid, .qpn = 1, .sl = 0, .pkeyIndex = 0, .gid = {}};
  }
  NodeId edgeOf(PortRef port) const { return wire_.fabric().port(port).remote->node; }
  std::uint8_t edgePortOf(PortRef port) const { return wire_.fabric().port(port).remote->port; }

  void at(std::chrono::milliseconds when, std::function<void()> f) {
    loop_.at(wire_.now() + when, std::move(f));
  }
  void inject(PortRef from, std::uint8_t method, std::uint16_t attribute, std::uint64_t mask,
              std::vector<std::uint8_t> data) {
    SaMad mad;
    mad.header.method = method;
    mad.header.tid = ++tid_;
    mad.header.attributeId = attribute;
    mad.header.componentMask = mask;
    mad.data = std::move(data);
    gmps_.inject({encodeSaMad(mad), addressOf(from)}, wire_.now());
  }
  // The port joins kGroup as a Full member (creating it when it is new),
  // with every component a create needs, as IPoIB sends it.
  void join(PortRef port, std::chrono::milliseconds when) {
    at(when, [this, port] {
      McMemberRecord r;
      r.mgid = kGroup;
      r.portGid = makeGid(kDefaultSubnetPrefix, wire_.fabric().port(port).guid);
      r.qkey = 0x0B1B;
      r.pkey = 0xFFFF;
      r.joinState = joinState::kFull;
      inject(port, saMethod::kSet, saAttr::kMcMemberRecord, sa::mcmMask::kCreate, encodeRecord(r));
    });
  }
  void leave(PortRef port, std::chrono::milliseconds when) {
    at(when, [this, port] {
      McMemberRecord r;
      r.mgid = kGroup;
      r.portGid = makeGid(kDefaultSubnetPrefix, wire_.fabric().port(port).guid);
      r.joinState = joinState::kFull;
      inject(port, saMethod::kDelete, saAttr::kMcMemberRecord, sa::mcmMask::kJoin, encodeRecord(r));
    });
  }
  // The port subscribes to every trap.
  void subscribe(PortRef port, std::chrono::milliseconds when) {
    at(when, [this, port] {
      InformInfo info;
      info.lidRangeBegin = Lid{InformInfo::kAllLids};
      info.trapNumber = sa::kAnyTrap;
      info.producerType = sa::kAnyProducer;
      inject(port, saMethod::kSet, saAttr::kInformInfo, 0, encodeRecord(info));
    });
  }
  // What the test wants to know at `when`: the status and kGroup's MLID.
  void look(std::chrono::milliseconds when, std::function<void(const control::DaemonStatus&)> f) {
    at(when, [this, f = std::move(f)] { f(daemon_->status()); });
  }
  std::optional<Lid> mlid() const {
    const sa::McGroup* g = sa_->groups().group(kGroup);
    return g ? std::optional(g->mlid) : std::nullopt;
  }
  // The switches whose MFT entry for `mlid` is not empty.
  std::size_t switchesWithEntry(Lid mlid) const {
    std::size_t n = 0;
    for (const NodeId sw : wire_.fabric().switches())
      if (wire_.mft(sw, mlid.value).any()) ++n;
    return n;
  }
  // The Reports sent for trap `number`.
  std::size_t reportsOf(std::uint16_t number) const {
    std::size_t n = 0;
    for (const auto& g : gmps_.sentGmps()) {
      if (g.mad[3] != saMethod::kReport) continue;
      const auto notice = decodeRecord<SaNotice>(std::span(g.mad).subspan(kSaHeaderSize));
      if (notice && notice->notice.trapNumber == number) ++n;
    }
    return n;
  }

  int run(std::chrono::seconds stopAt) {
    SmDaemon daemon(*engine_, loop_, store_, wire_.fabric().port(firstCaPort()).guid, settings_, {},
                    quiet());
    daemon_ = &daemon;
    daemon.serveSa(gmps_, sa_);
    daemon.onSubnetProgrammed(
        [this](const SweepResult& result, const program::HeldSubnet& held, const SmInfo& self) {
          sa_->setSubnet(saSnapshot(result, held, self, sa::SaSettings{}));
        });
    daemon.describeSa([this](control::SaStatus& c) { describeSa(*sa_, c); });
    daemon.sendNotices(std::make_shared<sa::Notifier>(sa_, kDefaultSubnetPrefix));
    daemon.manageMulticast(multicastGroupsOf(sa_));
    auto stop = loop_.at(wire_.now() + stopAt, [&daemon] { daemon.signal(SIGTERM); });
    const int code = daemon.run();
    loop_.cancel(stop);
    status_ = daemon.status();
    daemon_ = nullptr;
    return code;
  }

  std::shared_ptr<sa::SaResponder> sa_ = std::make_shared<sa::SaResponder>(nullptr, loop_.clock());
  SmDaemon* daemon_{nullptr};
  control::DaemonStatus status_;
  std::uint64_t tid_{0x100};
};

TEST_F(SmDaemonMulticastTest, JoinsOfOneBatchCostOnePassAndTheLastLeaveClearsTheEntry) {
  subscribe(host(0), 5s);
  join(host(0), 6s);
  join(host(1), 6s + 5ms);  // within sm.multicast_batch_ms of the first
  std::optional<Lid> created;
  std::size_t withEntry = 0;
  look(7s, [&](const control::DaemonStatus& s) {
    created = mlid();
    ASSERT_TRUE(created);
    withEntry = switchesWithEntry(*created);
    EXPECT_TRUE(s.up);
    EXPECT_EQ(s.multicast.passes, 1U) << "both joins in one pass";
    EXPECT_GT(s.multicast.passBlocksWritten, 0U);
    EXPECT_EQ(s.multicast.groups, 2U) << "with the broadcast group";
    EXPECT_EQ(s.multicast.members, 2U);
    EXPECT_TRUE(wire_.mft(edgeOf(host(0)), created->value).test(edgePortOf(host(0))));
    EXPECT_TRUE(wire_.mft(edgeOf(host(1)), created->value).test(edgePortOf(host(1))));
  });
  leave(host(0), 8s);
  leave(host(1), 8s + 5ms);
  EXPECT_EQ(run(10s), 0);
  ASSERT_TRUE(created);
  EXPECT_GE(withEntry, 2U) << "the two leaves, and the switches between them";
  EXPECT_EQ(switchesWithEntry(*created), 0U) << "the group ended: no entry anywhere";
  EXPECT_EQ(status_.multicast.passes, 2U);
  EXPECT_EQ(status_.multicast.passesFailed, 0U);
  EXPECT_EQ(status_.sa.answers.mcJoins, 2U);
  EXPECT_EQ(status_.sa.answers.mcLeaves, 2U);
  EXPECT_EQ(status_.sa.mcGroups, 1U) << "the broadcast group stays";
  EXPECT_EQ(status_.sa.answers.mcGroupsDeleted, 1U);
  EXPECT_EQ(reportsOf(sa::noticeTrap::kMcGroupCreated), 1U);
  EXPECT_EQ(reportsOf(sa::noticeTrap::kMcGroupDeleted), 1U);
}

TEST_F(SmDaemonMulticastTest, APortGoneFromTheFabricLosesItsMembershipsAfterTheSweep) {
  join(host(0), 6s);
  join(host(1), 6s + 5ms);
  Lid created;
  at(8s, [&] {
    created = *mlid();
    ASSERT_TRUE(wire_.mft(edgeOf(host(1)), created.value).test(edgePortOf(host(1))));
    const NodeId edge = edgeOf(host(1));
    wire_.fabric().disconnect(host(1));
    wire_.flagPortStateChange(edge);
  });
  look(13s, [&](const control::DaemonStatus& s) {
    EXPECT_EQ(s.multicast.membersDropped, 1U) << control::formatStatus(s);
    EXPECT_EQ(s.multicast.members, 1U);
    const sa::McGroup* g = sa_->groups().group(kGroup);
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(g->members.size(), 1U);
    EXPECT_TRUE(g->members.contains(wire_.fabric().port(host(0)).guid));
    EXPECT_TRUE(wire_.mft(edgeOf(host(0)), created.value).test(edgePortOf(host(0))));
  });
  EXPECT_EQ(run(14s), 0);
  EXPECT_EQ(status_.multicast.membersForgotten, 0U) << "stopping forgets nothing";
}

// SMInfo Set(DISCOVER) from another SM sends this one back to DISCOVERING
// (it then wins the election again, alone): it left MASTER, so it forgot
// the group the joins made, silently, and programs no entry for it; the
// pre-created broadcast group stays.
TEST_F(SmDaemonMulticastTest, AnSmThatLeavesMasterForgetsTheGroupsJoinsMade) {
  subscribe(host(0), 5s);
  join(host(0), 6s);
  join(host(1), 6s + 5ms);
  Lid created;
  look(7s, [&](const control::DaemonStatus& s) {
    created = *mlid();
    EXPECT_EQ(s.multicast.members, 2U);
    EXPECT_GE(switchesWithEntry(created), 2U);
  });
  at(8s, [this] {
    Smp set = Smp::lidRouted(Method::Set, AttributeId::SmInfo, fsm::sminfo::kDiscover);
    set.data = encode(SmInfo{.guid = Guid{0xB},
                             .smKey = settings_.smKey,
                             .actCount = 0,
                             .priority = 9,
                             .smState = SmState::Master});
    wire_.inject(set, MadAddress::toLid(wire_.fabric().port(lastCaPort()).lid));
  });
  look(15s, [&](const control::DaemonStatus& s) {
    EXPECT_EQ(s.state, "MASTER") << control::formatStatus(s);
    EXPECT_TRUE(s.up);
    EXPECT_EQ(s.states.timesMaster, 2U) << "master, discovering, master again";
    EXPECT_EQ(s.multicast.membersForgotten, 2U);
    EXPECT_EQ(s.multicast.members, 0U);
    EXPECT_EQ(sa_->groups().group(kGroup), nullptr);
    EXPECT_EQ(s.sa.mcGroups, 1U) << "the pre-created group stays";
    EXPECT_EQ(s.multicast.groups, 1U);
    EXPECT_EQ(switchesWithEntry(created), 0U) << "its entries cleared by the next sweep";
  });
  EXPECT_EQ(run(16s), 0);
  EXPECT_EQ(reportsOf(sa::noticeTrap::kMcGroupCreated), 1U);
  EXPECT_EQ(reportsOf(sa::noticeTrap::kMcGroupDeleted), 0U) << "no trap 67 from a non-master";
}

}  // namespace
}  // namespace ibsm::sm::manager
