// `ibsm path` shows the SL the SA would answer (issue 30): for the same
// plan, policy and query, analysis::pathSl() -- what the path command and
// the daemon's path walk on -- gives the SL of the SA's PathRecord, and a
// query the SA refuses for its SL is the one the path notes.
#include <gtest/gtest.h>
#include <ibsm/QosPolicy.h>

#include "routing/analysis/PathSl.h"
#include "sm/sa/PathRecords.h"
#include "tests/sm/sa/SaFixture.h"

namespace ibsm::sm::sa {
namespace {

using testing::SaFixture;

constexpr std::uint64_t kByGids = prMask::kSgid | prMask::kDgid;

class PathSlAgreement : public ::testing::Test {
 protected:
  // Levels Storage (SL 1), Mpi (SL 2), Bulk (SL 3), DEFAULT (SL 5);
  // "storage" holds host 3, "compute" hosts 1 and 2; rules by destination,
  // ServiceID, QoS class and PKey.
  PathSlAgreement() {
    qos::QosPolicy policy;
    policy.levels = {{.name = "Storage", .sl = 1},
                     {.name = "Mpi", .sl = 2},
                     {.name = "Bulk", .sl = 3},
                     {.name = "DEFAULT", .sl = 5}};
    policy.rules = {{.destinations = {"storage"}, .level = "Storage"},
                    {.serviceIds = {{0x1000, 0x10FF}}, .level = "Mpi"},
                    {.qosClasses = {{4, 4}}, .level = "Bulk"},
                    {.pkeys = {{0x0002, 0x0002}}, .level = "Bulk"}};
    auto resolved = std::make_shared<qos::ResolvedQos>();
    resolved->policy = std::make_shared<const qos::QosPolicy>(policy);
    resolved->members["compute"] = {sa.guidOfHost(1), sa.guidOfHost(2)};
    resolved->members["storage"] = {sa.guidOfHost(3)};
    sa.plan.qos = resolved;
    PKeyTables t;
    for (std::size_t h = 1; h <= 4; ++h)
      t.ports.push_back({.port = sa.hostPort(h), .pkeys = {0xFFFF, 0x8002}});
    sortByPort(t);
    sa.plan.pkeys = t;
    sa.rebuild();
  }

  // The SA's answer to a Get of this query between two hosts: its SL, or
  // nullopt when it has no path.
  std::optional<std::uint8_t> saSl(std::size_t from, std::size_t to,
                                   const analysis::PathSlQuery& query) {
    PathRecord q;
    q.sgid = sa.gidOfHost(from);
    q.dgid = sa.gidOfHost(to);
    std::uint64_t mask = kByGids;
    if (query.sl) q.sl = *query.sl, mask |= prMask::kSl;
    if (query.serviceId) q.serviceId = *query.serviceId, mask |= prMask::kServiceId;
    if (query.pkey) q.pkey = *query.pkey, mask |= prMask::kPKey;
    if (query.qosClass) q.qosClass = *query.qosClass, mask |= prMask::kQosClass;
    const auto paths = SaFixture::records<PathRecord>(sa.ask(saMethod::kGet, q, mask));
    if (paths.empty()) return std::nullopt;
    return paths.at(0).sl;
  }
  analysis::PathSl pathSl(std::size_t from, std::size_t to, const analysis::PathSlQuery& query) {
    return analysis::pathSl(sa.plan.qos.get(), sa.plan.fabric, sa.hostPort(from), sa.hostPort(to),
                            query);
  }

  SaFixture sa{FatTreeSpec{.levels = 2, .radix = 4}};
};

TEST_F(PathSlAgreement, ThePathsSlIsThePathRecordsForEveryKindOfRule) {
  const std::vector<std::tuple<std::size_t, std::size_t, analysis::PathSlQuery, std::string>> cases{
      {1, 3, {}, "Storage"},
      {1, 2, {}, "DEFAULT"},
      {3, 1, {}, "DEFAULT"},
      {1, 2, {.serviceId = 0x1010}, "Mpi"},
      {1, 2, {.serviceId = 0x1100}, "DEFAULT"},
      {2, 4, {.qosClass = 4}, "Bulk"},
      {2, 4, {.pkey = 0x8002}, "Bulk"},
      {1, 3, {.serviceId = 0x1010}, "Storage"},
      {1, 2, {.sl = 5}, "DEFAULT"},
  };
  for (const auto& [from, to, query, level] : cases) {
    const auto ours = pathSl(from, to, query);
    const auto theirs = saSl(from, to, query);
    ASSERT_TRUE(theirs.has_value()) << from << "->" << to << " " << level;
    EXPECT_EQ(ours.sl, *theirs) << from << "->" << to << " " << level;
    ASSERT_NE(ours.level, nullptr);
    EXPECT_EQ(ours.level->name, level);
    EXPECT_TRUE(ours.note.empty()) << ours.note;
  }
}

// ERR 1F1F: an SL other than the level's has no PathRecord; the path walks
// the SL asked and says so.
TEST_F(PathSlAgreement, AnSlTheSaRefusesIsWalkedAsAskedWithANote) {
  const analysis::PathSlQuery query{.sl = 0};
  EXPECT_FALSE(saSl(1, 3, query).has_value());
  const auto ours = pathSl(1, 3, query);
  EXPECT_EQ(ours.sl, 0);
  EXPECT_NE(ours.note.find("SL 1"), std::string::npos) << ours.note;
  EXPECT_NE(ours.note.find("no path"), std::string::npos) << ours.note;
}

// Without a policy the SA answers the SL asked (no partition sl here) and
// the path walks it, naming no level.
TEST_F(PathSlAgreement, WithoutAPolicyTheSlAskedStands) {
  sa.plan.qos = nullptr;
  sa.rebuild();
  for (std::uint8_t sl : {0, 4}) {
    const analysis::PathSlQuery query{.sl = sl};
    EXPECT_EQ(pathSl(1, 2, query).sl, saSl(1, 2, query).value());
    EXPECT_EQ(pathSl(1, 2, query).level, nullptr);
  }
  EXPECT_EQ(pathSl(1, 2, {}).sl, saSl(1, 2, {}).value());
}

}  // namespace
}  // namespace ibsm::sm::sa
