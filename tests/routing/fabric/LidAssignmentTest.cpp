#include <gtest/gtest.h>
#include <ibsm/Lids.h>

namespace ibsm {
namespace {

// One switch with `hosts` single-port CAs; GUIDs as ibsim gives them.
Fabric star(int hosts) {
  Fabric f;
  const NodeId sw = *f.addNode(Node::makeSwitch(Guid{0x200000}, 36, "sw"));
  for (int i = 0; i < hosts; ++i) {
    const auto g = static_cast<std::uint64_t>(0x100000 + 2 * i);
    const NodeId h = *f.addNode(Node::makeCa(Guid{g}, {Guid{g + 1}}, "h"));
    EXPECT_TRUE(f.connect({sw, static_cast<std::uint8_t>(i + 1)}, {h, 1}));
  }
  return f;
}

Lid lidOf(const LidPlan& plan, Guid port) {
  for (const auto& a : plan.assignments)
    if (a.portGuid == port) return a.base;
  return Lid{};
}

TEST(LidAssignment, GivesSwitchesTheLowestLidsThenHostsInGuidOrder) {
  const auto plan = planLids(star(3), {}, 0);
  ASSERT_TRUE(plan);
  EXPECT_EQ(lidOf(*plan, Guid{0x200000}), Lid{1});
  EXPECT_EQ(lidOf(*plan, Guid{0x100001}), Lid{2});
  EXPECT_EQ(lidOf(*plan, Guid{0x100005}), Lid{4});
  EXPECT_EQ(plan->maxLid, Lid{4});
}

TEST(LidAssignment, DoesNotDependOnTheOrderNodesWereFound) {
  Fabric reversed;
  const Fabric base = star(3);
  for (auto it = base.nodes().rbegin(); it != base.nodes().rend(); ++it) {
    Node n = *it;
    for (auto& p : n.ports) p.remote.reset();
    ASSERT_TRUE(reversed.addNode(n));
  }
  for (std::uint8_t i = 0; i < 3; ++i)
    ASSERT_TRUE(reversed.connect({3, std::uint8_t(i + 1)}, {NodeId(2u - i), 1}));
  const auto a = planLids(base, {}, 0);
  const auto b = planLids(reversed, {}, 0);
  for (std::uint64_t g : {0x200000u, 0x100001u, 0x100003u, 0x100005u})
    EXPECT_EQ(lidOf(*a, Guid{g}), lidOf(*b, Guid{g})) << std::hex << g;
}

TEST(LidAssignment, KeepsLidsPortsAlreadyHold) {
  Fabric f = star(2);
  f.port({2, 1}).lid = Lid{77};
  const auto plan = planLids(f, {}, 0);
  EXPECT_EQ(lidOf(*plan, Guid{0x100003}), Lid{77});
  EXPECT_EQ(plan->assignments[1].source, LidAssignment::Source::Kept);
}

TEST(LidAssignment, ResolvesADuplicateHeldLidInFavourOfTheLowerGuid) {
  Fabric f = star(2);
  f.port({1, 1}).lid = Lid{9};
  f.port({2, 1}).lid = Lid{9};
  const auto plan = planLids(f, {}, 0);
  EXPECT_EQ(lidOf(*plan, Guid{0x100001}), Lid{9});
  EXPECT_NE(lidOf(*plan, Guid{0x100003}), Lid{9});
  EXPECT_EQ(plan->notes.size(), 1u);
}

TEST(LidAssignment, HonoursGuid2LidAndReservesLidsOfAbsentPorts) {
  const Guid2Lid state{{Guid{0x100003}, {Lid{40}, Lid{40}}},
                       {Guid{0xabcdef}, {Lid{1}, Lid{1}}}};  // a host that is away
  const auto plan = planLids(star(2), state, 0);
  EXPECT_EQ(lidOf(*plan, Guid{0x100003}), Lid{40});
  EXPECT_EQ(lidOf(*plan, Guid{0x200000}), Lid{2});  // LID 1 stays reserved
}

TEST(LidAssignment, GivesCaPortsAlignedRangesUnderLmcAndSwitchesOneLid) {
  const auto plan = planLids(star(2), {}, 2);
  EXPECT_EQ(lidOf(*plan, Guid{0x200000}), Lid{1});
  EXPECT_EQ(lidOf(*plan, Guid{0x100001}), Lid{4});
  EXPECT_EQ(lidOf(*plan, Guid{0x100003}), Lid{8});
  EXPECT_EQ(plan->maxLid, Lid{11});
}

TEST(LidIndex, MapsEveryLidOfARangeToItsPort) {
  Fabric f = star(1);
  applyLids(f, *planLids(f, {}, 1));
  const LidIndex index(f);
  EXPECT_EQ(index.owner(Lid{2}), (PortRef{1, 1}));
  EXPECT_EQ(index.owner(Lid{3}), (PortRef{1, 1}));
  EXPECT_FALSE(index.owner(Lid{4}));
}

TEST(Guid2Lid, RoundTripsOpenSmFormat) {
  const std::string text =
      "# saved\n0x0000000000100001 0x0002 0x0003\n0x0000000000200000 0x0001 0x0001\n";
  const auto parsed = parseGuid2Lid(text, "g2l");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->at(Guid{0x100001}).last, Lid{3});
  EXPECT_EQ(formatGuid2Lid(*parsed), text.substr(text.find('\n') + 1));
}

TEST(Guid2Lid, NamesFileAndLineOfABadEntry) {
  const auto parsed = parseGuid2Lid("0x1 0x2 0x2\n0x5 0x9\n", "state/guid2lid");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().message.rfind("state/guid2lid:2:", 0), 0u) << parsed.error().message;
}

}  // namespace
}  // namespace ibsm
