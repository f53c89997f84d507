// Per-pair SLs in the SA (RoutingResult::pairSls): an engine that layers
// its routes over VLs is free of credit loops only when each pair travels
// on the SL it chose, so the SA answers that SL in PathRecords (and
// MultiPathRecords), looked up by (DLID, source port), from the snapshot it
// answers from; a pair the engine does not name gets SL 0; a query naming
// another SL gets no path; the engine's SL wins over a QoS level's.
#include <gtest/gtest.h>
#include <ibsm/QosPolicy.h>

#include "routing/analysis/PathSl.h"
#include "sm/sa/MultiPathRecords.h"
#include "sm/sa/PathRecords.h"
#include "tests/sm/sa/SaFixture.h"

namespace ibsm::sm::sa {
namespace {

using testing::SaFixture;

constexpr std::uint64_t kByGids = prMask::kSgid | prMask::kDgid;

class PairSlPathRecord : public ::testing::Test {
 protected:
  // Host 1 toward host 2, and host 3 toward every LID of host 1, on SL 1.
  PairSlPathRecord() {
    sa.plan.routing.pairSls = {PairSl{sa.lidOfHost(2), sa.hostPort(1), 1},
                               PairSl{sa.lidOfHost(1), sa.hostPort(3), 2}};
    std::ranges::sort(sa.plan.routing.pairSls);
    sa.rebuild();
  }

  // The SLs of a Get between two hosts (empty: no path), with an SL asked.
  std::vector<std::uint8_t> sls(std::size_t from, std::size_t to,
                                std::optional<std::uint8_t> sl = std::nullopt) {
    PathRecord q;
    q.sgid = sa.gidOfHost(from);
    q.dgid = sa.gidOfHost(to);
    std::uint64_t mask = kByGids;
    if (sl) q.sl = *sl, mask |= prMask::kSl;
    std::vector<std::uint8_t> out;
    for (const auto& p : SaFixture::records<PathRecord>(sa.ask(saMethod::kGet, q, mask)))
      out.push_back(p.sl);
    return out;
  }

  SaFixture sa{FatTreeSpec{.levels = 2, .radix = 4}};
};

TEST_F(PairSlPathRecord, EachPairGetsTheSlTheEngineGaveIt) {
  EXPECT_EQ(sls(1, 2), std::vector<std::uint8_t>{1});
  EXPECT_EQ(sls(3, 1), std::vector<std::uint8_t>{2});
  // Per (source, destination): the way back and other pairs are on SL 0.
  EXPECT_EQ(sls(2, 1), std::vector<std::uint8_t>{0});
  EXPECT_EQ(sls(1, 3), std::vector<std::uint8_t>{0});
  EXPECT_EQ(sls(4, 2), std::vector<std::uint8_t>{0});
}

TEST_F(PairSlPathRecord, AQueryNamingAnotherSlGetsNoPath) {
  EXPECT_EQ(sls(1, 2, 1), std::vector<std::uint8_t>{1});
  EXPECT_TRUE(sls(1, 2, 0).empty());
  EXPECT_TRUE(sls(2, 1, 1).empty());  // a pair not named travels on SL 0 only
  EXPECT_EQ(sls(2, 1, 0), std::vector<std::uint8_t>{0});
}

TEST_F(PairSlPathRecord, AnSlTheRouteDropsGetsNoPathRatherThanAnother) {
  // Every turn of every switch drops SL 1 (VL 15).
  for (const NodeId sw : sa.plan.fabric.switches())
    for (std::uint8_t in = 0; in <= sa.plan.fabric.node(sw).numPorts(); ++in)
      for (std::uint8_t out = 0; out <= sa.plan.fabric.node(sw).numPorts(); ++out) {
        Sl2VlEntry e{sw, in, out, {}};
        e.vl[1] = 15;
        sa.plan.routing.sl2vl.push_back(e);
      }
  sa.rebuild();
  EXPECT_TRUE(sls(1, 2).empty());
  EXPECT_EQ(sls(3, 1), std::vector<std::uint8_t>{2});
}

TEST_F(PairSlPathRecord, MultiPathRecordsAnswerEachPairsSl) {
  MultiPathRecord r;
  r.sgids = {sa.gidOfHost(1)};
  r.dgids = {sa.gidOfHost(2), sa.gidOfHost(3)};
  const auto paths =
      findMultiPaths(*sa.subnet, r, mprMask::kSgidCount | mprMask::kDgidCount, sa.lidOfHost(1));
  ASSERT_TRUE(paths.has_value());
  ASSERT_EQ(paths->size(), 2u);
  EXPECT_EQ(paths->at(0).sl, 1);
  EXPECT_EQ(paths->at(1).sl, 0);
}

TEST_F(PairSlPathRecord, TheEnginesSlWinsOverAQosLevelsAndThePathSaysSo) {
  qos::QosPolicy policy;
  policy.levels = {{.name = "DEFAULT", .sl = 5}};
  auto resolved = std::make_shared<qos::ResolvedQos>();
  resolved->policy = std::make_shared<const qos::QosPolicy>(policy);
  sa.plan.qos = resolved;
  sa.rebuild();
  EXPECT_EQ(sls(1, 2), std::vector<std::uint8_t>{1});
  EXPECT_EQ(sls(2, 1), std::vector<std::uint8_t>{0});
  EXPECT_TRUE(sls(2, 1, 5).empty());

  // `ibsm path` walks the SL the SA answers, and notes the level it overrode.
  const auto& pairs = sa.plan.routing.pairSls;
  const auto chosen =
      analysis::pathSl(sa.plan.qos.get(), sa.plan.fabric, sa.hostPort(1), sa.hostPort(2), {},
                       analysis::engineSl(pairs, sa.hostPort(1), sa.lidOfHost(2)));
  EXPECT_EQ(chosen.sl, 1);
  ASSERT_NE(chosen.level, nullptr);
  EXPECT_NE(chosen.note.find("QoS level DEFAULT gives SL 5"), std::string::npos) << chosen.note;
  const auto unnamed = analysis::engineSl(pairs, sa.hostPort(2), sa.lidOfHost(1));
  ASSERT_TRUE(unnamed.has_value());
  EXPECT_EQ(*unnamed, 0);
  const auto asked = analysis::pathSl(sa.plan.qos.get(), sa.plan.fabric, sa.hostPort(2),
                                      sa.hostPort(1), {.sl = 5}, unnamed);
  EXPECT_EQ(asked.sl, 5);
  EXPECT_NE(asked.note.find("no path for SL 5"), std::string::npos) << asked.note;
}

TEST_F(PairSlPathRecord, WithoutPairSlsThePathSlFollowsTheQosLevelAsBefore) {
  EXPECT_FALSE(analysis::engineSl({}, sa.hostPort(1), sa.lidOfHost(2)).has_value());
  sa.plan.routing.pairSls.clear();
  sa.rebuild();
  EXPECT_EQ(sls(1, 2), std::vector<std::uint8_t>{0});
  EXPECT_EQ(sls(1, 2, 4), std::vector<std::uint8_t>{4});
}

}  // namespace
}  // namespace ibsm::sm::sa
