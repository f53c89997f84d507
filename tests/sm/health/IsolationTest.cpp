// What routing sees of a fabric with isolated links.
#include <gtest/gtest.h>

#include "sm/health/Isolation.h"

namespace ibsm::sm::health {
namespace {

// Two switches joined by two cables (s1[1]-s2[1], s1[2]-s2[2]), a host on each.
struct Pair {
  Fabric f;
  NodeId s1{}, s2{}, h1{}, h2{};
  Pair() {
    s1 = *f.addNode(Node::makeSwitch(Guid{0x10}, 4, "s1"));
    s2 = *f.addNode(Node::makeSwitch(Guid{0x20}, 4, "s2"));
    h1 = *f.addNode(Node::makeCa(Guid{0x100}, {Guid{0x101}}, "h1"));
    h2 = *f.addNode(Node::makeCa(Guid{0x200}, {Guid{0x201}}, "h2"));
    EXPECT_TRUE(f.connect({s1, 1}, {s2, 1}));
    EXPECT_TRUE(f.connect({s1, 2}, {s2, 2}));
    EXPECT_TRUE(f.connect({s1, 3}, {h1, 1}));
    EXPECT_TRUE(f.connect({s2, 3}, {h2, 1}));
  }
  LinkKey trunk(std::uint8_t p) const { return linkKey({Guid{0x10}, p}, {Guid{0x20}, p}); }
};

TEST(Isolate, ACableWithAnotherWayAroundIsRemoved) {
  Pair p;
  const auto cut = isolateLinks(p.f, {p.trunk(1)});
  EXPECT_EQ(cut.isolated, std::vector<LinkKey>{p.trunk(1)});
  EXPECT_TRUE(cut.refused.empty());
  EXPECT_FALSE(cut.fabric.port({p.s1, 1}).connected());
  EXPECT_FALSE(cut.fabric.port({p.s2, 1}).connected());
  EXPECT_TRUE(cut.fabric.port({p.s1, 2}).connected());
}

TEST(Isolate, TheOnlyWayToANodeStaysAndSaysWhy) {
  Pair p;
  const LinkKey host = linkKey({Guid{0x10}, 3}, {Guid{0x100}, 1});
  const auto cut = isolateLinks(p.f, {host});
  EXPECT_TRUE(cut.isolated.empty());
  ASSERT_EQ(cut.refused.size(), 1U);
  EXPECT_EQ(cut.refused[0].link, host);
  EXPECT_EQ(cut.refused[0].why, "the only way to reach \"h1\" (0x0000000000000100)");
  EXPECT_TRUE(cut.fabric.port({p.s1, 3}).connected());
}

TEST(Isolate, TheLastOfParallelCablesStays) {
  Pair p;
  const auto cut = isolateLinks(p.f, {p.trunk(2), p.trunk(1)});
  EXPECT_EQ(cut.isolated, std::vector<LinkKey>{p.trunk(1)});
  ASSERT_EQ(cut.refused.size(), 1U);
  EXPECT_EQ(cut.refused[0].link, p.trunk(2));
  EXPECT_TRUE(cut.fabric.port({p.s1, 2}).connected());
}

TEST(Isolate, LinksNotInTheFabricAreIgnored) {
  Pair p;
  const auto cut = isolateLinks(p.f, {linkKey({Guid{0x10}, 4}, {Guid{0x20}, 4})});
  EXPECT_TRUE(cut.isolated.empty());
  EXPECT_TRUE(cut.refused.empty());
}

TEST(LinkEnd, NamedByDescriptionAndPortOrByGuidAndPort) {
  Pair p;
  EXPECT_EQ(parseLinkEnd(p.f, "\"s1\"[2]"), (PortRef{p.s1, 2}));
  EXPECT_EQ(parseLinkEnd(p.f, "0x20/1"), (PortRef{p.s2, 1}));
  EXPECT_EQ(parseLinkEnd(p.f, "0x101/1"), (PortRef{p.h1, 1})) << "a port GUID";
  EXPECT_EQ(parseLinkEnd(p.f, "\"s9\"[1]").error().message, "no node \"s9\" in the fabric");
  EXPECT_EQ(parseLinkEnd(p.f, "\"s1\"[9]").error().message, "\"s1\" has no port 9");
  EXPECT_FALSE(parseLinkEnd(p.f, "s1[1]"));
}

}  // namespace
}  // namespace ibsm::sm::health
