// The planner on generated and sample fabrics: what every port's table holds,
// in which order, and what the switch ports facing end ports enforce.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <ibsm/Partitions.h>

#include <map>
#include <set>

#include "tests/support/FabricFixtures.h"

namespace ibsm::partition {
namespace {

using ibsm::testing::generatedFabric;
using ibsm::testing::nodeNamed;
using ibsm::testing::sampleFabric;

PartitionConfig config(std::string_view text) {
  auto c = parsePartitionsFile(text, "p.conf");
  if (!c) ADD_FAILURE() << c.error().message;
  return c.value_or(PartitionConfig{});
}

PartitionPlan plan(const Fabric& f, std::string_view text, std::optional<Guid> sm) {
  auto p = planPartitions(f, config(text), sm);
  if (!p) ADD_FAILURE() << p.error().message;
  return p.value_or(PartitionPlan{});
}

std::vector<PortRef> caPorts(const Fabric& f) {
  std::vector<PortRef> out;
  for (NodeId id : f.endNodes())
    for (std::uint8_t p = 1; p < f.node(id).ports.size(); ++p)
      if (f.node(id).ports[p].connected()) out.push_back({id, p});
  return out;
}

std::vector<std::uint16_t> tableOf(const PartitionPlan& p, PortRef port) {
  const PortPKeys* e = findPort(p.tables, port);
  EXPECT_NE(e, nullptr) << "no table for node " << port.node << " port " << int(port.port);
  return e ? e->pkeys : std::vector<std::uint16_t>{};
}

TEST(PartitionPlanner, WithoutADefaultRuleEveryEndPortIsLimitedAndTheSmFull) {
  const Fabric f = generatedFabric(FatTreeSpec{.levels = 2, .radix = 8});
  const auto cas = caPorts(f);
  const Guid sm = f.port(cas[0]).guid;
  const auto p = plan(f, "", sm);
  EXPECT_TRUE(p.warnings.empty());
  EXPECT_EQ(tableOf(p, cas[0]), (std::vector<std::uint16_t>{0xffff}));
  for (std::size_t i = 1; i < cas.size(); ++i) {
    EXPECT_EQ(tableOf(p, cas[i]), (std::vector<std::uint16_t>{0x7fff}));
  }
  for (NodeId sw : f.switches())
    EXPECT_EQ(tableOf(p, {sw, 0}), (std::vector<std::uint16_t>{0x7fff}));
  ASSERT_EQ(p.partitions.size(), 1u);
  EXPECT_EQ(p.partitions[0].name, "Default");
}

TEST(PartitionPlanner, FullMembersCarryTheBitAndFullWinsOverLimited) {
  const Fabric f = generatedFabric(FatTreeSpec{.levels = 2, .radix = 8});
  const auto cas = caPorts(f);
  const Guid a = f.port(cas[1]).guid;
  const Guid b = f.port(cas[2]).guid;
  const auto p = plan(f,
                      fmt::format("Default=0x7fff : ALL=full;\n"
                                  "mix=0x0300 : ALL_CAS=limited, {}=full;\n"
                                  "mix=0x0300 : {}=limited;\n"  // full stays full
                                  "two=0x0100 : {}=both;\n",
                                  a, a, b),
                      std::nullopt);
  EXPECT_EQ(tableOf(p, cas[1]), (std::vector<std::uint16_t>{0xffff, 0x8300}));
  // 0x7fff first, then by PKey; "both" holds the full and the limited key.
  EXPECT_EQ(tableOf(p, cas[2]), (std::vector<std::uint16_t>{0xffff, 0x8100, 0x0100, 0x0300}));
  EXPECT_EQ(tableOf(p, cas[3]), (std::vector<std::uint16_t>{0xffff, 0x0300}));
  for (NodeId sw : f.switches())
    EXPECT_EQ(tableOf(p, {sw, 0}), (std::vector<std::uint16_t>{0xffff}));
  const auto& mix = p.partitions.at(2);
  EXPECT_EQ(mix.pkey, 0x300);
  EXPECT_EQ(mix.members.size(), cas.size());
}

TEST(PartitionPlanner, SwitchPortsFacingEndPortsEnforceTheirPeersTable) {
  const Fabric f = generatedFabric(FatTreeSpec{.levels = 2, .radix = 8});
  const Guid member = f.port(caPorts(f)[4]).guid;
  const auto p = plan(f, fmt::format("t=0x10 : {}=full;", member), std::nullopt);
  std::size_t facing = 0;
  for (NodeId sw : f.switches()) {
    for (std::uint8_t port = 1; port < f.node(sw).ports.size(); ++port) {
      const auto& remote = f.node(sw).ports[port].remote;
      const PortPKeys* e = findPort(p.tables, {sw, port});
      if (!remote || f.node(remote->node).isSwitch()) {
        EXPECT_EQ(e, nullptr) << "inter-switch and empty ports keep their tables";
        continue;
      }
      ++facing;
      ASSERT_NE(e, nullptr);
      EXPECT_TRUE(e->enforce);
      EXPECT_EQ(e->pkeys, tableOf(p, *remote));
    }
  }
  EXPECT_EQ(facing, caPorts(f).size());
}

TEST(PartitionPlanner, EndPortsInNoPartitionGetAnEmptyTable) {
  // A tenant removed from the config must lose its keys on the next sweep.
  const Fabric f = generatedFabric(FatTreeSpec{.levels = 2, .radix = 8});
  const auto cas = caPorts(f);
  const auto p = plan(f, "Default=0x7fff : ALL_SWITCHES=full, SELF=full;", f.port(cas[0]).guid);
  EXPECT_EQ(tableOf(p, cas[0]), (std::vector<std::uint16_t>{0xffff}));
  EXPECT_TRUE(tableOf(p, cas[1]).empty());
}

TEST(PartitionPlanner, KeywordsSelectTheirNodeTypes) {
  const Fabric f = sampleFabric("two-switch-dual-port-hcas.net");
  const auto p =
      plan(f,
           "cas=0x1 : ALL_CAS=full;\nsw=0x2 : ALL_SWITCHES=full;\nrt=0x3 : ALL_ROUTERS;\n"
           "self=0x4 : SELF=full;",
           f.port(caPorts(f)[0]).guid);
  EXPECT_EQ(p.partitions.at(1).members.size(), caPorts(f).size());    // cas
  EXPECT_EQ(p.partitions.at(2).members.size(), f.switches().size());  // sw
  EXPECT_TRUE(p.partitions.at(3).members.empty());                    // no routers here
  ASSERT_EQ(p.partitions.at(4).members.size(), 1u);                   // self
  EXPECT_EQ(p.partitions.at(4).members[0].port, caPorts(f)[0]);
  EXPECT_EQ(tableOf(p, caPorts(f)[0]), (std::vector<std::uint16_t>{0xffff, 0x8001, 0x8004}));
}

TEST(PartitionPlanner, UnknownGuidsAreWarningsListedOnce) {
  const Fabric f = generatedFabric(FatTreeSpec{.levels = 2, .radix = 8});
  const auto p = plan(f, "a=0x1 : 0xdead=full;\nb=0x2 : 0xdead, ALL;\n", std::nullopt);
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_EQ(p.warnings[0],
            "p.conf:1: port GUID 0x000000000000dead (partition 'a') is not in the fabric");
  EXPECT_TRUE(p.partitions.at(1).members.empty());
  const auto self = plan(f, "a=0x1 : SELF;", std::nullopt);
  ASSERT_EQ(self.warnings.size(), 1u);  // the built-in default's SELF is not named again
  EXPECT_EQ(self.warnings[0], "p.conf:1: SELF names no port (no SM port GUID given)");
}

TEST(PartitionPlanner, Indx0PutsItsPKeyFirst) {
  const Fabric f = generatedFabric(FatTreeSpec{.levels = 2, .radix = 8});
  const auto p =
      plan(f, "Default=0x7fff : ALL=full;\nfirst=0x7000, indx0 : ALL=full;", std::nullopt);
  EXPECT_EQ(tableOf(p, caPorts(f)[0]), (std::vector<std::uint16_t>{0xf000, 0xffff}));
  EXPECT_FALSE(planPartitions(f, config("a=0x1, indx0 : ;\nb=0x2, indx0 : ;"), std::nullopt));
}

TEST(PartitionPlanner, APortBeyondItsPartitionCapIsAnError) {
  Fabric f = generatedFabric(FatTreeSpec{.levels = 2, .radix = 8});
  const PortRef small = caPorts(f)[3];
  f.node(small.node).partitionCap = 2;
  auto p = planPartitions(f, config("a=0x1 : ALL;\nb=0x2 : ALL;"), std::nullopt);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().message,
            fmt::format("partitions do not fit the PKey tables:\n  port {} needs 3 PKeys but its "
                        "PartitionCap is 2 ('Default' at (built-in default partition), 'a' at "
                        "p.conf:1, 'b' at p.conf:2)",
                        f.describe(small)));
}

// A file of many partitions for ALL names the first eight rules of each
// port and counts the rest: hundreds of them, once per port shown, would
// bury the error.
TEST(PartitionPlanner, APortBeyondItsPartitionCapNamesAtMostEightRules) {
  Fabric f = generatedFabric(FatTreeSpec{.levels = 2, .radix = 8});
  const PortRef small = caPorts(f)[3];
  f.node(small.node).partitionCap = 2;
  std::string text;
  for (int i = 1; i <= 12; ++i) text += fmt::format("p{}=0x{:x} : ALL;\n", i, i);
  auto p = planPartitions(f, config(text), std::nullopt);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().message,
            fmt::format("partitions do not fit the PKey tables:\n  port {} needs 13 PKeys but its "
                        "PartitionCap is 2 ('Default' at (built-in default partition), 'p1' at "
                        "p.conf:1, 'p2' at p.conf:2, 'p3' at p.conf:3, 'p4' at p.conf:4, 'p5' at "
                        "p.conf:5, 'p6' at p.conf:6, 'p7' at p.conf:7 and 5 more partitions)",
                        f.describe(small)));
}

// Properties over shapes and sizes.
class PlannerOnFabrics : public ::testing::TestWithParam<TopologySpec> {};

TEST_P(PlannerOnFabrics, TablesAreCompleteOrderedEnforcedAndRepeatable) {
  const Fabric f = generatedFabric(GetParam());
  const auto cas = caPorts(f);
  std::string text =
      "Default=0x7fff : ALL=limited, ALL_SWITCHES=full;\nstorage=0x20 : ALL_CAS=limited";
  for (std::size_t i = 0; i < cas.size(); i += 3)
    text += fmt::format(", {}=full", f.port(cas[i]).guid);
  text += ";\n";
  for (std::size_t t = 0; t < 4; ++t) {
    text += fmt::format("tenant{}=0x{:x} :", t, 0x100 + t);
    for (std::size_t i = t; i < cas.size(); i += 4) {
      text += fmt::format("{} {}=full", i == t ? "" : ",", f.port(cas[i]).guid);
    }
    text += ";\n";
  }
  const Guid sm = f.port(cas.back()).guid;
  const auto p = plan(f, text, sm);
  EXPECT_TRUE(p.warnings.empty());
  EXPECT_EQ(p.tables.ports.size(), 2 * cas.size() + f.switches().size());
  for (std::size_t i = 0; i < cas.size(); ++i) {
    const auto t = tableOf(p, cas[i]);
    ASSERT_EQ(t.size(), 3u);
    EXPECT_EQ(t[0], cas[i] == cas.back() ? 0xffff : 0x7fff);
    EXPECT_EQ(t[1], 0x20 | (i % 3 == 0 ? 0x8000 : 0));
    EXPECT_EQ(t[2], 0x8000 | (0x100 + i % 4));
    const PortPKeys* edge = findPort(p.tables, *f.port(cas[i]).remote);
    ASSERT_NE(edge, nullptr);
    EXPECT_TRUE(edge->enforce);
    EXPECT_EQ(edge->pkeys, t);
  }
  // The same input gives the same tables, entry for entry.
  const auto again = plan(f, text, sm);
  ASSERT_EQ(again.tables.ports.size(), p.tables.ports.size());
  for (std::size_t i = 0; i < p.tables.ports.size(); ++i) {
    EXPECT_EQ(again.tables.ports[i].port, p.tables.ports[i].port);
    EXPECT_EQ(again.tables.ports[i].pkeys, p.tables.ports[i].pkeys);
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, PlannerOnFabrics,
                         ::testing::Values(TopologySpec{FatTreeSpec{.levels = 2, .radix = 8}},
                                           TopologySpec{FatTreeSpec{.levels = 3, .radix = 8}},
                                           TopologySpec{FatTreeSpec{.levels = 2, .radix = 16}},
                                           TopologySpec{DragonflySpec{.a = 4, .p = 2, .h = 2}}));

}  // namespace
}  // namespace ibsm::partition
