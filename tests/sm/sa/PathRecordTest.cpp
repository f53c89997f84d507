// PathRecords follow the routes the SM programmed: judged here by walking
// the plan's LFTs independently and by changing the fabric under them.
#include <gtest/gtest.h>

#include "routing/engines/SharedTreeVl.h"
#include "sm/sa/PathRecords.h"
#include "tests/sm/sa/SaFixture.h"

namespace ibsm::sm::sa {
namespace {

using testing::SaFixture;

constexpr std::uint64_t kByGids = prMask::kSgid | prMask::kDgid;

PathRecord between(const SaFixture& sa, std::size_t from, std::size_t to) {
  PathRecord q;
  q.sgid = sa.gidOfHost(from);
  q.dgid = sa.gidOfHost(to);
  return q;
}

// The ports a packet from `src` to `dlid` crosses, by the plan's LFTs.
std::vector<PortRef> hops(const SubnetPlan& plan, PortRef src, Lid dlid) {
  std::vector<PortRef> out{src};
  PortRef at = *plan.fabric.port(src).remote;
  while (plan.fabric.node(at.node).isSwitch()) {
    const PortRef exit{at.node, plan.routing.lfts[at.node].at(dlid)};
    out.push_back(exit);
    at = *plan.fabric.port(exit).remote;
  }
  return out;
}

class PathRecordTest : public ::testing::Test {
 protected:
  SaFixture sa{FatTreeSpec{.levels = 3, .radix = 4}};
};

TEST_F(PathRecordTest, APathBetweenTwoHostsHasTheirLidsAndTheSubnetsDefaults) {
  const auto reply = sa.ask(saMethod::kGet, between(sa, 1, 6), kByGids);
  ASSERT_EQ(reply.header.status, saStatus::kOk);
  const auto paths = SaFixture::records<PathRecord>(reply);
  ASSERT_EQ(paths.size(), 1U);
  const PathRecord& p = paths[0];
  EXPECT_EQ(p.slid, sa.lidOfHost(1));
  EXPECT_EQ(p.dlid, sa.lidOfHost(6));
  EXPECT_EQ(p.sgid, sa.gidOfHost(1));
  EXPECT_EQ(p.dgid, sa.gidOfHost(6));
  EXPECT_EQ(p.pkey, 0xFFFF);
  EXPECT_EQ(p.sl, 0);
  EXPECT_EQ(p.hopLimit, 0);
  EXPECT_EQ(p.packetLifeTime, 18);
  EXPECT_TRUE(p.reversible);
  EXPECT_EQ(p.numbPath, 0);  // a request's field: an answer carries 0, as OpenSM's do
  EXPECT_EQ(p.mtu, 5);
  EXPECT_EQ(p.rate, rateCode(sa.plan.fabric.port(sa.hostPort(1)).link));
}

TEST_F(PathRecordTest, MtuAndRateAreTheLowestAlongTheProgrammedRoute) {
  const auto route = hops(sa.plan, sa.hostPort(1), sa.lidOfHost(6));
  ASSERT_GE(route.size(), 3U);
  // Slow down one link in the middle of the route, and one off it.
  Port& middle = sa.plan.fabric.port(route[route.size() / 2]);
  middle.mtuCap = 3;
  middle.link.widthActive = 1;  // 1x
  Port& elsewhere = sa.plan.fabric.port(hops(sa.plan, sa.hostPort(7), sa.lidOfHost(0))[0]);
  elsewhere.mtuCap = 1;
  sa.rebuild();
  const auto paths =
      SaFixture::records<PathRecord>(sa.ask(saMethod::kGet, between(sa, 1, 6), kByGids));
  ASSERT_EQ(paths.size(), 1U);
  EXPECT_EQ(paths[0].mtu, 3);
  EXPECT_EQ(paths[0].rate, rateCode(middle.link));
  EXPECT_LT(rateHalfGbps(paths[0].rate),
            rateHalfGbps(rateCode(sa.plan.fabric.port(sa.hostPort(1)).link)));
}

// Found against OpenSM on ibsim: a switch's port 0 says MTUCap 1024 where
// every external port says 2048; a path to or from it carries 1024.
TEST_F(PathRecordTest, ASwitchsPort0CountsWithItsOwnMtuCapAtEitherEnd) {
  const PortRef leafSide = *sa.plan.fabric.port(sa.hostPort(1)).remote;
  sa.plan.fabric.port(PortRef{leafSide.node, 0}).mtuCap = 3;
  sa.rebuild();
  const Lid swLid = sa.plan.fabric.node(leafSide.node).ports[0].lid;
  PathRecord q;
  q.slid = sa.lidOfHost(1);
  q.dlid = swLid;
  auto paths =
      SaFixture::records<PathRecord>(sa.ask(saMethod::kGet, q, prMask::kSlid | prMask::kDlid));
  ASSERT_EQ(paths.size(), 1U);
  EXPECT_EQ(paths[0].mtu, 3);
  q.slid = swLid;
  q.dlid = sa.lidOfHost(6);
  paths = SaFixture::records<PathRecord>(sa.ask(saMethod::kGet, q, prMask::kSlid | prMask::kDlid));
  ASSERT_EQ(paths.size(), 1U);
  EXPECT_EQ(paths[0].mtu, 3);
  // Between two hosts the switch's port 0 is not on the path.
  paths = SaFixture::records<PathRecord>(sa.ask(saMethod::kGet, between(sa, 1, 6), kByGids));
  ASSERT_EQ(paths.size(), 1U);
  EXPECT_EQ(paths[0].mtu, 5);
}

TEST_F(PathRecordTest, ADestinationTheLftsDoNotReachHasNoPath) {
  const auto route = hops(sa.plan, sa.hostPort(1), sa.lidOfHost(6));
  sa.plan.routing.lfts[route[1].node].port[sa.lidOfHost(6).value] = kNoRoute;
  sa.rebuild();
  EXPECT_EQ(sa.ask(saMethod::kGet, between(sa, 1, 6), kByGids).header.status, saStatus::kNoRecords);
}

TEST_F(PathRecordTest, LidsNameTheEndsAsWellAsGids) {
  PathRecord q;
  q.slid = sa.lidOfHost(2);
  q.dlid = sa.lidOfHost(5);
  const auto paths =
      SaFixture::records<PathRecord>(sa.ask(saMethod::kGet, q, prMask::kSlid | prMask::kDlid));
  ASSERT_EQ(paths.size(), 1U);
  EXPECT_EQ(paths[0].sgid, sa.gidOfHost(2));
  EXPECT_EQ(paths[0].dgid, sa.gidOfHost(5));
}

TEST_F(PathRecordTest, WithoutASourceThePathStartsAtTheRequester) {
  PathRecord q;
  q.dlid = sa.lidOfHost(5);
  const auto paths = SaFixture::records<PathRecord>(sa.ask(saMethod::kGet, q, prMask::kDlid));
  ASSERT_EQ(paths.size(), 1U);
  EXPECT_EQ(paths[0].slid, sa.from.lid);
}

TEST_F(PathRecordTest, AGetTableWithoutADestinationListsAPathToEveryPort) {
  PathRecord q;
  q.sgid = sa.gidOfHost(3);
  const auto reply = sa.ask(saMethod::kGetTable, q, prMask::kSgid);
  const auto paths = SaFixture::records<PathRecord>(reply);
  EXPECT_EQ(paths.size(), sa.subnet->endPorts().size());
  for (const PathRecord& p : paths) {
    EXPECT_EQ(p.slid, sa.lidOfHost(3));
    EXPECT_EQ(p.packetLifeTime, p.dlid == p.slid ? 0 : 18) << "loopback paths have no life";
  }
}

TEST_F(PathRecordTest, AGetWithoutADestinationHasInsufficientComponents) {
  PathRecord q;
  q.sgid = sa.gidOfHost(3);
  EXPECT_EQ(sa.ask(saMethod::kGet, q, prMask::kSgid).header.status,
            saStatus::kReqInsufficientComponents);
}

TEST_F(PathRecordTest, AGidOfAnotherSubnetOrOfNoPortIsAnInvalidGid) {
  PathRecord q = between(sa, 1, 2);
  q.dgid = makeGid(0xFE80000000000001, sa.guidOfHost(2));
  EXPECT_EQ(sa.ask(saMethod::kGet, q, kByGids).header.status, saStatus::kReqInvalidGid);
  q.dgid = makeGid(kDefaultSubnetPrefix, Guid{0xDEAD});
  EXPECT_EQ(sa.ask(saMethod::kGet, q, kByGids).header.status, saStatus::kReqInvalidGid);
}

TEST_F(PathRecordTest, SelectorsLowerWhatThePathOffersOrRefuseIt) {
  PathRecord q = between(sa, 1, 6);
  q.mtuSelector = selector::kLess;
  q.mtu = 5;
  const std::uint64_t mtu = kByGids | prMask::kMtuSelector | prMask::kMtu;
  auto paths = SaFixture::records<PathRecord>(sa.ask(saMethod::kGet, q, mtu));
  ASSERT_EQ(paths.size(), 1U);
  EXPECT_EQ(paths[0].mtu, 4);

  q.mtuSelector = selector::kGreater;
  EXPECT_EQ(sa.ask(saMethod::kGet, q, mtu).header.status, saStatus::kNoRecords);

  q.mtuSelector = 0;  // only the selector given: ignored, as OpenSM does
  EXPECT_EQ(sa.ask(saMethod::kGet, q, kByGids | prMask::kMtuSelector).header.status, saStatus::kOk);

  q.rateSelector = selector::kExactly;
  q.rate = 2;  // 2.5 Gb/s: below any link here
  paths = SaFixture::records<PathRecord>(
      sa.ask(saMethod::kGet, q, kByGids | prMask::kRateSelector | prMask::kRate));
  ASSERT_EQ(paths.size(), 1U);
  EXPECT_EQ(paths[0].rate, 2);
}

TEST(PathRates, CodesFollowWidthTimesSpeed) {
  EXPECT_EQ(rateCode({.widthActive = 2, .speedActive = 1}), 3);                        // 4x SDR
  EXPECT_EQ(rateCode({.widthActive = 2, .speedActive = 4}), 7);                        // 4x QDR
  EXPECT_EQ(rateCode({.widthActive = 2, .speedActive = 4, .extSpeedActive = 1}), 12);  // 4x FDR
  EXPECT_EQ(rateCode({.widthActive = 2, .speedActive = 4, .extSpeedActive = 2}), 16);  // 4x EDR
  EXPECT_EQ(rateCode({.widthActive = 8, .speedActive = 4, .extSpeedActive = 4}), 22);  // 12x HDR
  EXPECT_EQ(rateCode({.widthActive = 1, .speedActive = 1}), 2);                        // 1x SDR
  EXPECT_LT(rateHalfGbps(15), rateHalfGbps(4));  // 25 < 30 Gb/s although 15 > 4
}

class PartitionedPathTest : public PathRecordTest {
 protected:
  // Host 1 a full member of 0x0001, hosts 2 and 3 limited members.
  PartitionedPathTest() {
    PKeyTables t;
    t.ports.push_back({.port = sa.hostPort(1), .pkeys = {0xFFFF, 0x8001}});
    t.ports.push_back({.port = sa.hostPort(2), .pkeys = {0x7FFF, 0x0001}});
    t.ports.push_back({.port = sa.hostPort(3), .pkeys = {0x7FFF, 0x0001}});
    sortByPort(t);
    sa.plan.pkeys = t;
    sa.slByPKey[0x0001] = 3;
    sa.rebuild();
  }
  std::uint16_t status(std::size_t from, std::size_t to, std::optional<std::uint16_t> pkey) {
    PathRecord q = between(sa, from, to);
    q.pkey = pkey.value_or(0);
    return sa.ask(saMethod::kGet, q, kByGids | (pkey ? prMask::kPKey : 0)).header.status;
  }
};

TEST_F(PartitionedPathTest, APathUsesAPKeyBothPortsShareWithTheFullMembersEntry) {
  PathRecord q = between(sa, 1, 2);
  q.pkey = 0x0001;
  const auto paths =
      SaFixture::records<PathRecord>(sa.ask(saMethod::kGet, q, kByGids | prMask::kPKey));
  ASSERT_EQ(paths.size(), 1U);
  EXPECT_EQ(paths[0].pkey, 0x8001);
  EXPECT_EQ(paths[0].sl, 3) << "the partition's sl";
}

// With no PKey asked, the lowest PKey both ports share (low 15 bits), not
// the first of the source's table, as OpenSM answers (issue 30, RunQos.*:
// its plain PathRecords between members of 0x0001 and the default partition
// carry 0x8001); the source's entry, with the membership it holds.
TEST_F(PartitionedPathTest, WithNoPKeyAskedAPathTakesTheLowestPKeyBothShare) {
  const auto plain = [&](std::size_t from, std::size_t to) {
    const auto paths =
        SaFixture::records<PathRecord>(sa.ask(saMethod::kGet, between(sa, from, to), kByGids));
    return paths.empty() ? std::optional<std::uint16_t>{} : std::optional(paths[0].pkey);
  };
  EXPECT_EQ(plain(1, 2), 0x8001)
      << "0x0001 before the default partition, which is first in the table";
  EXPECT_EQ(plain(2, 1), 0x0001) << "the source's entry: a limited member's";
  EXPECT_EQ(plain(1, 4), 0xFFFF) << "host 4 holds only the default partition";
}

TEST_F(PartitionedPathTest, TwoLimitedMembersHaveNoPathAndAPKeyNotSharedNone) {
  EXPECT_EQ(status(2, 3, 0x0001), saStatus::kNoRecords);
  EXPECT_EQ(status(2, 3, std::nullopt), saStatus::kNoRecords) << "0x7FFF is limited at both too";
  EXPECT_EQ(status(1, 2, 0x1234), saStatus::kNoRecords);
  EXPECT_EQ(status(1, 4, std::nullopt), saStatus::kOk) << "the default partition, 0xFFFF";
}

TEST_F(PartitionedPathTest, AnSlOtherThanThePartitionsIsRefused) {
  PathRecord q = between(sa, 1, 2);
  q.pkey = 0x0001;
  q.sl = 5;
  EXPECT_EQ(sa.ask(saMethod::kGet, q, kByGids | prMask::kPKey | prMask::kSl).header.status,
            saStatus::kNoRecords);
}

// The SL of a path: the routing engine's SL2VL first (an SL it drops on a
// route is never offered there), then the partition's `sl`, then SL 0.
class PathSlTest : public PathRecordTest {
 protected:
  // Every switch turn maps the SLs `dropped` to VL15 and the others to VL 0.
  void dropOnEveryTurn(std::initializer_list<std::uint8_t> dropped) {
    const Fabric& f = sa.plan.fabric;
    for (NodeId sw = 0; sw < f.size(); ++sw) {
      if (!f.node(sw).isSwitch()) continue;
      const auto ports = static_cast<std::uint8_t>(f.node(sw).ports.size());
      for (std::uint8_t in = 1; in < ports; ++in) {
        for (std::uint8_t out = 1; out < ports; ++out) {
          Sl2VlEntry e{sw, in, out, {}};
          for (const std::uint8_t sl : dropped) e.vl[sl] = 15;
          sa.plan.routing.sl2vl.push_back(e);
        }
      }
    }
  }
  SaMad ask(std::optional<std::uint8_t> sl) {
    PathRecord q = between(sa, 1, 6);
    q.sl = sl.value_or(0);
    return sa.ask(saMethod::kGet, q, kByGids | (sl ? prMask::kSl : 0));
  }
};

TEST_F(PathSlTest, APathInAPartitionWithAnSlCarriesIt) {
  sa.slByPKey[0x7FFF] = 5;
  sa.rebuild();
  EXPECT_EQ(SaFixture::records<PathRecord>(ask(std::nullopt)).at(0).sl, 5);
}

TEST_F(PathSlTest, AnSlTheEnginesSl2VlDropsOnTheRouteGivesWayToTheLowestItCarries) {
  sa.slByPKey[0x7FFF] = 5;
  dropOnEveryTurn({0, 5});
  sa.rebuild();
  EXPECT_EQ(SaFixture::records<PathRecord>(ask(std::nullopt)).at(0).sl, 1)
      << "the engine's plan wins over the partition's sl";
  EXPECT_EQ(ask(std::uint8_t{5}).header.status, saStatus::kNoRecords) << "asked, but dropped";
}

TEST_F(PathSlTest, WithoutAPartitionSlAPathGetsTheLowestSlTheRouteCarries) {
  dropOnEveryTurn({0});
  sa.rebuild();
  EXPECT_EQ(SaFixture::records<PathRecord>(ask(std::nullopt)).at(0).sl, 1);
  EXPECT_EQ(SaFixture::records<PathRecord>(ask(std::uint8_t{7})).at(0).sl, 7);
}

// The dragonfly engine carries every SL alike on its levels, so the
// partition's SL would stand; but the multicast trees travel on SL 15 --
// on a VL of their own where one is left above the levels
// (routing/multicast/McSl.h), else on a level they share
// (routing/engines/SharedTreeVl.h) -- and the engine names its pairs on SL 0,
// which the SA answers (the engine's plan wins, as for sssp), so that no
// unicast path rides SL 15. Without QoS an SL picks nothing but the VL.
TEST(PathSlDragonflyTest, TheDragonflyEngineKeepsUnicastOffTheTreesSl) {
  for (const auto& [maxVls, sl] : {std::pair<std::uint8_t, std::uint8_t>{2, 0}, {8, 0}}) {
    SaFixture sa(DragonflySpec{.a = 4, .p = 2, .h = 2, .g = 3});
    PlanInputs inputs;
    inputs.engines = {"dragonfly"};
    inputs.routing.maxVls = maxVls;
    auto plan = planSubnet(sa.plan.fabric, inputs, defaultRegistry());
    ASSERT_TRUE(plan) << plan.error().message;
    ASSERT_FALSE(plan->routing.sl2vl.empty()) << "a plan with SL2VL on its turns";
    ASSERT_EQ(plan->routing.vlsUsed, 2);
    EXPECT_TRUE(routing::treesSafe(plan->fabric, plan->routing)) << "maxVls " << int{maxVls};
    sa.plan = std::move(*plan);
    sa.slByPKey[0x7FFF] = 6;
    sa.rebuild();
    // Every host to every other: all routes, through global links too.
    for (std::size_t to = 1; to < sa.hosts.size(); ++to) {
      const auto reply = sa.ask(saMethod::kGet, between(sa, 0, to), kByGids);
      ASSERT_EQ(reply.header.status, saStatus::kOk) << to;
      EXPECT_EQ(SaFixture::records<PathRecord>(reply).at(0).sl, sl)
          << to << " maxVls " << int{maxVls};
    }
  }
}

TEST(LmcPathTest, EachPortPairOffersItsDistinctLidPairsPreferredFirst) {
  SaFixture sa(FatTreeSpec{.levels = 2, .radix = 4}, /*lmc=*/1);
  auto paths =
      SaFixture::records<PathRecord>(sa.ask(saMethod::kGetTable, between(sa, 1, 3), kByGids));
  ASSERT_EQ(paths.size(), 4U);
  EXPECT_EQ(paths[0].slid, sa.lidOfHost(1));
  EXPECT_EQ(paths[0].dlid, sa.lidOfHost(3));
  EXPECT_EQ(paths[1].slid.value, sa.lidOfHost(1).value + 1);
  EXPECT_EQ(paths[1].dlid.value, sa.lidOfHost(3).value + 1);
  EXPECT_EQ(paths[0].preference, 0);
  EXPECT_EQ(paths[1].preference, 0);
  EXPECT_EQ(paths[2].preference, 1);
  EXPECT_EQ(paths[3].preference, 1);

  PathRecord q = between(sa, 1, 3);
  q.numbPath = 2;
  paths =
      SaFixture::records<PathRecord>(sa.ask(saMethod::kGetTable, q, kByGids | prMask::kNumbPath));
  EXPECT_EQ(paths.size(), 2U);

  EXPECT_EQ(
      SaFixture::records<PathRecord>(sa.ask(saMethod::kGet, between(sa, 1, 3), kByGids)).size(), 1U)
      << "a Get asks for one path";
}

}  // namespace
}  // namespace ibsm::sm::sa
