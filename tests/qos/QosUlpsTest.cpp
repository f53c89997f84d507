// The qos-ulps section: each line becomes the rule OpenSM's documentation
// says it equals (SDP/RDS/iSER by service id, IPoIB by PKey, SRP by target
// GUID), tried after every qos-match-rules rule; `default` becomes the
// DEFAULT level unless the file defines one.
#include <gtest/gtest.h>
#include <ibsm/QosPolicy.h>

namespace ibsm::qos {
namespace {

constexpr std::string_view kUlpsOnly = R"(qos-ulps
    default                       : 0 # default SL
    sdp, port-num 30000           : 1
    sdp, port-num 10000-20000     : 1
    sdp                           : 2
    RDS                           : 3
    iser, port-num 900            : 4
    iser                          : 4
    ipoib, pkey 0x0001            : 5
    ipoib                         : 6
    any, service-id 0x6234        : 7
    any, pkey 0x0ABC              : 7
    srp, target-port-guid 0x1234  : 8
    any, target-port-guid 0x0ABC-0xFFFFF : 9
    any, source-port-guid 0x5678  : 10
    any, source-target-port-guid 0x42 : 11
end-qos-ulps
)";

using Ids = std::vector<Range<std::uint64_t>>;
using PKeys = std::vector<Range<std::uint16_t>>;

TEST(QosUlps, EachLineIsTheRuleItStandsFor) {
  auto p = parseQosPolicy(kUlpsOnly, "ulps.conf");
  ASSERT_TRUE(p) << p.error().message;
  const auto& r = p->rules;
  ASSERT_EQ(r.size(), 14u);
  EXPECT_EQ(r[0].serviceIds, (Ids{{0x10000 + 30000, 0x10000 + 30000}}));
  EXPECT_EQ(r[1].serviceIds, (Ids{{0x10000 + 10000, 0x10000 + 20000}}));
  EXPECT_EQ(r[2].serviceIds, (Ids{{0x10000, 0x1FFFF}}));
  EXPECT_EQ(r[3].serviceIds, (Ids{{0x10648CA, 0x10648CA}}));
  EXPECT_EQ(r[4].serviceIds, (Ids{{0x1060000 + 900, 0x1060000 + 900}}));
  EXPECT_EQ(r[5].serviceIds, (Ids{{0x1060CBC, 0x1060CBC}}));
  EXPECT_EQ(r[6].pkeys, (PKeys{{0x0001, 0x0001}}));
  EXPECT_EQ(r[7].pkeys, (PKeys{{0x7FFF, 0x7FFF}}));
  EXPECT_EQ(r[8].serviceIds, (Ids{{0x6234, 0x6234}}));
  EXPECT_EQ(r[9].pkeys, (PKeys{{0x0ABC, 0x0ABC}}));
  EXPECT_EQ(p->level(r[3].level)->sl, 3);
  EXPECT_EQ(p->level(r[13].level)->sl, 11);
  EXPECT_EQ(p->level("DEFAULT")->sl, 0);
}

TEST(QosUlps, PortGuidsBecomeGroupsOnTheRightEnd) {
  auto p = parseQosPolicy(kUlpsOnly, "ulps.conf");
  ASSERT_TRUE(p) << p.error().message;
  auto groupOf = [&](const std::string& name) -> const QosPortGroup& {
    for (const auto& g : p->groups)
      if (g.name == name) return g;
    throw std::runtime_error("no group " + name);
  };
  const auto& srp = p->rules[10];
  ASSERT_EQ(srp.destinations.size(), 1u);
  EXPECT_TRUE(srp.sources.empty());
  EXPECT_EQ(groupOf(srp.destinations[0]).portGuids, (Ids{{0x1234, 0x1234}}));
  EXPECT_EQ(groupOf(p->rules[11].destinations[0]).portGuids, (Ids{{0xABC, 0xFFFFF}}));
  EXPECT_TRUE(p->rules[12].destinations.empty());
  EXPECT_EQ(groupOf(p->rules[12].sources[0]).portGuids, (Ids{{0x5678, 0x5678}}));
  EXPECT_EQ(p->rules[13].sources, p->rules[13].destinations);
}

TEST(QosUlps, AdvancedRulesComeFirstAndTheirDefaultWins) {
  auto p = parseQosPolicy(R"(qos-ulps
  default : 7
  sdp : 2
end-qos-ulps
qos-levels
  qos-level
    name: DEFAULT
    sl: 1
  end-qos-level
end-qos-levels
qos-match-rules
  qos-match-rule
    qos-class: 3
    qos-level-name: DEFAULT
  end-qos-match-rule
end-qos-match-rules
)",
                          "mixed.conf");
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_EQ(p->rules.size(), 2u);
  EXPECT_EQ(p->rules[0].qosClasses.size(), 1u);
  EXPECT_EQ(p->rules[1].serviceIds, (Ids{{0x10000, 0x1FFFF}}));
  EXPECT_EQ(p->level("DEFAULT")->sl, 1);
}

TEST(QosUlps, RefusesLinesOpenSmWouldNotRead) {
  auto errorOf = [](std::string_view line) {
    auto p = parseQosPolicy("qos-ulps\ndefault : 0\n" + std::string(line) + "\nend-qos-ulps\n",
                            "bad.conf");
    return p ? std::string("parsed") : p.error().message;
  };
  EXPECT_EQ(errorOf("nfs : 1"),
            "bad.conf:3: unknown ULP `nfs` (expected default, sdp, rds, iser, srp, ipoib or any)");
  EXPECT_EQ(errorOf("srp : 1"), "bad.conf:3: expected `target-port-guid <value>` before the `:`");
  EXPECT_EQ(errorOf("sdp, port-num 70000 : 1"),
            "bad.conf:3: port-num: expected TCP ports 0-65535 or ranges, got `70000`");
  EXPECT_EQ(errorOf("any, colour red : 1"),
            "bad.conf:3: expected service-id, pkey, target-port-guid, source-port-guid or "
            "source-target-port-guid, got `colour`");
  EXPECT_EQ(errorOf("sdp"), "bad.conf:3: expected `ULP[, criterion] : SL` or end-qos-ulps");
  EXPECT_EQ(errorOf("default : 1"), "bad.conf:3: a second `default : SL` line");
}

}  // namespace
}  // namespace ibsm::qos
