// The SL2VL tables a plan programs, as one reader gives them to the
// programmer, `ibsm path` and `ibsm dump sl2vl`: the engine's table where
// it has one for a (node, in, out), the QoS table elsewhere (CA ports
// included), none where neither gives one.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <ibsm/ProgrammedSl2Vl.h>

#include <tuple>

namespace ibsm {
namespace {

std::array<std::uint8_t, 16> all(std::uint8_t vl) {
  std::array<std::uint8_t, 16> out{};
  out.fill(vl);
  return out;
}

qos::QosSl2Vl qosTable(NodeId node, std::uint8_t in, std::uint8_t out, std::uint8_t vl) {
  return {.port = PortRef{node, out}, .inPort = in, .vl = all(vl)};
}

TEST(ProgrammedSl2Vl, TheEnginesTableWinsAndQosFillsTheRest) {
  const std::vector<Sl2VlEntry> engine{{.sw = 2, .inPort = 1, .outPort = 3, .vl = all(1)}};
  qos::QosTables qos;
  qos.sl2vl = {qosTable(0, 0, 1, 7), qosTable(2, 1, 3, 4), qosTable(2, 2, 3, 5)};
  const auto planned = programmedSl2Vl(engine, &qos);
  EXPECT_EQ(planned.engineWins, 1U);
  ASSERT_EQ(planned.tables.size(), 3U);
  EXPECT_FALSE(planned.tables[0].qos);
  EXPECT_EQ(planned.tables[0].entry.vl, all(1));

  const auto entries = programmedSl2VlEntries(engine, &qos);
  std::vector<std::tuple<NodeId, int, int, int>> seen;
  for (const auto& e : entries) seen.emplace_back(e.sw, e.inPort, e.outPort, e.vl[0]);
  // Sorted by (node, in, out) as sl2vl.dump: the CA's table first.
  EXPECT_THAT(seen, ::testing::ElementsAre(std::tuple(0, 0, 1, 7), std::tuple(2, 1, 3, 1),
                                           std::tuple(2, 2, 3, 5)));
  EXPECT_EQ(sl2vlOf(entries, 2, 1, 3, 9), 1);
  EXPECT_EQ(sl2vlOf(entries, 2, 2, 3, 9), 5);
  EXPECT_EQ(sl2vlOf(entries, 0, 0, 1, 0), 7);
  EXPECT_EQ(sl2vlOf(entries, 2, 3, 1, 0), std::nullopt) << "no table programmed there";
}

TEST(ProgrammedSl2Vl, WithoutQosTheEnginesTablesInTheirOrder) {
  const std::vector<Sl2VlEntry> engine{{.sw = 5, .inPort = 1, .outPort = 2, .vl = all(1)},
                                       {.sw = 1, .inPort = 2, .outPort = 1, .vl = all(0)}};
  const auto entries = programmedSl2VlEntries(engine, nullptr);
  ASSERT_EQ(entries.size(), 2U);
  EXPECT_EQ(entries[0].sw, 5U);
  EXPECT_EQ(programmedSl2Vl(engine, nullptr).engineWins, 0U);
  EXPECT_TRUE(programmedSl2VlEntries({}, nullptr).empty());
}

}  // namespace
}  // namespace ibsm
