// PathRecords and MultiPathRecords under a QoS policy (issue 30): the
// level of the first matching rule, else DEFAULT, sets the SL, caps MTU
// and rate, narrows the PKeys and replaces the PacketLifeTime -- each
// test the behaviour of OpenSM's SA with the same policy, its source
// named (osm_sa_path_record.c pr_rcv_get_path_parms, osm_sa_multipath_
// record.c mpr_rcv_get_path_parms, osm_qos_policy.c). The policy is set
// on the plan directly, as resolveQos() would leave it.
#include <gtest/gtest.h>
#include <ibsm/QosPolicy.h>

#include "sm/sa/MultiPathRecords.h"
#include "sm/sa/PathRecords.h"
#include "tests/sm/sa/SaFixture.h"

namespace ibsm::sm::sa {
namespace {

using testing::SaFixture;

constexpr std::uint64_t kByGids = prMask::kSgid | prMask::kDgid;

class QosPathRecordTest : public ::testing::Test {
 protected:
  // Levels: Storage (SL 1), Mpi (SL 2), DEFAULT (SL 5); port group
  // "compute" holds hosts 1 and 2, "storage" host 3.
  QosPathRecordTest() {
    policy.levels = {{.name = "Storage", .sl = 1}, {.name = "Mpi", .sl = 2}};
    policy.levels.push_back({.name = "DEFAULT", .sl = 5});
  }
  // Puts `policy` on the plan with its groups resolved, and rebuilds.
  void apply() {
    auto resolved = std::make_shared<qos::ResolvedQos>();
    resolved->policy = std::make_shared<const qos::QosPolicy>(policy);
    resolved->members["compute"] = {sa.guidOfHost(1), sa.guidOfHost(2)};
    resolved->members["storage"] = {sa.guidOfHost(3)};
    sa.plan.qos = resolved;
    sa.rebuild();
  }
  qos::QosLevel& level(std::string_view name) {
    for (auto& l : policy.levels)
      if (l.name == name) return l;
    throw std::logic_error("no level");
  }
  // Hosts 1-3 full members of 0x0001 and 0x0002, host 4 of 0x0002 only.
  void partitions() {
    PKeyTables t;
    for (std::size_t h = 1; h <= 3; ++h)
      t.ports.push_back({.port = sa.hostPort(h), .pkeys = {0xFFFF, 0x8001, 0x8002}});
    t.ports.push_back({.port = sa.hostPort(4), .pkeys = {0xFFFF, 0x8002}});
    sortByPort(t);
    sa.plan.pkeys = t;
  }
  PathRecord between(std::size_t from, std::size_t to) const {
    PathRecord q;
    q.sgid = sa.gidOfHost(from);
    q.dgid = sa.gidOfHost(to);
    return q;
  }
  std::vector<PathRecord> get(const PathRecord& q, std::uint64_t mask) {
    return SaFixture::records<PathRecord>(sa.ask(saMethod::kGet, q, kByGids | mask));
  }
  std::uint8_t slOf(std::size_t from, std::size_t to) { return get(between(from, to), 0).at(0).sl; }

  SaFixture sa{FatTreeSpec{.levels = 2, .radix = 4}};
  qos::QosPolicy policy;
};

// __qos_policy_get_match_rule_by_params: a rule with only sources wants
// the source in one of them, with only destinations the destination.
TEST_F(QosPathRecordTest, TheLevelFollowsTheSourceOrDestinationGroup) {
  policy.rules = {{.destinations = {"storage"}, .level = "Storage"},
                  {.sources = {"compute"}, .level = "Mpi"}};
  apply();
  EXPECT_EQ(slOf(1, 3), 1) << "to storage: the first rule";
  EXPECT_EQ(slOf(1, 2), 2) << "compute to compute: the second";
  EXPECT_EQ(slOf(3, 1), 5) << "from storage to compute: neither, DEFAULT";
  EXPECT_EQ(slOf(4, 5), 5);
}

// A rule with service ids matches only a query giving its ServiceID (both
// halves in the component mask) within them; one without: DEFAULT.
TEST_F(QosPathRecordTest, TheLevelFollowsTheServiceIdTheQueryGives) {
  policy.rules = {{.serviceIds = {{0x1000, 0x10FF}}, .level = "Storage"}};
  apply();
  PathRecord q = between(1, 2);
  q.serviceId = 0x1010;
  EXPECT_EQ(get(q, prMask::kServiceId).at(0).sl, 1);
  EXPECT_EQ(get(q, prMask::kServiceId).at(0).serviceId, 0x1010U);
  EXPECT_EQ(get(q, 0).at(0).sl, 5) << "not given: the rule cannot hold";
  q.serviceId = 0x1100;
  EXPECT_EQ(get(q, prMask::kServiceId).at(0).sl, 5);
}

// A rule with PKeys matches the query's PKey on its low 15 bits; the
// level's SL then overrides the partition's `sl` (pr_rcv_get_path_parms:
// "QoS level SL overrides partition SL").
TEST_F(QosPathRecordTest, TheLevelFollowsThePKeyAndOverridesThePartitionsSl) {
  partitions();
  sa.slByPKey[0x0001] = 7;
  policy.rules = {{.pkeys = {{0x0001, 0x0001}}, .level = "Mpi"}};
  apply();
  PathRecord q = between(1, 2);
  q.pkey = 0x8001;
  const auto paths = get(q, prMask::kPKey);
  ASSERT_EQ(paths.size(), 1U);
  EXPECT_EQ(paths[0].sl, 2);
  EXPECT_EQ(paths[0].pkey, 0x8001);
  q.sl = 2;
  EXPECT_EQ(get(q, prMask::kPKey | prMask::kSl).size(), 1U)
      << "asking the level's SL: the partition's sl is not consulted (ERR 1F1F only)";
  q.pkey = 0x8002;
  EXPECT_EQ(get(q, prMask::kPKey).at(0).sl, 5);
}

TEST_F(QosPathRecordTest, TheLevelFollowsTheQosClass) {
  policy.rules = {{.qosClasses = {{3, 4}}, .level = "Storage"}};
  apply();
  PathRecord q = between(1, 2);
  q.qosClass = 4;
  EXPECT_EQ(get(q, prMask::kQosClass).at(0).sl, 1);
  q.qosClass = 5;
  EXPECT_EQ(get(q, prMask::kQosClass).at(0).sl, 5);
  EXPECT_EQ(get(between(1, 2), 0).at(0).sl, 5);
}

// __qos_policy_get_qos_level_by_params: no rule and no DEFAULT, no level:
// the path is answered as without a policy (the partition's SL).
TEST_F(QosPathRecordTest, WithNoMatchAndNoDefaultThePathIsAsWithoutAPolicy) {
  std::erase_if(policy.levels, [](const auto& l) { return l.name == "DEFAULT"; });
  policy.rules = {{.destinations = {"storage"}, .level = "Storage"}};
  partitions();
  sa.slByPKey[0x0002] = 6;
  apply();
  PathRecord q = between(1, 4);
  q.pkey = 0x0002;
  EXPECT_EQ(get(q, prMask::kPKey).at(0).sl, 6);
  EXPECT_EQ(slOf(4, 3), 1);
}

// ERR 1F1F: a query naming an SL other than its level's has no path.
TEST_F(QosPathRecordTest, AnSlInTheQueryOtherThanTheLevelsHasNoPath) {
  policy.rules = {{.destinations = {"storage"}, .level = "Storage"}};
  apply();
  PathRecord q = between(1, 3);
  q.sl = 0;
  EXPECT_EQ(sa.ask(saMethod::kGet, q, kByGids | prMask::kSl).header.status, saStatus::kNoRecords);
  q.sl = 1;
  EXPECT_EQ(get(q, prMask::kSl).at(0).sl, 1);
}

// The level's mtu-limit and rate-limit cap the path's MTU and rate (the
// lower of the two); the query's selectors then judge the capped values.
TEST_F(QosPathRecordTest, MtuAndRateLimitsCapThePathBeforeTheSelectors) {
  const PathRecord free = get(between(1, 2), 0).at(0);
  ASSERT_EQ(free.mtu, 5);
  ASSERT_GT(rateHalfGbps(free.rate), rateHalfGbps(2));
  level("DEFAULT").mtuLimit = 3;   // 1024
  level("DEFAULT").rateLimit = 2;  // 2.5 Gb/s
  level("Mpi").mtuLimit = 5;       // above the path's: no change
  policy.rules = {{.destinations = {"storage"}, .level = "Mpi"}};
  apply();
  const PathRecord capped = get(between(1, 2), 0).at(0);
  EXPECT_EQ(capped.mtu, 3);
  EXPECT_EQ(capped.rate, 2);
  EXPECT_EQ(get(between(1, 3), 0).at(0).mtu, 5);

  PathRecord q = between(1, 2);
  const std::uint64_t mtu = prMask::kMtuSelector | prMask::kMtu;
  q.mtuSelector = selector::kExactly;
  q.mtu = 5;
  EXPECT_EQ(sa.ask(saMethod::kGet, q, kByGids | mtu).header.status, saStatus::kNoRecords);
  q.mtuSelector = selector::kGreater;
  q.mtu = 2;
  EXPECT_EQ(get(q, mtu).at(0).mtu, 3);
  q.mtuSelector = selector::kLess;
  q.mtu = 3;
  EXPECT_EQ(get(q, mtu).at(0).mtu, 2) << "the highest below the one asked";
  q = between(1, 2);
  q.rateSelector = selector::kExactly;
  q.rate = free.rate;
  EXPECT_EQ(
      sa.ask(saMethod::kGet, q, kByGids | prMask::kRateSelector | prMask::kRate).header.status,
      saStatus::kNoRecords);
}

// With PKeys in the level: a query's PKey must be one of them (ERR 1F1D);
// without one, the first of the level's PKeys both ports share
// (osm_qos_level_get_shared_pkey), none shared: no path (ERR 1F1E).
TEST_F(QosPathRecordTest, TheLevelsPKeysNarrowThePathsPKey) {
  partitions();
  level("DEFAULT").pkeys = {{0x0002, 0x0002}, {0x0001, 0x0001}};
  level("Storage").pkeys = {{0x8003, 0x8004}};
  policy.rules = {{.destinations = {"storage"}, .level = "Storage"}};
  apply();
  EXPECT_EQ(get(between(1, 2), 0).at(0).pkey, 0x8002) << "the level's first range first";
  PathRecord q = between(1, 2);
  q.pkey = 0x8001;
  EXPECT_EQ(get(q, prMask::kPKey).at(0).pkey, 0x8001);
  q.pkey = 0xFFFF;
  EXPECT_EQ(sa.ask(saMethod::kGet, q, kByGids | prMask::kPKey).header.status, saStatus::kNoRecords);
  EXPECT_EQ(sa.ask(saMethod::kGet, between(1, 3), kByGids).header.status, saStatus::kNoRecords)
      << "the Storage level's PKeys are not theirs";
}

// The level's packet-life replaces the subnet's; a loopback path keeps 0
// (IBA Table 205), and the selectors judge the level's value.
TEST_F(QosPathRecordTest, TheLevelsPacketLifeReplacesTheSubnets) {
  level("DEFAULT").packetLife = 12;
  apply();
  EXPECT_EQ(get(between(1, 2), 0).at(0).packetLifeTime, 12);
  EXPECT_EQ(get(between(1, 1), 0).at(0).packetLifeTime, 0);
  PathRecord q = between(1, 2);
  q.packetLifeTimeSelector = selector::kLess;
  q.packetLifeTime = 10;
  EXPECT_EQ(get(q, prMask::kPacketLifeSelector | prMask::kPacketLife).at(0).packetLifeTime, 9);
  q.packetLifeTimeSelector = selector::kGreater;
  q.packetLifeTime = 12;
  EXPECT_EQ(sa.ask(saMethod::kGet, q, kByGids | prMask::kPacketLifeSelector | prMask::kPacketLife)
                .header.status,
            saStatus::kNoRecords);
}

// pr_rcv_get_path_parms: the level's SL must be carried by the route's
// SL2VL (valid_sl_mask), else no path -- not the lowest carried SL.
TEST_F(QosPathRecordTest, ALevelSlTheRouteDropsHasNoPath) {
  const Fabric& f = sa.plan.fabric;
  for (NodeId sw = 0; sw < f.size(); ++sw) {
    if (!f.node(sw).isSwitch()) continue;
    const auto ports = static_cast<std::uint8_t>(f.node(sw).ports.size());
    for (std::uint8_t in = 1; in < ports; ++in)
      for (std::uint8_t out = 1; out < ports; ++out) {
        Sl2VlEntry e{sw, in, out, {}};
        e.vl[5] = 15;
        sa.plan.routing.sl2vl.push_back(e);
      }
  }
  policy.rules = {{.destinations = {"storage"}, .level = "Storage"}};
  apply();
  EXPECT_EQ(sa.ask(saMethod::kGet, between(1, 4), kByGids).header.status, saStatus::kNoRecords);
  EXPECT_EQ(slOf(1, 3), 1);
}

// mpr_rcv_get_path_parms and osm_qos_policy_get_qos_level_by_mpr: the
// same level per source/destination pair, the MultiPathRecord's ServiceID
// (both halves), PKey and QoSClass feeding the match.
TEST_F(QosPathRecordTest, MultiPathRecordsGetTheLevelOfEachPair) {
  policy.rules = {
      {.destinations = {"storage"}, .serviceIds = {{0x1000, 0x1000}}, .level = "Storage"},
      {.destinations = {"storage"}, .level = "Mpi"}};
  level("Mpi").mtuLimit = 4;
  apply();
  MultiPathRecord r;
  r.sgids = {sa.gidOfHost(1)};
  r.dgids = {sa.gidOfHost(3), sa.gidOfHost(4)};
  constexpr std::uint64_t kCounts = mprMask::kSgidCount | mprMask::kDgidCount;
  auto paths = findMultiPaths(*sa.subnet, r, kCounts, sa.from.lid);
  ASSERT_TRUE(paths.has_value());
  ASSERT_EQ(paths->size(), 2U);
  EXPECT_EQ((*paths)[0].sl, 2);
  EXPECT_EQ((*paths)[0].mtu, 4);
  EXPECT_EQ((*paths)[1].sl, 5);
  r.serviceIdMsb = 0;
  r.serviceIdLsb = 0x1000;
  paths = findMultiPaths(*sa.subnet, r, kCounts | mprMask::kServiceIdMsb | mprMask::kServiceIdLsb,
                         sa.from.lid);
  ASSERT_TRUE(paths.has_value());
  EXPECT_EQ(paths->at(0).sl, 1);
  EXPECT_EQ(paths->at(0).mtu, 5);
  r.sl = 0;
  paths = findMultiPaths(*sa.subnet, r, kCounts | (1ULL << 9), sa.from.lid);  // SL given
  ASSERT_TRUE(paths.has_value());
  EXPECT_TRUE(paths->empty()) << "ERR 451E: SL 0 is neither pair's level's";
}

// matchQos() finding no level (no rule matches, no DEFAULT) leaves every
// field of the answer as without a policy.
TEST_F(QosPathRecordTest, NoLevelLeavesTheAnswerAsWithoutAPolicy) {
  PathRecord q = between(1, 2);
  q.serviceId = 0x42;
  const auto before = encodeRecord(get(q, prMask::kServiceId).at(0));
  std::erase_if(policy.levels, [](const auto& l) { return l.name == "DEFAULT"; });
  policy.rules = {{.serviceIds = {{0x43, 0x43}}, .level = "Storage"}};
  apply();
  EXPECT_EQ(encodeRecord(get(q, prMask::kServiceId).at(0)), before);
  level("Storage").packetLife = 3;
  apply();
  q.serviceId = 0x43;
  EXPECT_EQ(get(q, prMask::kServiceId).at(0).packetLifeTime, 3) << "and the rule does hold";
}

}  // namespace
}  // namespace ibsm::sm::sa
