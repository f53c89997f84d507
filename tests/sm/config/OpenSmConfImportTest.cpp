// `ibsm config import`'s mapping, on opensm.conf files OpenSM 3.3.23 wrote
// itself (tests/data/opensm-conf/README.md says how each was made): every
// option with an ibsm equivalent lands in its key, the others are comments,
// and what comes out is a config ibsm reads.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "sm/config/Config.h"
#include "sm/config/OpenSmConfImport.h"

namespace ibsm::sm::config {
namespace {

using ::testing::HasSubstr;

std::string dataFile(const std::string& name) {
  std::ifstream in(std::string(IBSM_SOURCE_DIR) + "/tests/data/opensm-conf/" + name);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Imported {
  ImportedConfig imported;
  Config config;
};

Imported importAndRead(const std::string& name) {
  const std::string text = dataFile(name);
  EXPECT_FALSE(text.empty()) << name;
  auto imported = importOpenSmConf(text, name);
  EXPECT_TRUE(imported) << imported.error().message;
  if (!imported) return {};
  auto config = parseConfig(imported->toml, name + ".toml");
  EXPECT_TRUE(config) << config.error().message << "\n" << imported->toml;
  if (!config) return {};
  return {std::move(*imported), std::move(*config)};
}

std::string allWarnings(const ImportedConfig& c) {
  std::string all;
  for (const auto& w : c.warnings) all += std::to_string(w.line) + ": " + w.message + "\n";
  return all;
}

TEST(OpenSmConfImport, OpenSmsDefaultsGiveOpenSmsBehaviourWhereTheDefaultsDiffer) {
  const auto [imported, c] = importAndRead("default.conf");
  EXPECT_TRUE(imported.warnings.empty()) << allWarnings(imported);
  EXPECT_EQ(c.sm.smKey, 1u);
  EXPECT_EQ(c.sm.priority, 0);
  EXPECT_EQ(c.sm.sweepIntervalSeconds, 10u);
  // OpenSM's polling pace (10 s x 4 polls, 40 s to find a dead master) is
  // written commented, as its window of 4 is: ibsm's own pace applies.
  const auto own = parseConfig("", "empty.toml");
  ASSERT_TRUE(own);
  EXPECT_EQ(c.sm.pollingTimeoutMs, own->sm.pollingTimeoutMs);
  EXPECT_EQ(c.sm.pollingRetries, own->sm.pollingRetries);
  EXPECT_THAT(imported.toml, HasSubstr("\n# polling_timeout_ms = 10000\n"));
  EXPECT_THAT(imported.toml, HasSubstr("\n# polling_retries = 4\n"));
  EXPECT_EQ(c.sm.subnetPrefix, 0xfe80000000000000ULL);
  EXPECT_EQ(c.sm.headOfQueueLifetime, 0x12);
  EXPECT_EQ(c.sm.leafHeadOfQueueLifetime, 0x10);
  EXPECT_EQ(c.sm.switchLifeTime, 0x12);
  EXPECT_EQ(c.sa.subnetTimeout, 18);
  EXPECT_EQ(c.sa.packetLifeTime, 18);
  EXPECT_EQ(c.mad.timeoutMs, 200u);
  EXPECT_EQ(c.mad.retries, 3u);
  EXPECT_EQ(c.routing.lmc, 0);
  // OpenSM's perfmgr is off by default: so is the imported counter sweep.
  EXPECT_EQ(c.health.counterIntervalSeconds, 0u);
  EXPECT_EQ(c.log.level, "info");  // log_flags 0x03: errors and info
  // Written commented, with the reason: OpenSM's default paths (read only if
  // present), its slow window of 4, its minhop default.
  EXPECT_TRUE(c.sm.partitionsFile.empty());
  EXPECT_TRUE(c.log.file.empty());
  EXPECT_EQ(c.mad.window, 32u);
  EXPECT_EQ(c.routing.engines, std::vector<std::string>{"auto"});
  EXPECT_THAT(imported.toml, HasSubstr("# partitions_file = \"/etc/opensm/partitions.conf\""));
  EXPECT_TRUE(c.sm.qosPolicyFile.empty());
  EXPECT_THAT(imported.toml, HasSubstr("# policy_file = \"/etc/opensm/qos-policy.conf\""));
  EXPECT_THAT(imported.toml, HasSubstr("# window = 4"));
  EXPECT_THAT(imported.toml, HasSubstr("# engine = [\"minhop\"]"));
}

TEST(OpenSmConfImport, EveryOptionOfTheFileIsInTheOutputAsAKeyOrAComment) {
  const std::string text = dataFile("default.conf");
  const auto [imported, c] = importAndRead("default.conf");
  std::istringstream lines(text);
  std::size_t options = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    const std::string name = line.substr(0, line.find(' '));
    ++options;
    EXPECT_THAT(imported.toml, HasSubstr("# " + name + " ")) << name;
  }
  EXPECT_GT(options, 150u);
  // subnet_timeout gives two keys; partition_config_file a hint on partitions.strict.
  EXPECT_EQ(imported.mapped + imported.commented, options + 2);
  EXPECT_THAT(imported.toml, HasSubstr("# strict = false"));
  EXPECT_THAT(imported.toml, HasSubstr("# qos_max_vls 0 (line"));
  EXPECT_THAT(imported.toml, HasSubstr("\n# max_vls = 0\n"));  // unset in OpenSM: commented
  EXPECT_THAT(imported.toml, HasSubstr("\n[qos]\n"));
  EXPECT_THAT(imported.toml, HasSubstr("# m_key 0x0000000000000000 (line 8): OpenSM sets no M_Key; "
                                       "ibsm protects every port"));
  EXPECT_THAT(imported.toml, HasSubstr("\n# m_key = 0\n"));
}

// OpenSM's M_Key options (issue 29): a key it set is kept as one key for every
// port with its protection level and lease; its default m_key 0 sets none,
// so ibsm's default (a key per port from the secret) stays, with the
// option to keep ports unprotected written commented.
TEST(OpenSmConfImport, MKeyOptionsMapToTheSmMKeyKeys) {
  const auto keyed = importOpenSmConf(
      "m_key 0x00000000000000ff\nm_key_protection_level 2\nm_key_lease_period 30\n"
      "m_key_lookup TRUE\n",
      "o.conf");
  ASSERT_TRUE(keyed) << keyed.error().message;
  const auto c = parseConfig(keyed->toml, "o.toml");
  ASSERT_TRUE(c) << c.error().message << "\n" << keyed->toml;
  EXPECT_EQ(c->sm.mKey.singleKey, 0xffu);
  EXPECT_EQ(c->sm.mKey.protectBits, 2);
  EXPECT_EQ(c->sm.mKey.leaseSeconds, 30);
  EXPECT_THAT(keyed->toml, HasSubstr("# m_key_lookup TRUE (line 4): ibsm derives each port's key"));

  const auto none =
      importOpenSmConf("m_key 0x0\nm_key_protection_level 0\nm_key_lease_period 0\n", "o.conf");
  ASSERT_TRUE(none) << none.error().message;
  const auto d = parseConfig(none->toml, "o.toml");
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_TRUE(d->sm.mKey.enabled);
  EXPECT_FALSE(d->sm.mKey.singleKey);
  EXPECT_EQ(d->sm.mKey.protectBits, 1);
  EXPECT_EQ(d->sm.mKey.leaseSeconds, 60);
  EXPECT_THAT(none->toml, HasSubstr("\n# m_key_protect = 0\n"));

  const auto bad = importOpenSmConf("m_key_protection_level 4\n", "o.conf");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message,
            "o.conf:1: m_key_protection_level: expected a number from 0 to 3 (ibsm's "
            "sm.m_key_protect), found '4'");
}

// OpenSM's QoS options (issue 30): the same names less "qos_" under [qos],
// in the same syntax; what OpenSM leaves unset stays commented; a value
// OpenSM would replace by its default is refused with its line.
TEST(OpenSmConfImport, QosOptionsMapToTheQosKeys) {
  const auto imported = importOpenSmConf(
      "qos TRUE\nqos_max_vls 8\nqos_high_limit 0x10\nqos_vlarb_low 0:32,1:32\n"
      "qos_sl2vl 0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,15\nqos_ca_high_limit -1\n"
      "qos_swe_vlarb_high \"1:64\"\nqos_rtr_sl2vl (null)\n",
      "o.conf");
  ASSERT_TRUE(imported) << imported.error().message;
  const auto c = parseConfig(imported->toml, "o.toml");
  ASSERT_TRUE(c) << c.error().message << "\n" << imported->toml;
  const auto& q = c->qosOptions;
  EXPECT_TRUE(q.enabled);
  EXPECT_EQ(q.all.maxVls, 8);
  EXPECT_EQ(q.all.highLimit, 16);
  EXPECT_EQ(q.all.vlarbLow, (std::vector<qos::VlWeight>{{0, 32}, {1, 32}}));
  EXPECT_EQ(q.all.sl2vl->at(15), 15);
  EXPECT_FALSE(q.ca.highLimit);
  EXPECT_EQ(q.swe.vlarbHigh, (std::vector<qos::VlWeight>{{1, 64}}));
  EXPECT_FALSE(q.rtr.sl2vl);
  EXPECT_THAT(imported->toml,
              HasSubstr("# qos_swe_vlarb_high 1:64 (line 7)\nswe_vlarb_high = \"1:64\"\n"));
  EXPECT_THAT(imported->toml, HasSubstr("\n# ca_high_limit = -1\n"));

  const auto bad = importOpenSmConf("qos_ca_vlarb_low 0:4,16:4\n", "o.conf");
  ASSERT_FALSE(bad);
  EXPECT_THAT(bad.error().message,
              HasSubstr("o.conf:1: qos_ca_vlarb_low (ibsm's qos.ca_vlarb_low): "
                        "expected up to 64 VL:weight pairs"));
  EXPECT_FALSE(importOpenSmConf("qos_max_vls 16\n", "o.conf"));
}

TEST(OpenSmConfImport, ValuesGivenOnOpenSmsCommandLineAreMapped) {
  const auto [imported, c] = importAndRead("cli-ftree.conf");
  EXPECT_EQ(c.sm.priority, 7);
  EXPECT_EQ(c.routing.lmc, 2);
  // OpenSM falls back to minhop after the engines listed; so does ibsm.
  EXPECT_EQ(c.routing.engines, (std::vector<std::string>{"ftree", "updn", "minhop"}));
  EXPECT_EQ(c.routing.rootGuidFile, "roots.guids");
  EXPECT_EQ(c.sm.partitionsFile, "partitions.conf");
  EXPECT_EQ(c.sm.sweepIntervalSeconds, 30u);
  EXPECT_EQ(c.mad.timeoutMs, 500u);
  EXPECT_EQ(c.mad.retries, 5u);
  EXPECT_EQ(c.mad.window, 16u);
  EXPECT_EQ(c.sm.smKey, 0x1234u);
  EXPECT_EQ(c.sm.subnetPrefix, 0xfe80000000000001ULL);
  EXPECT_EQ(c.sm.portGuid, Guid{0x0002c90300001234ULL});
  EXPECT_EQ(c.health.counterIntervalSeconds, 60u);
  EXPECT_EQ(c.log.file, "/var/log/ibsm-import.log");
  EXPECT_EQ(c.log.level, "debug");  // 0x07: verbose
  EXPECT_THAT(imported.toml, HasSubstr("# cn_guid_file cn.guids (line"));
  EXPECT_THAT(imported.toml, HasSubstr("# log_max_size 100 (line"));
  EXPECT_THAT(imported.toml, HasSubstr("# qos TRUE (line"));
}

TEST(OpenSmConfImport, EnginesIbsmLacksAreNamedAndNoFallbackLeavesIbsmsDefault) {
  const auto [imported, c] = importAndRead("cli-dfsssp.conf");
  EXPECT_EQ(c.routing.engines, std::vector<std::string>{"auto"});
  EXPECT_THAT(allWarnings(imported), HasSubstr("ibsm has no dfsssp, lash engines"));
  EXPECT_EQ(c.sm.priority, 15);
  EXPECT_EQ(c.routing.lmc, 7);
  EXPECT_EQ(c.sm.sweepIntervalSeconds, 0u);
  EXPECT_EQ(c.log.level, "trace");  // 0x20: frames, OpenSM's MAD trace
  EXPECT_THAT(imported.toml, HasSubstr("# console local (line"));
}

TEST(OpenSmConfImport, AnOperatorsChoiceOfWindowIsKept) {
  const auto [imported, c] = importAndRead("cli-minhop.conf");
  EXPECT_EQ(c.mad.window, 64u);
  EXPECT_EQ(c.routing.engines, std::vector<std::string>{"minhop"});
  EXPECT_EQ(c.log.level, "trace");  // -V: 0xff
}

// The pair is one choice (detection = timeout x retries): any pair other
// than OpenSM's defaults is the operator's and kept as it is, both keys;
// OpenSM's defaults alone (the other option absent) are still its defaults.
TEST(OpenSmConfImport, AnOperatorsPollingPaceIsKept) {
  const auto own = parseConfig("", "empty.toml");
  ASSERT_TRUE(own);
  struct Case {
    const char* conf;
    std::uint32_t timeoutMs, retries;
  };
  for (const auto& k :
       {Case{"sminfo_polling_timeout 2000\npolling_retry_number 4\n", 2000, 4},
        Case{"sminfo_polling_timeout 10000\npolling_retry_number 2\n", 10000, 2},
        Case{"sminfo_polling_timeout 10000\n", own->sm.pollingTimeoutMs, own->sm.pollingRetries},
        Case{"polling_retry_number 4\n", own->sm.pollingTimeoutMs, own->sm.pollingRetries}}) {
    const auto imported = importOpenSmConf(k.conf, "o.conf");
    ASSERT_TRUE(imported) << imported.error().message;
    const auto c = parseConfig(imported->toml, "o.toml");
    ASSERT_TRUE(c) << c.error().message << "\n" << imported->toml;
    EXPECT_EQ(c->sm.pollingTimeoutMs, k.timeoutMs) << k.conf;
    EXPECT_EQ(c->sm.pollingRetries, k.retries) << k.conf;
  }
  const auto bad = importOpenSmConf("\npolling_retry_number 0\n", "o.conf");
  ASSERT_FALSE(bad);
  EXPECT_EQ(
      bad.error().message.rfind("o.conf:2: polling_retry_number: expected a number from 1", 0), 0u)
      << bad.error().message;
}

TEST(OpenSmConfImport, AHandEditedFileReadsAsOpenSmReadsIt) {
  const auto [imported, c] = importAndRead("hand-edited.conf");
  EXPECT_EQ(c.sm.priority, 5);                          // set twice: the last counts
  EXPECT_EQ(c.sm.sweepIntervalSeconds, 15u);            // tab, trailing comment
  EXPECT_EQ(c.sa.subnetTimeout, 0x10);                  // hex
  EXPECT_EQ(c.log.file, "/var/log/opensm-edited.log");  // quotes dropped
  EXPECT_EQ(c.routing.engines, (std::vector<std::string>{"updn", "minhop"}));
  EXPECT_TRUE(c.sm.partitionsFile.empty());  // (null)
  EXPECT_EQ(c.routing.lmc, 0);               // commented out: not in the file
  EXPECT_EQ(c.mad.window, 32u);
  const std::string warnings = allWarnings(imported);
  EXPECT_THAT(warnings, HasSubstr("'sm_priority' is set again (first at line"));
  EXPECT_THAT(warnings, HasSubstr("unknown option 'my_site_option'"));
  EXPECT_THAT(imported.toml, HasSubstr("# my_site_option 1 (line"));
  EXPECT_EQ(imported.warnings.size(), 2u) << warnings;
}

TEST(OpenSmConfImport, AnUnknownOptionIsAWarningAndAComment) {
  auto r = importOpenSmConf("sm_priority 2\nfancy_feature TRUE\n", "o.conf");
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_EQ(r->warnings[0].line, 2u);
  EXPECT_THAT(r->warnings[0].message, HasSubstr("Unrecognized token"));
  EXPECT_THAT(r->toml, HasSubstr("# fancy_feature TRUE (line 2): unknown to OpenSM"));
}

TEST(OpenSmConfImport, ALineThatIsNotNameValueIsAnErrorNamingFileAndLine) {
  for (const char* bad : {"sm_priority=7\n", "sm_priority = 7\n", "[sm]\n", "SM_PRIORITY 7\n",
                          "7 sm_priority\n", "sm-priority 7\n", "sm_priority 7\x01\n"}) {
    const auto r = importOpenSmConf(std::string("lmc 1\n# fine\n") + bad, "o.conf");
    ASSERT_FALSE(r) << bad;
    EXPECT_THAT(r.error().message, HasSubstr("o.conf:3: expected")) << bad;
  }
}

TEST(OpenSmConfImport, AValueIbsmCannotTakeIsAnErrorNamingTheKey) {
  const auto r = importOpenSmConf("\nsm_priority 16\n", "o.conf");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "o.conf:2: sm_priority: expected a number from 0 to 15 (ibsm's sm.priority), found "
            "'16'");
  EXPECT_FALSE(importOpenSmConf("lmc two\n", "o.conf"));
  EXPECT_FALSE(importOpenSmConf("perfmgr yes\n", "o.conf"));
  EXPECT_FALSE(importOpenSmConf("routing_engine ftree,fast\n", "o.conf"));
  EXPECT_FALSE(importOpenSmConf("sm_key (null)\n", "o.conf"));
}

TEST(OpenSmConfImport, NumbersReadAsOpenSmReadsThem) {
  // strtoul with base 0: 0x hex, a leading 0 octal.
  auto r = importOpenSmConf("sm_priority 010\nsweep_interval 0x1e\n", "o.conf");
  ASSERT_TRUE(r) << r.error().message;
  auto c = parseConfig(r->toml, "o.toml");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->sm.priority, 8);
  EXPECT_EQ(c->sm.sweepIntervalSeconds, 30u);
}

}  // namespace
}  // namespace ibsm::sm::config
