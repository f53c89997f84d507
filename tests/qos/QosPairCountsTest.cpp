// countPlainPathLevels(): the dry run's figure -- every ordered pair of CA
// ports, a port never with itself, counted under the level its plain
// PathRecord gets (nothing asked but the two ports, as the SA matches
// it), or as pathless when the two share no PKey.
#include <gtest/gtest.h>
#include <ibsm/QosReport.h>

namespace ibsm::qos {
namespace {

struct Site {
  Fabric fabric;
  PKeyTables pkeys;
};

// One switch, three hosts; host-c the storage target.
Site threeHosts(std::uint16_t storagePKey) {
  Site s;
  auto sw = s.fabric.addNode(Node::makeSwitch(Guid{0x100}, 4, "leaf0"));
  for (std::uint8_t i = 0; i < 3; ++i) {
    const auto guid = 0x200u + 0x10u * i;
    auto ca =
        s.fabric.addNode(Node::makeCa(Guid{guid}, {Guid{guid + 1}}, fmt::format("host-{}", i)));
    EXPECT_TRUE(s.fabric.connect({*sw, static_cast<std::uint8_t>(i + 1)}, {*ca, 1}));
    s.pkeys.ports.push_back({PortRef{*ca, 1}, i == 2 ? std::vector<std::uint16_t>{storagePKey}
                                                     : std::vector<std::uint16_t>{0xFFFF, 0x8001}});
  }
  sortByPort(s.pkeys);
  return s;
}

ResolvedQos storagePolicy(const Fabric& fabric, std::vector<QosMatchRule> rules) {
  auto p = std::make_shared<QosPolicy>();
  p->file = "site.conf";
  p->groups = {{.name = "storage", .portGuids = {{0x221, 0x221}}}};
  p->levels = {
      {.name = "DEFAULT", .sl = 0}, {.name = "storage", .sl = 1}, {.name = "idle", .sl = 2}};
  p->rules = std::move(rules);
  return resolveQos(p, fabric, {}, Guid{});
}

TEST(QosPairCounts, EveryOrderedPairOfCaPortsUnderItsLevel) {
  const auto site = threeHosts(0xFFFF);
  const auto qos = storagePolicy(site.fabric, {{.destinations = {"storage"}, .level = "storage"}});
  const auto r = countPlainPathLevels(qos, site.fabric, &site.pkeys);
  EXPECT_EQ(r.policyFile, "site.conf");
  EXPECT_EQ(r.pairs, 6u);
  ASSERT_EQ(r.levels.size(), 3u);
  EXPECT_EQ(r.levels[0].level, "DEFAULT");
  EXPECT_EQ(r.levels[0].pairs, 4u);
  EXPECT_EQ(r.levels[1].pairs, 2u);  // host-0 and host-1 to host-c
  EXPECT_EQ(r.levels[1].sl, 1);
  EXPECT_EQ(r.levels[2].pairs, 0u);  // every level listed, used or not
  EXPECT_EQ(r.noSharedPKey, 0u);
}

TEST(QosPairCounts, ARuleThatAsksForAPKeyDoesNotHoldForAPlainPathRecord) {
  // As the SA (and OpenSM) match a query that names no PKey: the pairs
  // share 0x0001, but the PKey rule is not tried on what was not asked.
  const auto site = threeHosts(0x8001);
  const auto qos = storagePolicy(site.fabric, {{.pkeys = {{0x0001, 0x0001}}, .level = "idle"}});
  const auto r = countPlainPathLevels(qos, site.fabric, &site.pkeys);
  EXPECT_EQ(r.pairs, 6u);
  EXPECT_EQ(r.levels[2].pairs, 0u);
  EXPECT_EQ(r.levels[0].pairs, 6u);
}

TEST(QosPairCounts, PairsWithNoPKeyInCommonGetNoPath) {
  const auto site = threeHosts(0x8002);
  const auto qos = storagePolicy(site.fabric, {});
  const auto r = countPlainPathLevels(qos, site.fabric, &site.pkeys);
  EXPECT_EQ(r.pairs, 6u);
  EXPECT_EQ(r.noSharedPKey, 4u);
  EXPECT_EQ(r.levels[0].pairs, 2u);
}

TEST(QosPairCounts, UnmanagedTablesHoldTheDefaultPKey) {
  const auto site = threeHosts(0x8002);
  const auto qos = storagePolicy(site.fabric, {{.sources = {"storage"}, .level = "idle"}});
  const auto r = countPlainPathLevels(qos, site.fabric, nullptr);
  EXPECT_EQ(r.noSharedPKey, 0u);
  EXPECT_EQ(r.levels[2].pairs, 2u);  // host-c to the two others
  EXPECT_EQ(r.levels[0].pairs, 4u);
}

}  // namespace
}  // namespace ibsm::qos
