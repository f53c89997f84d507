// config::planInputs: what `ibsm route` and `ibsm run` both plan from. The
// config's routing keys reach the plan, the flags win over them, and every
// refusal is worded as the commands have always printed it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <ibsm/Engines.h>

#include "sm/config/PlanSettings.h"
#include "tests/sm/config/ScratchFiles.h"

namespace ibsm::sm::config {
namespace {

using ::testing::HasSubstr;

class PlanSettings : public testing::ScratchFiles {
 protected:
  static Config parsed(const std::string& toml) {
    auto c = parseConfig(toml, "ibsm.toml");
    EXPECT_TRUE(c) << c.error().message;
    return c.value_or(Config{});
  }
  static Result<PlanInputs> plan(const Config& c, const PlanOverrides& o = {}) {
    return planInputs(c, o, defaultRegistry());
  }
};

TEST_F(PlanSettings, TheConfigsRoutingKeysBecomeThePlan) {
  const auto roots = write("roots", "# spines\n0x0002c90000000010\n0x0002c90000000011\n");
  const auto p = plan(parsed(fmt::format(
      "[routing]\nengine = [\"ftree\", \"updn\"]\nlmc = 2\nmax_vls = 4\nroot_guid_file = \"{}\"\n",
      roots.string())));
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->engines, (std::vector<std::string>{"ftree", "updn"}));
  EXPECT_EQ(p->lmc, 2);
  EXPECT_EQ(p->routing.maxVls, 4);
  EXPECT_EQ(p->routing.rootGuids,
            (std::vector<Guid>{Guid{0x0002c90000000010}, Guid{0x0002c90000000011}}));
  EXPECT_TRUE(p->guid2lid.empty());
}

TEST_F(PlanSettings, DefaultsPlanWithTheAutoEngineAndTheConfigsVlBudget) {
  const auto p = plan(Config{});
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->engines, std::vector<std::string>{"auto"});
  EXPECT_EQ(p->lmc, 0);
  EXPECT_EQ(p->routing.maxVls, RoutingConfig{}.maxVls);
  EXPECT_TRUE(p->routing.rootGuids.empty());
}

TEST_F(PlanSettings, RoutingThreadsReachThePlanAndTheFlagWins) {
  EXPECT_EQ(plan(Config{})->routing.threads, 0u);  // every core
  const Config c = parsed("[routing]\nthreads = 3\n");
  EXPECT_EQ(plan(c)->routing.threads, 3u);
  EXPECT_EQ(plan(c, {.threads = 1u})->routing.threads, 1u);
  EXPECT_EQ(plan(c, {.threads = 0u})->routing.threads, 0u);
}

TEST_F(PlanSettings, FlagsWinOverTheConfig) {
  const auto fromConfig = write("config-roots", "0x10\n");
  const auto fromFlag = write("flag-roots", "0x20\n");
  const Config c = parsed(fmt::format(
      "[routing]\nengine = \"ftree\"\nlmc = 1\nroot_guid_file = \"{}\"\n", fromConfig.string()));
  const auto p = plan(c, {.engines = {"minhop", "updn"}, .lmc = 3, .rootGuidFile = fromFlag});
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->engines, (std::vector<std::string>{"minhop", "updn"}));
  EXPECT_EQ(p->lmc, 3);
  EXPECT_EQ(p->routing.rootGuids, std::vector<Guid>{Guid{0x20}});
}

TEST_F(PlanSettings, AnEmptyRootGuidFileKeyMeansNoRoots) {
  const auto p = plan(parsed("[routing]\nroot_guid_file = \"\"\n"));
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_TRUE(p->routing.rootGuids.empty());
}

TEST_F(PlanSettings, TheGuid2LidFlagIsReadAsLidsToKeep) {
  const auto saved = write("guid2lid", "0x0002c90000000001 0x0005 0x0005\n");
  const auto p = plan(Config{}, {.guid2lid = saved});
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_EQ(p->guid2lid.size(), 1u);
  EXPECT_EQ(p->guid2lid.at(Guid{0x0002c90000000001}).first, Lid{5});
}

TEST_F(PlanSettings, AnLmcFlagOutOfRangeIsRefusedByName) {
  for (int lmc : {-1, 8}) {
    const auto p = plan(Config{}, {.lmc = lmc});
    ASSERT_FALSE(p);
    EXPECT_EQ(p.error().message, fmt::format("--lmc {}: expected 0 to 7", lmc));
  }
}

TEST_F(PlanSettings, AnUnknownEngineIsRefusedByNameWhereverItIsWritten) {
  const auto fromFlag = plan(Config{}, {.engines = {"ftree", "fattree"}});
  ASSERT_FALSE(fromFlag);
  EXPECT_THAT(fromFlag.error().message,
              HasSubstr("unknown routing engine 'fattree': expected one of "));
  EXPECT_THAT(fromFlag.error().message, HasSubstr("minhop"));

  const auto fromConfig = plan(parsed("[routing]\nengine = \"torus\"\n"));
  ASSERT_FALSE(fromConfig);
  EXPECT_THAT(fromConfig.error().message, HasSubstr("unknown routing engine 'torus'"));
}

TEST_F(PlanSettings, ABadRootGuidFileNamesFileAndLine) {
  const auto roots = write("roots", "0x10\nspine-1\n");
  const auto p = plan(Config{}, {.rootGuidFile = roots});
  ASSERT_FALSE(p);
  EXPECT_THAT(p.error().message, HasSubstr(roots.string() + ":2"));
}

TEST_F(PlanSettings, AMissingFileIsNamed) {
  const auto missing = path("no-such-roots");
  const auto roots =
      plan(parsed(fmt::format("[routing]\nroot_guid_file = \"{}\"\n", missing.string())));
  ASSERT_FALSE(roots);
  EXPECT_THAT(roots.error().message, HasSubstr(missing.string()));

  const auto lids = plan(Config{}, {.guid2lid = path("no-such-guid2lid")});
  ASSERT_FALSE(lids);
  EXPECT_THAT(lids.error().message, HasSubstr("no-such-guid2lid"));
}

}  // namespace
}  // namespace ibsm::sm::config
