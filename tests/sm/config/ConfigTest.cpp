#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "sm/config/Config.h"

namespace ibsm::sm::config {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Config, DefaultsApplyWhenTheFileIsEmpty) {
  const auto c = parseConfig("", "empty.toml");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->routing.engines, std::vector<std::string>{"auto"});
  EXPECT_EQ(c->routing.lmc, 0);
  EXPECT_FALSE(c->routing.rootGuidFile);
}

TEST(Config, ReadsRoutingKeys) {
  const auto c = parseConfig(
      "[routing]\nengine = [\"ftree\", \"updn\"]\nlmc = 2\nroot_guid_file = \"/etc/roots\"\n", "a");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->routing.engines, (std::vector<std::string>{"ftree", "updn"}));
  EXPECT_EQ(c->routing.lmc, 2);
  EXPECT_EQ(c->routing.rootGuidFile, "/etc/roots");
}

TEST(Config, ReadsMaxVlsAndThePartitionsFile) {
  const auto c = parseConfig(
      "[routing]\nmax_vls = 3\n[sm]\npartitions_file = \"/etc/ibsm/partitions.conf\"\n", "a");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->routing.maxVls, 3);
  EXPECT_EQ(c->sm.partitionsFile, "/etc/ibsm/partitions.conf");
  const auto bad = parseConfig("[routing]\nmax_vls = 16\n", "ibsm.toml");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message,
            "ibsm.toml:2: expected routing.max_vls to be an integer from 1 to 15");
}

TEST(Config, RoutingThreadsAreEveryCoreByDefaultAndACountWhenGiven) {
  EXPECT_EQ(parseConfig("", "empty.toml")->routing.threads, 0u);
  const auto c = parseConfig("[routing]\nthreads = 8\n", "a.toml");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->routing.threads, 8u);
  for (const char* value : {"-1", "1025", "\"all\""}) {
    const auto bad =
        parseConfig(std::string("[routing]\n\nthreads = ") + value + "\n", "ibsm.toml");
    ASSERT_FALSE(bad) << value;
    EXPECT_EQ(bad.error().message,
              "ibsm.toml:3: expected routing.threads to be an integer from 0 to 1024");
  }
}

TEST(Config, StableRoutesAreOnAndRebalanceOnlyWhenAskedByDefault) {
  const auto defaults = parseConfig("", "empty.toml");
  ASSERT_TRUE(defaults);
  EXPECT_TRUE(defaults->routing.stableRoutes);
  EXPECT_EQ(defaults->routing.rebalanceInterval, std::chrono::seconds(0));
  const auto c =
      parseConfig("[routing]\nstable_routes = false\nrebalance_interval = 86400\n", "a.toml");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_FALSE(c->routing.stableRoutes);
  EXPECT_EQ(c->routing.rebalanceInterval, std::chrono::hours(24));
  const auto notBool = parseConfig("[routing]\nstable_routes = 1\n", "ibsm.toml");
  ASSERT_FALSE(notBool);
  EXPECT_EQ(notBool.error().message,
            "ibsm.toml:2: expected routing.stable_routes to be true or false");
  const auto negative = parseConfig("[routing]\nrebalance_interval = -1\n", "ibsm.toml");
  ASSERT_FALSE(negative);
  EXPECT_EQ(negative.error().message,
            "ibsm.toml:2: expected routing.rebalance_interval to be an integer from 0 to 31536000");
}

// [[partition]] tables are read by the partition manager from the same file;
// the config parser leaves them alone, but only under that name.
TEST(Config, ReadsTheSaSectionWithOpenSmsDefaults) {
  const auto defaults = parseConfig("", "empty.toml");
  ASSERT_TRUE(defaults);
  EXPECT_EQ(defaults->sa.subnetTimeout, 18);
  EXPECT_EQ(defaults->sa.packetLifeTime, 18);
  const auto c = parseConfig(
      "[sa]\nsubnet_timeout = 14\npacket_life_time = 20\nmax_records = 100\n"
      "service_lease_max_s = 3600\n",
      "ibsm.toml");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->sa.subnetTimeout, 14);
  EXPECT_EQ(c->sa.packetLifeTime, 20);
  EXPECT_EQ(c->sa.maxRecords, 100U);
  EXPECT_EQ(c->sa.serviceLeaseMaxS, 3600U);
}

TEST(Config, TheSaFairQueuesLimitsDefaultToTheQueuesOwnAndAreRead) {
  // Defaults: the constants the queue had before they were keys
  // (FairQueueLimits{} in sm/sa/FairQueue.h, SaService's 8 reads a turn).
  const auto defaults = parseConfig("", "empty.toml");
  ASSERT_TRUE(defaults);
  EXPECT_EQ(defaults->sa.queuePerRequester, 16U);
  EXPECT_EQ(defaults->sa.queueTotal, 4096U);
  EXPECT_EQ(defaults->sa.queueReadsPerTurn, 8U);
  const auto c = parseConfig(
      "[sa]\nqueue_per_requester = 4\nqueue_total = 64\nqueue_reads_per_turn = 2\n", "ibsm.toml");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->sa.queuePerRequester, 4U);
  EXPECT_EQ(c->sa.queueTotal, 64U);
  EXPECT_EQ(c->sa.queueReadsPerTurn, 2U);
  // The total may equal one requester's queue, in either order in the file.
  EXPECT_TRUE(parseConfig("[sa]\nqueue_total = 8\nqueue_per_requester = 8\n", "ibsm.toml"));
  EXPECT_TRUE(parseConfig("[sa]\nqueue_per_requester = 5000\nqueue_total = 5000\n", "ibsm.toml"));
}

TEST(Config, RejectsSaQueueLimitsOutOfRangeOrATotalBelowOneRequestersQueue) {
  const auto zero = parseConfig("[sa]\nqueue_per_requester = 0\n", "ibsm.toml");
  ASSERT_FALSE(zero);
  EXPECT_EQ(zero.error().message,
            "ibsm.toml:2: expected sa.queue_per_requester to be an integer from 1 to 65536");
  const auto huge = parseConfig("[sa]\n\nqueue_total = 262145\n", "ibsm.toml");
  ASSERT_FALSE(huge);
  EXPECT_EQ(huge.error().message,
            "ibsm.toml:3: expected sa.queue_total to be an integer from 1 to 262144");
  const auto reads = parseConfig("[sa]\nqueue_reads_per_turn = \"many\"\n", "ibsm.toml");
  ASSERT_FALSE(reads);
  EXPECT_EQ(reads.error().message,
            "ibsm.toml:2: expected sa.queue_reads_per_turn to be an integer from 1 to 1024");
  const auto below = parseConfig("[sa]\nqueue_per_requester = 32\nqueue_total = 16\n", "ibsm.toml");
  ASSERT_FALSE(below);
  EXPECT_EQ(below.error().message,
            "ibsm.toml:3: expected sa.queue_total (16) to be at least sa.queue_per_requester (32): "
            "the queue must hold one requester's requests");
  // The total left at its default (4096): the per-requester key is named.
  const auto over =
      parseConfig("[sa]\nmax_records = 10\nqueue_per_requester = 5000\n", "ibsm.toml");
  ASSERT_FALSE(over);
  EXPECT_EQ(over.error().message,
            "ibsm.toml:3: expected sa.queue_total (4096) to be at least sa.queue_per_requester "
            "(5000): the queue must hold one requester's requests");
  // Read leniently (the control socket's commands), both keys fall back
  // to their defaults together: no half-set queue.
  const auto lenient =
      parseConfigLeniently("[sa]\nqueue_per_requester = 32\nqueue_total = 16\n", "ibsm.toml");
  ASSERT_TRUE(lenient);
  ASSERT_EQ(lenient->problems.size(), 1U);
  EXPECT_EQ(lenient->problems.front().key, "sa.queue_total");
  EXPECT_EQ(lenient->config.sa.queuePerRequester, 16U);
  EXPECT_EQ(lenient->config.sa.queueTotal, 4096U);
}

TEST(Config, ReadsTheSwitchTimeoutsWithOpenSmsDefaults) {
  const auto defaults = parseConfig("", "empty.toml");
  ASSERT_TRUE(defaults);
  EXPECT_EQ(defaults->sm.headOfQueueLifetime, 0x12);
  EXPECT_EQ(defaults->sm.leafHeadOfQueueLifetime, 0x10);
  EXPECT_EQ(defaults->sm.switchLifeTime, 0x12);
  const auto c = parseConfig(
      "[sm]\nhead_of_queue_lifetime = 20\nleaf_head_of_queue_lifetime = 14\n"
      "switch_life_time = 19\n",
      "ibsm.toml");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->sm.headOfQueueLifetime, 20);
  EXPECT_EQ(c->sm.leafHeadOfQueueLifetime, 14);
  EXPECT_EQ(c->sm.switchLifeTime, 19);
  const auto bad = parseConfig("[sm]\nleaf_head_of_queue_lifetime = 32\n", "ibsm.toml");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message,
            "ibsm.toml:2: expected sm.leaf_head_of_queue_lifetime to be an integer from 0 to 31");
}

TEST(Config, RejectsBadSaValuesNamingFileLineAndKey) {
  const auto timeout = parseConfig("[sa]\n\nsubnet_timeout = 32\n", "ibsm.toml");
  ASSERT_FALSE(timeout);
  EXPECT_EQ(timeout.error().message,
            "ibsm.toml:3: expected sa.subnet_timeout to be an integer from 0 to 31");
  const auto records = parseConfig("[sa]\nmax_records = 0\n", "ibsm.toml");
  ASSERT_FALSE(records);
  EXPECT_EQ(records.error().message,
            "ibsm.toml:2: expected sa.max_records to be an integer from 1 to 1048576");
  const auto lease = parseConfig("[sa]\nservice_lease_max_s = \"long\"\n", "ibsm.toml");
  ASSERT_FALSE(lease);
  EXPECT_EQ(lease.error().message,
            "ibsm.toml:2: expected sa.service_lease_max_s to be an integer from 1 to 4294967295");
  EXPECT_FALSE(parseConfig("[sa]\nsubnet_timeout = 18\nlease = 5\n", "ibsm.toml"));
}

TEST(Config, LeavesPartitionTablesToThePartitionManager) {
  const auto c = parseConfig(
      "[sm]\npriority = 3\n[[partition]]\nname = \"storage\"\npkey = \"0x8001\"\n", "a");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->sm.priority, 3);
  EXPECT_FALSE(parseConfig("[[partitions]]\nname = \"x\"\n", "a"));
}

TEST(Config, AcceptsASingleEngineName) {
  const auto c = parseConfig("[routing]\nengine = \"minhop\"\n", "a");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->routing.engines, std::vector<std::string>{"minhop"});
}

TEST(Config, RejectsAnUnknownKeyNamingFileAndLine) {
  const auto c = parseConfig("[routing]\nlmc = 1\nengnie = \"updn\"\n", "/etc/ibsm/ibsm.toml");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message,
            "/etc/ibsm/ibsm.toml:3: unknown key 'routing.engnie' (see man ibsm.toml)");
}

TEST(Config, RejectsAnOutOfRangeValueNamingTheKey) {
  const auto c = parseConfig("[routing]\n\nlmc = 9\n", "x.toml");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message, "x.toml:3: expected routing.lmc to be an integer from 0 to 7");
}

TEST(Config, RejectsBadTomlWithItsLine) {
  const auto c = parseConfig("[routing]\nengine = [\"a\"\n", "x.toml");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message.rfind("x.toml:", 0), 0u) << c.error().message;
}

TEST(Config, HealthMetricsFileIsOffByDefaultAndTakesAPath) {
  const auto none = parseConfig("", "x.toml");
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->health.metricsFile.empty());
  const auto c = parseConfig("[health]\nmetrics_file = \"/var/lib/node/ibsm.prom\"\n", "x.toml");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->health.metricsFile, "/var/lib/node/ibsm.prom");
  const auto bad = parseConfig("[health]\nmetrics_file = 1\n", "x.toml");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "x.toml:2: expected health.metrics_file to be a path (string)");
}

TEST(Config, MissingFileIsAnErrorOnlyWhenRequired) {
  EXPECT_TRUE(loadConfig("/nonexistent/ibsm.toml", false));
  const auto c = loadConfig("/nonexistent/ibsm.toml", true);
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message.find("/nonexistent/ibsm.toml"), std::string::npos);
}

// The option table is the one source of truth: the shipped example and the
// man page must mention every key, and the example must parse.
TEST(Config, ExampleConfigParsesAndListsEveryKey) {
  const std::string path = IBSM_SOURCE_DIR "/conf/ibsm.toml";
  const std::string text = slurp(path);
  ASSERT_TRUE(parseConfig(text, path));
  for (const auto& opt : optionTable()) {
    const auto name = std::string(opt.key.substr(opt.key.find('.') + 1));
    EXPECT_NE(text.find("\n" + name + " = "), std::string::npos) << opt.key;
  }
}

TEST(Config, ManPageDocumentsEveryKey) {
  const std::string text = slurp(IBSM_SOURCE_DIR "/man/ibsm.toml.5");
  ASSERT_FALSE(text.empty());
  for (const auto& opt : optionTable())
    EXPECT_NE(text.find(std::string(opt.key)), std::string::npos) << opt.key;
}

}  // namespace
}  // namespace ibsm::sm::config
