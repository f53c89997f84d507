// parseQosPolicy(): OpenSM's qos-policy.conf read unchanged -- every
// section, keyword and value form the OpenSM documentation shows -- and
// every kind of broken file refused with "FILE:LINE: what was expected".
#include <gtest/gtest.h>
#include <ibsm/QosPolicy.h>

namespace ibsm::qos {
namespace {

constexpr std::string_view kSite = R"(# a site: storage, MPI, management
port-groups
    port-group   # by GUID
        name: Storage
        use: the SRP targets
        port-guid: 0x10000000000001, 0x10000000000005-0x1000000000FFFA
        port-guid: 0x1000000000FFFF
    end-port-group
    port-group
        name: Login Nodes
        port-name: login1 HCA-1/P1, "login2 HCA-1/P2"
    end-port-group
    port-group
        name: Mgmt
        partition: Management
        pkey: 0x0010-0x0012
        node-type: ca, SELF
    end-port-group
end-port-groups

qos-setup
    vlarb-tables
        vlarb-scope
            group: Storage
            across: Mgmt
            vlarb-high: 0:255, 1:64
            vlarb-low: 2:128
            vl-high-limit: 10
        end-vlarb-scope
    end-vlarb-tables
    sl2vl-tables
        sl2vl-scope
            group: Login Nodes
            from: *
            to: 1-4, 7
            sl2vl-table: 0,1,2,3,4,5,6,7,7,7,7,7,7,7,7,15
        end-sl2vl-scope
    end-sl2vl-tables
end-qos-setup

qos-levels
    qos-level
        name: DEFAULT
        use: best effort
        sl: 0
    end-qos-level
    qos-level
        name: Storage Level
        sl: 1
        mtu-limit: 4
        rate-limit: 5
        packet-life: 8
        pkey: 0x1234
        path-bits: 1
    end-qos-level
end-qos-levels

qos-match-rules
    qos-match-rule
        use: by QoS class
        qos-class: 7-9,11
        qos-level-name: Storage Level
    end-qos-match-rule
    qos-match-rule
        source: Login Nodes, Mgmt
        destination: Storage
        service-id: 0x0000000000010000-0x000000000001FFFF
        pkey: 0x0F00-0x0FFF
        qos-level-name: DEFAULT
    end-qos-match-rule
end-qos-match-rules
)";

TEST(QosPolicyFile, ReadsEverySectionOfAFullPolicy) {
  auto p = parseQosPolicy(kSite, "site.conf");
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_EQ(p->groups.size(), 3u);
  EXPECT_EQ(p->groups[0].name, "Storage");
  EXPECT_EQ(p->groups[0].line, 3u);
  const std::vector<Range<std::uint64_t>> guids{{0x10000000000001, 0x10000000000001},
                                                {0x10000000000005, 0x1000000000FFFA},
                                                {0x1000000000FFFF, 0x1000000000FFFF}};
  EXPECT_EQ(p->groups[0].portGuids, guids);
  EXPECT_EQ(p->groups[1].portNames,
            (std::vector<std::string>{"login1 HCA-1/P1", "login2 HCA-1/P2"}));
  EXPECT_EQ(p->groups[2].partitions, std::vector<std::string>{"Management"});
  EXPECT_EQ(p->groups[2].pkeys, (std::vector<Range<std::uint16_t>>{{0x10, 0x12}}));
  EXPECT_EQ(p->groups[2].nodeTypes, nodeTypeBit::kCa | nodeTypeBit::kSelf);

  ASSERT_EQ(p->setup.vlArb.size(), 1u);
  const auto& arb = p->setup.vlArb[0];
  EXPECT_EQ(arb.groups, std::vector<std::string>{"Storage"});
  EXPECT_EQ(arb.across, std::vector<std::string>{"Mgmt"});
  EXPECT_EQ(*arb.high, (std::vector<VlWeight>{{0, 255}, {1, 64}}));
  EXPECT_EQ(*arb.low, (std::vector<VlWeight>{{2, 128}}));
  EXPECT_EQ(arb.highLimit, 10);
  ASSERT_EQ(p->setup.sl2vl.size(), 1u);
  const auto& sl2vl = p->setup.sl2vl[0];
  EXPECT_TRUE(sl2vl.from.empty());  // `*`: every input port
  EXPECT_EQ(sl2vl.to, (std::vector<Range<std::uint8_t>>{{1, 4}, {7, 7}}));
  EXPECT_EQ(sl2vl.sl2vl[8], 7);
  EXPECT_EQ(sl2vl.sl2vl[15], 15);

  const QosLevel* storage = p->level("Storage Level");
  ASSERT_NE(storage, nullptr);
  EXPECT_EQ(storage->sl, 1);
  EXPECT_EQ(storage->mtuLimit, 4);
  EXPECT_EQ(storage->rateLimit, 5);
  EXPECT_EQ(storage->packetLife, 8);
  EXPECT_EQ(storage->pkeys, (std::vector<Range<std::uint16_t>>{{0x1234, 0x1234}}));
  EXPECT_FALSE(p->level("DEFAULT")->mtuLimit);

  ASSERT_EQ(p->rules.size(), 2u);
  EXPECT_EQ(p->rules[0].qosClasses, (std::vector<Range<std::uint8_t>>{{7, 9}, {11, 11}}));
  EXPECT_EQ(p->rules[0].level, "Storage Level");
  EXPECT_EQ(p->rules[1].sources, (std::vector<std::string>{"Login Nodes", "Mgmt"}));
  EXPECT_EQ(p->rules[1].destinations, std::vector<std::string>{"Storage"});
  EXPECT_EQ(p->rules[1].serviceIds, (std::vector<Range<std::uint64_t>>{{0x10000, 0x1FFFF}}));
  EXPECT_EQ(p->rules[1].pkeys, (std::vector<Range<std::uint16_t>>{{0x0F00, 0x0FFF}}));
}

TEST(QosPolicyFile, TheShortestPolicyIsADefaultLevel) {
  auto p = parseQosPolicy(
      "qos-levels\nqos-level\nname: DEFAULT\nsl: 0\nend-qos-level\nend-qos-levels\n", "short.conf");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_TRUE(p->rules.empty());
  EXPECT_EQ(p->levels.size(), 1u);
}

TEST(QosPolicyFile, TheBundledExampleReadsAndSaysWhatItsCommentsSay) {
  auto p = readQosPolicy(std::string(IBSM_SOURCE_DIR) + "/conf/qos-policy.conf");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->level("DEFAULT")->sl, 0);
  EXPECT_EQ(p->level("storage")->mtuLimit, 5);
  // Three advanced rules, then the two qos-ulps lines.
  ASSERT_EQ(p->rules.size(), 5u);
  EXPECT_EQ(p->rules[0].level, "management");
  EXPECT_EQ(p->rules[3].serviceIds, (std::vector<Range<std::uint64_t>>{{0x1060CBC, 0x1060CBC}}));
  EXPECT_EQ(p->level(p->rules[4].level)->sl, 3);
}

TEST(QosPolicyFile, AMissingFileIsAnErrorNamingIt) {
  auto p = readQosPolicy("/nonexistent/qos-policy.conf");
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("/nonexistent/qos-policy.conf"), std::string::npos);
}

// The message of a broken file, which must start with "bad.conf:LINE:".
std::string errorOf(std::string_view text) {
  auto p = parseQosPolicy(text, "bad.conf");
  return p ? std::string("parsed") : p.error().message;
}

constexpr std::string_view kDefault =
    "qos-levels\nqos-level\nname: DEFAULT\nsl: 0\nend-qos-level\nend-qos-levels\n";

std::string withDefault(std::string_view text) {
  return std::string(kDefault) + std::string(text);
}

TEST(QosPolicyFile, RefusesUnknownKeywordsWithFileAndLine) {
  EXPECT_EQ(errorOf("port-groups\nport-group\nname: a\ncolour: red\n"),
            "bad.conf:4: unknown keyword `colour` in port-group (expected name, use, port-guid, "
            "port-name, pkey, partition or node-type)");
  EXPECT_EQ(
      errorOf("qos-levelz\n"),
      "bad.conf:1: unknown keyword `qos-levelz` (expected port-groups, qos-setup, qos-levels, "
      "qos-match-rules or qos-ulps)");
  EXPECT_EQ(errorOf("port-group\n"), "bad.conf:1: `port-group` belongs in port-groups");
  EXPECT_EQ(errorOf("port-groups\nnode-type: CA\n").substr(0, 12), "bad.conf:2: ");
  EXPECT_EQ(errorOf("port-groups\nport-group\nname: a\nnode-type: HUB\n"),
            "bad.conf:4: node-type: expected CA, SWITCH, ROUTER, ALL or SELF, got `HUB`");
}

TEST(QosPolicyFile, RefusesBadNumbers) {
  EXPECT_EQ(errorOf("port-groups\nport-group\nname: a\nport-guid: 0x1g\n"),
            "bad.conf:4: port-guid: expected port GUIDs or ranges, got `0x1g`");
  EXPECT_EQ(errorOf("port-groups\nport-group\nname: a\npkey: 0x20-0x10\n"),
            "bad.conf:4: pkey: expected PKeys or ranges, got `0x20-0x10`");
  EXPECT_EQ(errorOf("qos-levels\nqos-level\nname: x\nmtu-limit: 6\n"),
            "bad.conf:4: mtu-limit: expected an MTU code 1-5, got `6`");
  EXPECT_EQ(errorOf("qos-setup\nsl2vl-tables\nsl2vl-scope\nsl2vl-table: 0,1,2\n"),
            "bad.conf:4: sl2vl-table: expected 16 VLs (0-15) for SL 0..15, got `0,1,2`");
  EXPECT_EQ(errorOf("qos-setup\nvlarb-tables\nvlarb-scope\nvlarb-low: 0:256\n"),
            "bad.conf:4: vlarb-low: expected VL:weight pairs (VL 0-15, weight 0-255), got `0:256`");
}

TEST(QosPolicyFile, RefusesAServiceLevelAbove15) {
  EXPECT_EQ(errorOf("qos-levels\nqos-level\nname: x\nsl: 16\n"),
            "bad.conf:4: sl: expected a service level 0-15, got `16`");
  EXPECT_EQ(errorOf("qos-ulps\ndefault : 16\n"),
            "bad.conf:2: expected a service level 0-15 after `:`, got `16`");
}

TEST(QosPolicyFile, RefusesUnterminatedSections) {
  EXPECT_EQ(errorOf("# comment\nqos-levels\n  qos-level\n    name: DEFAULT\n"),
            "bad.conf:3: `qos-level` is never closed (expected end-qos-level before the end of "
            "the file at line 4)");
  EXPECT_EQ(errorOf("qos-levels\nend-qos-level\n"),
            "bad.conf:2: `end-qos-level` without an open qos-level");
}

TEST(QosPolicyFile, RefusesNamesThatAreNotDefined) {
  EXPECT_EQ(errorOf(withDefault("qos-match-rules\nqos-match-rule\nqos-level-name: Gold\n"
                                "end-qos-match-rule\nend-qos-match-rules\n")),
            "bad.conf:9: QoS level `Gold` is not defined");
  EXPECT_EQ(
      errorOf(withDefault("qos-match-rules\nqos-match-rule\nsource: nobody\n"
                          "qos-level-name: DEFAULT\nend-qos-match-rule\nend-qos-match-rules\n")),
      "bad.conf:9: port group `nobody` is not defined");
  EXPECT_EQ(errorOf(withDefault("qos-setup\nvlarb-tables\nvlarb-scope\nacross: nobody\n"
                                "end-vlarb-scope\nend-vlarb-tables\nend-qos-setup\n")),
            "bad.conf:10: port group `nobody` is not defined");
  EXPECT_EQ(errorOf("qos-match-rules\nend-qos-match-rules\n"),
            "bad.conf:2: no QoS level named DEFAULT (expected a qos-level with `name: DEFAULT` or "
            "a qos-ulps `default : SL` line: it is what a query no rule matches gets)");
  EXPECT_EQ(errorOf(withDefault("qos-match-rules\nqos-match-rule\nuse: x\nend-qos-match-rule\n")),
            "bad.conf:10: qos-match-rule without `qos-level-name:`");
}

TEST(QosPolicyFile, RefusesDuplicateNames) {
  EXPECT_EQ(
      errorOf(withDefault("qos-levels\nqos-level\nname: DEFAULT\nend-qos-level\nend-qos-levels\n")),
      "bad.conf:8: QoS level `DEFAULT` defined twice (first at line 2)");
  EXPECT_EQ(errorOf(withDefault("port-groups\nport-group\nname: a\nend-port-group\n"
                                "port-group\nname: a\nend-port-group\nend-port-groups\n")),
            "bad.conf:11: port group `a` defined twice (first at line 8)");
  EXPECT_EQ(errorOf("qos-levels\nqos-level\nname: DEFAULT\nsl: 1\nsl: 2\n"),
            "bad.conf:5: `sl` given twice in one qos-level");
}

}  // namespace
}  // namespace ibsm::qos
