// planQosTables() with a routing engine's VL layers (the rule in
// QosOptions.h): a QoS class is the set of SLs the QoS SL2VL tables map to
// one VL; class c of L layers gets VLs c*L .. c*L+L-1, an SL goes to its
// class's block plus the engine's layer of the port pair; VLArbitration
// weights follow the class onto its block; a plan that does not fit a
// port's VLCap or qos max_vls is refused, saying what it needs.
#include <gtest/gtest.h>
#include <ibsm/QosOptions.h>

#include <algorithm>
#include <map>
#include <set>

#include "tests/qos/LeafSpine.h"

namespace ibsm::qos {
namespace {

using Vls = std::array<std::uint8_t, 16>;

Vls filled(std::uint8_t vl) {
  Vls v{};
  v.fill(vl);
  return v;
}

// The leaf-spine fabric (LeafSpine.h) with the engine tables of two layers.
struct Fixture : testing::LeafSpine {
  // Two layers as dragonfly gives them: traffic coming down from the spine
  // climbs to layer 1, the rest stays on 0.
  std::vector<Sl2VlEntry> engine() const {
    std::vector<Sl2VlEntry> out;
    for (std::uint8_t in = 1; in <= 3; ++in)
      for (std::uint8_t o = 1; o <= 3; ++o)
        if (in != o) out.push_back({leaf, in, o, filled(in == 3 ? 1 : 0)});
    return out;
  }
};

// SLs 0-7 one class (QoS VL 0), SLs 8-14 another (QoS VL 1), SL 15 dropped.
QosOptions twoClasses() {
  QosOptions o;
  o.enabled = true;
  o.all.sl2vl = *parseSl2VlOption("0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,15");
  return o;
}

const QosSl2Vl* find(const std::vector<QosSl2Vl>& tables, PortRef port, std::uint8_t in) {
  auto it = std::ranges::find_if(
      tables, [&](const QosSl2Vl& e) { return e.port == port && e.inPort == in; });
  return it == tables.end() ? nullptr : &*it;
}

TEST(QosLayers, EachClassGetsABlockOfLayersAndEachSlItsClasssBlockPlusTheTurnsLayer) {
  Fixture f;
  const auto t = planQosTables(f.fabric, twoClasses(), nullptr, f.engine());
  ASSERT_TRUE(t) << t.error().message;
  ASSERT_TRUE(t->layers);
  EXPECT_EQ(t->layers->layers, 2);
  EXPECT_EQ(t->layers->vlsNeeded, 4);
  EXPECT_EQ(t->layers->classes,
            (std::vector<QosVlClass>{{.qosVl = 0, .sls = 0x00ff, .firstVl = 0},
                                     {.qosVl = 1, .sls = 0x7f00, .firstVl = 2}}));
  const Vls down{1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 3, 3, 3, 3, 3, 15};  // spine -> host0: layer 1
  const Vls up{0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 2, 2, 2, 2, 2, 15};    // host0 -> spine: layer 0
  ASSERT_NE(find(t->layered, {f.leaf, 1}, 3), nullptr);
  EXPECT_EQ(find(t->layered, {f.leaf, 1}, 3)->vl, down);
  EXPECT_EQ(find(t->layered, {f.leaf, 3}, 1)->vl, up);
  // The engine's pairs are in `layered` only; the others, layer 0, in sl2vl.
  EXPECT_EQ(find(t->sl2vl, {f.leaf, 1}, 3), nullptr);
  EXPECT_EQ(t->layered.size(), f.engine().size());
  EXPECT_EQ(find(t->sl2vl, {f.host0, 1}, 0)->vl, up);
  EXPECT_EQ(find(t->sl2vl, {f.leaf, 3}, 0)->vl, up);
  EXPECT_EQ(find(t->sl2vl, {f.spine, 1}, 0)->vl, up);
}

TEST(QosLayers, NoTwoClassesShareAVlOnAnyPort) {
  Fixture f;
  QosOptions o = twoClasses();
  o.all.sl2vl = *parseSl2VlOption("0,0,0,0,5,5,5,5,9,9,9,9,9,9,9,9");  // three classes
  const auto t = planQosTables(f.fabric, o, nullptr, f.engine());
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->layers->vlsNeeded, 6);
  std::map<std::uint8_t, std::set<std::uint8_t>> vlsOfClass;  // QoS VL -> VLs used
  std::size_t tables = 0;
  for (const auto* list : {&t->sl2vl, &t->layered})
    for (const QosSl2Vl& e : *list) {
      ++tables;
      for (std::size_t sl = 0; sl < 16; ++sl) vlsOfClass[o.all.sl2vl->at(sl)].insert(e.vl[sl]);
    }
  EXPECT_GT(tables, f.engine().size());
  ASSERT_EQ(vlsOfClass.size(), 3U);
  std::set<std::uint8_t> all;
  std::size_t sum = 0;
  for (const auto& [cls, vls] : vlsOfClass) {
    sum += vls.size();
    all.insert(vls.begin(), vls.end());
  }
  EXPECT_EQ(all.size(), sum);  // disjoint
  EXPECT_EQ(all, (std::set<std::uint8_t>{0, 1, 2, 3, 4, 5}));
}

TEST(QosLayers, AClasssVlArbitrationWeightIsCarriedByItsBlock) {
  Fixture f;
  QosOptions o = twoClasses();
  o.all.vlarbLow = *parseVlArbOption("0:4,1:16,2:9");  // VL 2 has no SL: dropped
  const auto t = planQosTables(f.fabric, o, nullptr, f.engine());
  ASSERT_TRUE(t) << t.error().message;
  for (const QosVlArb& arb : t->vlArb) {
    ASSERT_EQ(arb.low.size(), kVlArbEntries);
    EXPECT_EQ(std::vector<VlWeight>(arb.low.begin(), arb.low.begin() + 5),
              (std::vector<VlWeight>{{0, 4}, {1, 4}, {2, 16}, {3, 16}, {0, 0}}));
    // OpenSM's default high table, 0:4 and weight 0 for the rest.
    EXPECT_EQ(std::vector<VlWeight>(arb.high.begin(), arb.high.begin() + 3),
              (std::vector<VlWeight>{{0, 4}, {1, 4}, {0, 0}}));
  }
}

TEST(QosLayers, APolicyTooBigForAPortsVlCapIsRefusedSayingWhatItNeeds) {
  Fixture f;
  f.fabric.node(f.host1).ports[1].vlCap = 3;  // VL0-3: the link runs 4
  QosOptions o = twoClasses();
  EXPECT_TRUE(planQosTables(f.fabric, o, nullptr, f.engine()));  // 2 x 2 = 4 fits
  o.all.sl2vl = *parseSl2VlOption("0,0,0,0,1,1,1,1,2,2,2,2,2,2,2,2");
  const auto t = planQosTables(f.fabric, o, nullptr, f.engine());
  ASSERT_FALSE(t);
  const std::string& m = t.error().message;
  for (const std::string_view part :
       {"qos.sl2vl", "3 VLs (0, 1, 2)", "3 classes x 2 VL layers need 6 VLs",
        "cabled to \"host1\"[1]", "allows 4 (its link's VLCap runs 4 data VLs)",
        "as does 1 more port", "map the SLs to at most 2 VLs"})
    EXPECT_NE(m.find(part), std::string::npos) << part << " in: " << m;
}

TEST(QosLayers, QosMaxVlsLimitsTheClassesToo) {
  Fixture f;
  QosOptions o = twoClasses();
  o.ca.maxVls = 3;
  const auto t = planQosTables(f.fabric, o, nullptr, f.engine());
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message.find("allows 3"), std::string::npos) << t.error().message;
  EXPECT_NE(t.error().message.find("qos.ca_max_vls (or qos.max_vls) 3"), std::string::npos)
      << t.error().message;
  o.ca.maxVls = 4;
  EXPECT_TRUE(planQosTables(f.fabric, o, nullptr, f.engine()));
}

TEST(QosLayers, MoreThanFifteenVlsIsRefused) {
  Fixture f;
  QosOptions o = twoClasses();
  o.all.sl2vl = *parseSl2VlOption("0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7");  // 8 classes x 2 = 16
  const auto t = planQosTables(f.fabric, o, nullptr, f.engine());
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message.find("need 16 VLs, more than the 15 data VLs"), std::string::npos)
      << t.error().message;
}

TEST(QosLayers, TheRoutingTakesTheLayeredTablesAndTheVlsTheyNeed) {
  Fixture f;
  RoutingResult routing;
  routing.sl2vl = f.engine();
  routing.vlsUsed = 2;
  auto t = planQosTables(f.fabric, twoClasses(), nullptr, routing.sl2vl);
  ASSERT_TRUE(t) << t.error().message;
  const auto layered = t->layered;
  adoptLayeredSl2Vl(*t, routing);
  EXPECT_EQ(routing.vlsUsed, 4);
  EXPECT_TRUE(t->layered.empty());
  ASSERT_EQ(routing.sl2vl.size(), layered.size());
  for (const Sl2VlEntry& e : routing.sl2vl) {
    const QosSl2Vl* want = find(layered, {e.sw, e.outPort}, e.inPort);
    ASSERT_NE(want, nullptr);
    EXPECT_EQ(e.vl, want->vl);
    EXPECT_EQ(find(t->sl2vl, {e.sw, e.outPort}, e.inPort), nullptr);  // one table a pair
  }
}

// planSubnet() adds every linked CA port's own table (every SL on VL 0) to
// the engine's: QoS plans those ports itself, so they give way to the port
// type's QoS table, layer 0 of its class, and leave the routing's SL2VL.
TEST(QosLayers, TheCaPortsTablesBesideTheLayersAreQossToPlan) {
  Fixture f;
  RoutingResult routing;
  routing.sl2vl = f.engine();
  routing.sl2vl.push_back({f.host0, 0, 1, filled(0)});
  routing.sl2vl.push_back({f.host1, 0, 1, filled(0)});
  routing.vlsUsed = 2;
  auto t = planQosTables(f.fabric, twoClasses(), nullptr, routing.sl2vl);
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->layered.size(), f.engine().size()) << "the switches' pairs alone";
  const Vls up{0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 2, 2, 2, 2, 2, 15};
  for (const NodeId host : {f.host0, f.host1}) {
    EXPECT_EQ(find(t->layered, {host, 1}, 0), nullptr);
    ASSERT_NE(find(t->sl2vl, {host, 1}, 0), nullptr);
    EXPECT_EQ(find(t->sl2vl, {host, 1}, 0)->vl, up);
  }
  adoptLayeredSl2Vl(*t, routing);
  EXPECT_EQ(routing.sl2vl.size(), f.engine().size());
  for (const Sl2VlEntry& e : routing.sl2vl) EXPECT_EQ(e.sw, f.leaf);
}

TEST(QosLayers, WithoutEngineLayersThePlanIsOpenSmsAndTheRoutingIsLeftAlone) {
  Fixture f;
  RoutingResult routing;
  auto t = planQosTables(f.fabric, twoClasses(), nullptr, {});
  ASSERT_TRUE(t);
  EXPECT_FALSE(t->layers);
  adoptLayeredSl2Vl(*t, routing);
  EXPECT_TRUE(routing.sl2vl.empty());
  EXPECT_EQ(routing.vlsUsed, 1);
  EXPECT_EQ(find(t->sl2vl, {f.leaf, 1}, 3)->vl, *twoClasses().all.sl2vl);
}

}  // namespace
}  // namespace ibsm::qos
