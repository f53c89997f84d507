// What `ibsm health` prints, and the health figures of `ibsm status`: a
// summary an operator reads at a glance, one block per unhealthy port or
// link with the counters that made it so, every port on demand, and JSON
// with every field for scripts.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sm/control/HealthFormat.h"
#include "sm/control/StatusFormat.h"
#include "tests/sm/control/HealthViewSample.h"

namespace ibsm::sm::control {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using namespace testing;  // the samples

TEST(HealthText, AHealthyFabricSaysSoPlainly) {
  EXPECT_EQ(formatHealth(healthy()),
            "health: healthy, 0 isolated; counters every 60 s, first pass once master with the "
            "subnet up\n"
            "Every port and link is healthy: no counter over its threshold, no link downgraded "
            "or flapping, no switch rebooted.\n");
}

// Issue 27: before the first pass the line says when it is due, never "off".
TEST(HealthText, BeforeTheFirstPassItSaysWhenThePassIsDue) {
  health::HealthView v = healthy();
  v.counterSweep.nextPassIn = std::chrono::seconds{12};
  EXPECT_THAT(formatHealth(v), HasSubstr("; counters every 60 s, first pass in 12 s\n"));
  v.counterSweep.nextPassIn = std::chrono::seconds{0};
  EXPECT_THAT(formatHealth(v), HasSubstr("; counters every 60 s, first pass now\n"));
  const auto j = nlohmann::json::parse(formatHealthJson(v));
  EXPECT_EQ(j["counter_sweep"]["next_pass_in_s"], 0);
}

TEST(HealthText, WithTheCounterSweepOffItSaysErrorsAreNotWatched) {
  health::HealthView v = healthy();
  v.counterSweep = {};
  EXPECT_EQ(formatHealth(v),
            "health: healthy, 0 isolated; counters off\n"
            "No link downgraded or flapping, no switch rebooted. Error counters are not watched: "
            "the counter sweep is off (health.counter_interval = 0).\n");
}

TEST(HealthText, ShowsEachUnhealthyEntryWithItsCountersPeerActionAndSince) {
  EXPECT_EQ(formatHealth(twoUnhealthy()),
            "health: 2 unhealthy (1 errors, 1 downgraded), 1 isolated; counters every 60 s, "
            "last pass 2026-12-04T12:03:04Z (3,451 GMPs, 0.8 s)\n"
            "\n"
            "errors \"leaf0\"[3] (0x0002c90300000001): SymbolErrorCounter 1205 > 10\n"
            "  peer: \"spine1\"[7] (0x0002c90300000002)\n"
            "  SymbolErrorCounter: >=1205 total, +60 at the last read, 720/h\n"
            "  action: isolate: not isolated: the only way to 0x0002c90300000009\n"
            "  since: 2026-12-04T11:58:00Z (last seen 2026-12-04T12:03:04Z)\n"
            "\n"
            "downgraded \"leaf1\"[1] (0x0002c90300000003): 4x expected, 1x active\n"
            "  peer: \"spine0\"[2] (0x0002c90300000004)\n"
            "  action: isolate: isolated\n"
            "  since: 2026-12-04T10:00:00Z (last seen 2026-12-04T12:03:00Z)\n");
}

TEST(HealthText, ACounterOfAPortTheLastPassDidNotReadSaysSo) {
  health::HealthView v = twoUnhealthy();
  v.ports.clear();
  v.unhealthy[0].action = health::Action::Report;
  const std::string text = formatHealth(v);
  EXPECT_THAT(text, HasSubstr("  SymbolErrorCounter: not in the last counter pass\n"
                              "  action: report\n"));
}

TEST(HealthText, PortsListsEveryPortWithLowerBoundsRatesAndDataRates) {
  const std::string text = formatHealthPorts(twoUnhealthy());
  EXPECT_THAT(text, HasSubstr("ports: 2 read; 42 passes, 144,942 GMPs sent, 0 timeouts, 0 error "
                              "answers, 0 counter resets\n"));
  EXPECT_THAT(text, HasSubstr("\"leaf0\"[3] (0x0002c90300000001) lid 5: SymbolErrorCounter >=1205 "
                              "(720/h), LinkDownedCounter 2 (0.0/h); data xmit 1.2 GB/s rcv "
                              "800 MB/s, packets xmit 1000000/s rcv 500000/s; cleared by the port "
                              "1 times\n"));
  EXPECT_THAT(text, HasSubstr("\"spine1\"[7] (0x0002c90300000002) lid 9: no errors; rates after "
                              "the next read\n"));
  // The data counters are not errors, however large.
  EXPECT_THAT(text, Not(HasSubstr("PortXmitData")));
}

TEST(HealthJson, CarriesTheWholeViewWithIbaCounterNamesAndUtcTimes) {
  const auto j = nlohmann::json::parse(formatHealthJson(twoUnhealthy()));
  EXPECT_EQ(j["at"], "2026-12-04T12:03:10Z");
  EXPECT_EQ(j["healthy"], false);
  EXPECT_EQ(j["counts"]["unhealthy"]["errors"], 1);
  EXPECT_EQ(j["counts"]["unhealthy"]["downgraded"], 1);
  EXPECT_EQ(j["counts"]["unhealthy"]["flapping"], 0);
  EXPECT_EQ(j["counts"]["total"], 2);
  EXPECT_EQ(j["counts"]["isolated"], 1);
  EXPECT_EQ(j["counter_sweep"]["interval_s"], 60);
  EXPECT_EQ(j["counter_sweep"]["last_pass_gmps"], 3451);
  EXPECT_EQ(j["counter_sweep"]["last_pass_duration_ms"], 812);
  EXPECT_EQ(j["counter_sweep"]["last_pass_at"], "2026-12-04T12:03:04Z");

  const auto& e = j["unhealthy"][0];
  EXPECT_EQ(e["condition"], "errors");
  EXPECT_EQ(e["port"]["node_guid"], "0x0002c90300000001");
  EXPECT_EQ(e["port"]["port"], 3);
  EXPECT_EQ(e["peer"]["port"], 7);
  EXPECT_EQ(e["counters"], nlohmann::json::array({"SymbolErrorCounter"}));
  EXPECT_EQ(e["action"], "isolate");
  EXPECT_EQ(e["isolated"], false);
  EXPECT_EQ(e["not_isolated_why"], "the only way to 0x0002c90300000009");
  EXPECT_EQ(e["since"], "2026-12-04T11:58:00Z");

  const auto& leaf = j["ports"][0];
  EXPECT_EQ(leaf["lid"], 5);
  EXPECT_EQ(leaf["counters"].size(), health::kCounterCount);
  const auto& symbols = leaf["counters"]["SymbolErrorCounter"];
  EXPECT_EQ(symbols["value"], 65535);
  EXPECT_EQ(symbols["total"], 1205);
  EXPECT_EQ(symbols["total_lower_bound"], true);
  EXPECT_EQ(symbols["last_delta"], 60);
  EXPECT_EQ(symbols["saturated"], true);
  EXPECT_EQ(symbols["per_hour"], 720.0);
  EXPECT_EQ(leaf["counters"]["PortXmitData"]["total"], 123456789012);
  // A port read once has no rates: null, not zero.
  EXPECT_TRUE(j["ports"][1]["counters"]["PortXmitData"]["per_second"].is_null());
}

TEST(HealthJson, AHealthyFabricIsHealthyWithNoPassYet) {
  const auto j = nlohmann::json::parse(formatHealthJson(healthy()));
  EXPECT_EQ(j["healthy"], true);
  EXPECT_TRUE(j["unhealthy"].empty());
  EXPECT_TRUE(j["counter_sweep"]["last_pass_at"].is_null());
}

TEST(HealthCountsTest, CountByConditionAndIsolated) {
  const HealthCounts c = healthCounts(twoUnhealthy());
  EXPECT_EQ(c.unhealthy[static_cast<std::size_t>(health::Condition::Errors)], 1u);
  EXPECT_EQ(c.unhealthy[static_cast<std::size_t>(health::Condition::Downgraded)], 1u);
  EXPECT_EQ(c.total(), 2u);
  EXPECT_EQ(c.isolated, 1u);
}

TEST(StatusHealth, TheTextHasOneHealthLineAndTheJsonTheCountsAndTheSweepsFiguresOnce) {
  DaemonStatus s;
  s.state = "MASTER";
  s.health = healthCounts(twoUnhealthy());
  s.healthCounters.figures = s.health.counterSweep;
  EXPECT_THAT(formatStatus(s),
              HasSubstr("\nhealth: 2 unhealthy (1 errors, 1 downgraded), 1 isolated; counters "
                        "every 60 s, last pass 2026-12-04T12:03:04Z (3,451 GMPs, 0.8 s)\n"));
  const auto j = nlohmann::json::parse(formatStatusJson(s));
  EXPECT_EQ(j["health"]["counts"]["unhealthy"]["errors"], 1);
  EXPECT_EQ(j["health"]["counts"]["isolated"], 1);
  EXPECT_EQ(j["health"]["counters"]["enabled"], true);
  EXPECT_EQ(j["health"]["counters"]["gmps"], 144942);
  EXPECT_FALSE(j["health"].contains("counter_sweep")) << "ibsm health --json has it";
}

}  // namespace
}  // namespace ibsm::sm::control
