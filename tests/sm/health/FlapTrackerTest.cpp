// When a link counts as flapping, and how downs from the sweeps and from
// LinkDownedCounter add up without counting one down twice.
#include <gtest/gtest.h>

#include "sm/health/FlapTracker.h"

namespace ibsm::sm::health {
namespace {

using namespace std::chrono_literals;

const LinkKey kLink = linkKey({Guid{0x200}, 3}, {Guid{0x100}, 1});
const FlapRule kRule{.count = 2, .window = 60s};
const Clock::time_point t0{};

TEST(LinkKey, LowerEndFirstWhicheverWayItIsNamed) {
  EXPECT_EQ(kLink.a, (PortKey{Guid{0x100}, 1}));
  EXPECT_EQ(linkKey({Guid{0x100}, 1}, {Guid{0x200}, 3}), kLink);
}

TEST(Flapping, MoreDownsThanTheCountWithinTheWindow) {
  FlapTracker t;
  t.sweepDown(kLink, t0);
  t.sweepDown(kLink, t0 + 10s);
  EXPECT_TRUE(t.flapping(t0 + 10s, kRule).empty()) << "2 downs is not more than 2";
  t.sweepDown(kLink, t0 + 20s);
  const auto f = t.flapping(t0 + 20s, kRule);
  ASSERT_EQ(f.size(), 1U);
  EXPECT_EQ(f[0].link, kLink);
  EXPECT_EQ(f[0].downs, 3U);
}

TEST(Flapping, DownsOlderThanTheWindowNoLongerCount) {
  FlapTracker t;
  for (auto at : {0s, 10s, 20s}) t.sweepDown(kLink, t0 + at);
  EXPECT_EQ(t.flapping(t0 + 60s, kRule).size(), 1U);
  EXPECT_TRUE(t.flapping(t0 + 61s, kRule).empty());
}

TEST(Flapping, CounterDeltaAddsOnlyDownsTheSweepsDidNotSee) {
  FlapTracker t;
  t.sweepDown(kLink, t0);
  t.sweepDown(kLink, t0 + 1s);
  t.counterDowns(kLink, 2, t0 + 5s);  // the same two downs
  EXPECT_TRUE(t.flapping(t0 + 5s, kRule).empty());
  t.counterDowns(kLink, 1, t0 + 10s);  // a bounce no sweep saw
  EXPECT_EQ(t.flapping(t0 + 10s, kRule).size(), 1U);
}

TEST(Links, LostAreThoseBeforeNotAfter) {
  Fabric f;
  const auto sw = *f.addNode(Node::makeSwitch(Guid{0x200}, 4, "s1"));
  const auto h1 = *f.addNode(Node::makeCa(Guid{0x100}, {Guid{0x101}}, "h1"));
  const auto h2 = *f.addNode(Node::makeCa(Guid{0x110}, {Guid{0x111}}, "h2"));
  ASSERT_TRUE(f.connect({sw, 3}, {h1, 1}));
  ASSERT_TRUE(f.connect({sw, 4}, {h2, 1}));
  const auto before = linksOf(f);
  ASSERT_EQ(before.size(), 2U);
  f.disconnect({h1, 1});
  EXPECT_EQ(linksLost(before, linksOf(f)), std::vector<LinkKey>{kLink});
}

}  // namespace
}  // namespace ibsm::sm::health
