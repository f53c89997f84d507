// planQosTables(): every port gets its type's tables as OpenSM programs
// them (CA and router ports, switch external ports, an enhanced switch port
// 0), VLs masked by the port's operational VLs, the policy's qos-setup
// scopes on top (with a routing engine's VL layers: QosLayersTest.cpp).
#include <gtest/gtest.h>
#include <ibsm/QosOptions.h>

#include <algorithm>

#include "tests/qos/LeafSpine.h"

namespace ibsm::qos {
namespace {

constexpr std::array<std::uint8_t, 16> kIdentity{0, 1, 2,  3,  4,  5,  6,  7,
                                                 8, 9, 10, 11, 12, 13, 14, 15};

using Fixture = testing::LeafSpine;

const QosVlArb* vlArbOf(const QosTables& t, PortRef port) {
  auto it = std::ranges::find(t.vlArb, port, &QosVlArb::port);
  return it == t.vlArb.end() ? nullptr : &*it;
}

const QosSl2Vl* sl2vlOf(const QosTables& t, PortRef port, std::uint8_t in) {
  auto it = std::ranges::find_if(
      t.sl2vl, [&](const QosSl2Vl& e) { return e.port == port && e.inPort == in; });
  return it == t.sl2vl.end() ? nullptr : &*it;
}

std::vector<VlWeight> table(std::string_view text) {
  auto t = *parseVlArbOption(text);
  t.resize(kVlArbEntries);
  return t;
}

QosOptions enabled() {
  QosOptions o;
  o.enabled = true;
  return o;
}

TEST(QosTables, WithoutOptionsEveryPortGetsOpenSmsDefaults) {
  Fixture f;
  const auto t = *planQosTables(f.fabric, enabled(), nullptr, {});
  const auto* ca = vlArbOf(t, {f.host0, 1});
  ASSERT_NE(ca, nullptr);
  EXPECT_EQ(ca->high, table("0:4,1:0,2:0,3:0,4:0,5:0,6:0,7:0,8:0,9:0,10:0,11:0,12:0,13:0,14:0"));
  EXPECT_EQ(ca->low, table("0:0,1:4,2:4,3:4,4:4,5:4,6:4,7:4,8:4,9:4,10:4,11:4,12:4,13:4,14:4"));
  EXPECT_EQ(ca->highLimit, 0);
  EXPECT_EQ(sl2vlOf(t, {f.host0, 1}, 0)->vl,
            (std::array<std::uint8_t, 16>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 7}));
}

TEST(QosTables, EachPortTypeTakesItsOwnSetElseTheGeneralOne) {
  Fixture f;
  QosOptions o = enabled();
  o.all.highLimit = 3;
  o.all.sl2vl = kIdentity;
  o.ca.vlarbHigh = *parseVlArbOption("1:8");
  o.swe.highLimit = 9;
  const auto t = *planQosTables(f.fabric, o, nullptr, {});
  EXPECT_EQ(vlArbOf(t, {f.host0, 1})->high, table("1:8"));
  EXPECT_EQ(vlArbOf(t, {f.host0, 1})->highLimit, 3);
  EXPECT_EQ(vlArbOf(t, {f.leaf, 3})->highLimit, 9);
  EXPECT_EQ(vlArbOf(t, {f.leaf, 3})->high[0], (VlWeight{0, 4}));  // swe: OpenSM's default
  EXPECT_EQ(sl2vlOf(t, {f.leaf, 2}, 1)->vl[15], 15);              // the general sl2vl
}

TEST(QosTables, ASwitchGetsAnSl2VlPerOutputAndInputPortButNoPort0TablesUnlessEnhanced) {
  Fixture f;
  const auto t = *planQosTables(f.fabric, enabled(), nullptr, {});
  // leaf: outputs 1-3 times inputs 0-3; spine: output 1 (port 2 has no link) times inputs 0-2.
  EXPECT_EQ(std::ranges::count(t.sl2vl, f.leaf, [](const QosSl2Vl& e) { return e.port.node; }), 12);
  EXPECT_EQ(std::ranges::count(t.sl2vl, f.spine, [](const QosSl2Vl& e) { return e.port.node; }), 3);
  EXPECT_EQ(vlArbOf(t, {f.leaf, 0}), nullptr);
  EXPECT_EQ(vlArbOf(t, {f.spine, 2}), nullptr);
  EXPECT_EQ(sl2vlOf(t, {f.leaf, 0}, 0), nullptr);
  EXPECT_TRUE(std::ranges::is_sorted(
      t.sl2vl, {}, [](const QosSl2Vl& e) { return std::pair(e.port, e.inPort); }));
}

TEST(QosTables, AnEnhancedPort0TakesTheSw0SetWhileItsOtherInputsKeepTheSweTable) {
  Fixture f(true);
  QosOptions o = enabled();
  o.sw0.sl2vl = kIdentity;
  o.sw0.highLimit = 7;
  o.swe.sl2vl = std::array<std::uint8_t, 16>{};
  const auto t = *planQosTables(f.fabric, o, nullptr, {});
  EXPECT_EQ(vlArbOf(t, {f.leaf, 0})->highLimit, 7);
  EXPECT_EQ(sl2vlOf(t, {f.leaf, 0}, 0)->vl, kIdentity);
  EXPECT_EQ(sl2vlOf(t, {f.leaf, 0}, 1)->vl, (std::array<std::uint8_t, 16>{}));
}

TEST(QosTables, VlsAboveTheLinksOperationalVlsAreMaskedAsOpenSmDoesAndMaxVlsChangesNothing) {
  Fixture f;
  f.fabric.port({f.host1, 1}).vlCap = 3;  // VL0-3: the link leaf[2]-host1 runs 4 VLs
  QosOptions o = enabled();
  o.all.sl2vl = kIdentity;
  o.all.vlarbLow = *parseVlArbOption("5:1,14:2");
  const auto wide = *planQosTables(f.fabric, o, nullptr, {});
  o.all.maxVls = 2;
  const auto capped = *planQosTables(f.fabric, o, nullptr, {});
  EXPECT_EQ(wide.vlArb, capped.vlArb);
  EXPECT_EQ(wide.sl2vl, capped.sl2vl);
  EXPECT_EQ(sl2vlOf(wide, {f.host1, 1}, 0)->vl,
            (std::array<std::uint8_t, 16>{0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 15}));
  EXPECT_EQ(sl2vlOf(wide, {f.leaf, 2}, 1)->vl[5], 1);  // the switch's end of the same link
  EXPECT_EQ(sl2vlOf(wide, {f.leaf, 1}, 2)->vl, kIdentity);
  EXPECT_EQ(vlArbOf(wide, {f.host1, 1})->low[0], (VlWeight{1, 1}));
  EXPECT_EQ(vlArbOf(wide, {f.host1, 1})->low[1], (VlWeight{2, 2}));
  EXPECT_EQ(vlArbOf(wide, {f.host0, 1})->low[1], (VlWeight{14, 2}));
}

ResolvedQos policyWith(QosSetup setup, const Fixture& f) {
  auto p = std::make_shared<QosPolicy>();
  p->setup = std::move(setup);
  ResolvedQos r;
  r.policy = p;
  r.members["switches"] = {f.fabric.node(f.leaf).guid, f.fabric.node(f.spine).guid};
  r.members["storage"] = {Guid{0x21}};
  return r;
}

TEST(QosTables, QosSetupScopesOverrideTheOptionsOnTheirPortsIncludingSwitchToSwitchLinks) {
  Fixture f;
  QosSetup setup;
  setup.vlArb.push_back({.groups = {"switches"},
                         .across = {"switches"},
                         .high = std::vector<VlWeight>{{2, 9}},
                         .highLimit = 5});
  setup.sl2vl.push_back(
      {.groups = {"switches"}, .from = {{1, 2}}, .to = {{3, 3}}, .sl2vl = kIdentity});
  setup.sl2vl.push_back({.acrossTo = {"storage"}, .sl2vl = std::array<std::uint8_t, 16>{}});
  const auto qos = policyWith(setup, f);
  const auto t = *planQosTables(f.fabric, enabled(), &qos, {});
  EXPECT_EQ(vlArbOf(t, {f.leaf, 3})->high, table("2:9"));
  EXPECT_EQ(vlArbOf(t, {f.spine, 1})->highLimit, 5);
  EXPECT_EQ(vlArbOf(t, {f.leaf, 1})->highLimit, 0);  // faces a CA: the options'
  EXPECT_EQ(sl2vlOf(t, {f.leaf, 3}, 1)->vl, kIdentity);
  EXPECT_EQ(sl2vlOf(t, {f.leaf, 3}, 0)->vl[15], 7);  // input 0 is not in `from`
  EXPECT_EQ(sl2vlOf(t, {f.leaf, 2}, 1)->vl, (std::array<std::uint8_t, 16>{}));  // leads to storage
  EXPECT_EQ(sl2vlOf(t, {f.leaf, 1}, 2)->vl[1], 1);
}

TEST(QosOptionValues, ReadOpenSmsSyntaxAndSayWhatWasExpected) {
  EXPECT_EQ(*parseVlArbOption("0:4, 1:0x10"), (std::vector<VlWeight>{{0, 4}, {1, 16}}));
  EXPECT_EQ(*parseSl2VlOption(formatSl2Vl(kIdentity)), kIdentity);
  EXPECT_EQ(formatVlArb(*parseVlArbOption("3:1,2:255")), "3:1,2:255");
  const auto badVl = parseVlArbOption("0:4,15:1");
  ASSERT_FALSE(badVl);
  EXPECT_NE(badVl.error().message.find("VL 0-14"), std::string::npos);
  EXPECT_NE(badVl.error().message.find("'15:1'"), std::string::npos);
  EXPECT_FALSE(parseVlArbOption("0:256"));
  EXPECT_FALSE(parseVlArbOption("0"));
  std::string tooMany = "1:1";
  for (int i = 1; i < 65; ++i) tooMany.append(",1:1");
  EXPECT_FALSE(parseVlArbOption(tooMany));
  const auto short15 = parseSl2VlOption("0,1,2,3,4,5,6,7,8,9,10,11,12,13,14");
  ASSERT_FALSE(short15);
  EXPECT_NE(short15.error().message.find("found 15 values"), std::string::npos);
  EXPECT_FALSE(parseSl2VlOption("0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,16"));
}

}  // namespace
}  // namespace ibsm::qos
