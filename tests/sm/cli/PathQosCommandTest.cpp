// `ibsm path` offline under QoS (issue 30): the SL walked is the QoS level's
// the SA would answer for the query the options name (--qos-class,
// --service-id, --pkey, --sl), named beside it; every hop's VL is the one
// the plan's SL2VL tables give (qos.enabled: every port's, the source CA's
// included); the dry run's directory gives the same walk as routing again.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/sm/cli/IbsmProcess.h"

namespace {

namespace fs = std::filesystem;
using ibsm::sm::cli::testing::freshTestDir;
using ibsm::sm::cli::testing::Outcome;
using ibsm::sm::cli::testing::runIbsm;
using Json = nlohmann::json;
using ::testing::HasSubstr;

// DEFAULT on SL 0; a query from a host naming QoS class 5 gets mpi (SL 2),
// one naming a ServiceID of 0x1000-0x10ff bulk (SL 3).
constexpr const char* kPolicy = R"(port-groups
  port-group
    name: hosts
    node-type: CA
  end-port-group
end-port-groups
qos-levels
  qos-level
    name: DEFAULT
    sl: 0
  end-qos-level
  qos-level
    name: mpi
    sl: 2
  end-qos-level
  qos-level
    name: bulk
    sl: 3
  end-qos-level
end-qos-levels
qos-match-rules
  qos-match-rule
    source: hosts
    qos-class: 5
    qos-level-name: mpi
  end-qos-match-rule
  qos-match-rule
    service-id: 0x1000-0x10ff
    qos-level-name: bulk
  end-qos-match-rule
end-qos-match-rules
)";

class PathQosCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = freshTestDir("ibsm-path-qos");
    net_ = dir_ / "fabric.net";
    ASSERT_EQ(
        runIbsm(fmt::format("topo generate fat-tree --levels 3 --radix 4 -o {}", net_.string()))
            .status,
        0);
    std::ofstream(dir_ / "qos-policy.conf") << kPolicy;
    // SL s on VL (s + 1) % 4 everywhere: a VL other than the SL's shows
    // the tables were read.
    std::ofstream(dir_ / "ibsm.toml") << fmt::format(
        "[qos]\nenabled = true\npolicy_file = \"{}\"\n"
        "sl2vl = \"1,2,3,0,1,2,3,0,1,2,3,0,1,2,3,0\"\n",
        (dir_ / "qos-policy.conf").string());
  }
  void TearDown() override { fs::remove_all(dir_); }

  Outcome path(const std::string& args) {
    return runIbsm(fmt::format("path h0_0_0 h1_1_1 --json -t {} -F {} {}", net_.string(),
                               (dir_ / "ibsm.toml").string(), args));
  }
  // Every link of the walk on `vl`, each hop coming in on the VL before.
  static void expectEveryLinkOn(const Json& j, int vl) {
    const auto& hops = j["hops"];
    ASSERT_GE(hops.size(), 3U);
    for (std::size_t i = 0; i + 1 < hops.size(); ++i) {
      EXPECT_EQ(hops[i]["vl"], vl) << i;
      if (i > 0) {
        EXPECT_EQ(hops[i]["in_vl"], vl) << i;
      }
    }
  }

  fs::path dir_;
  fs::path net_;
};

TEST_F(PathQosCommand, ThePlainQueryWalksTheDefaultLevelsSl) {
  const Outcome o = path("");
  ASSERT_EQ(o.status, 0) << o.out;
  const Json j = Json::parse(o.out);
  EXPECT_EQ(j["sl"], 0);
  EXPECT_EQ(j["qos_level"], "DEFAULT");
  EXPECT_TRUE(j["note"].is_null());
  expectEveryLinkOn(j, 1);
}

TEST_F(PathQosCommand, TheQosClassAndServiceIdPickTheirLevels) {
  const Outcome mpi = path("--qos-class 5");
  ASSERT_EQ(mpi.status, 0) << mpi.out;
  const Json m = Json::parse(mpi.out);
  EXPECT_EQ(m["sl"], 2);
  EXPECT_EQ(m["qos_level"], "mpi");
  expectEveryLinkOn(m, 3);

  const Json bulk = Json::parse(path("--service-id 0x1010").out);
  EXPECT_EQ(bulk["sl"], 3);
  EXPECT_EQ(bulk["qos_level"], "bulk");
  expectEveryLinkOn(bulk, 0);
  EXPECT_EQ(Json::parse(path("--service-id 0x1100").out)["qos_level"], "DEFAULT");
}

TEST_F(PathQosCommand, AnSlOtherThanTheLevelsIsWalkedWithANote) {
  const Outcome o = runIbsm(fmt::format("path h0_0_0 h1_1_1 --qos-class 5 --sl 1 -t {} -F {}",
                                        net_.string(), (dir_ / "ibsm.toml").string()));
  ASSERT_EQ(o.status, 0) << o.out;
  EXPECT_THAT(o.out, HasSubstr("SL 1 (QoS level mpi): delivered"));
  EXPECT_THAT(o.out, HasSubstr("note: QoS level mpi gives SL 2: the SA answers no path for SL 1"));
}

TEST_F(PathQosCommand, TheDryRunsDirectoryGivesTheSameWalk) {
  const Outcome route =
      runIbsm(fmt::format("route -t {} -o {} -F {}", net_.string(), (dir_ / "dry").string(),
                          (dir_ / "ibsm.toml").string()));
  ASSERT_EQ(route.status, 0) << route.out;
  const Outcome routed = path("--qos-class 5");
  const Outcome read = path(fmt::format("--qos-class 5 --dir {}", (dir_ / "dry").string()));
  ASSERT_EQ(read.status, 0) << read.out;
  EXPECT_EQ(read.out, routed.out);
}

TEST_F(PathQosCommand, ABadQueryValueIsRefusedWithExit2) {
  const Outcome pkey = path("--pkey 0x1ffff");
  EXPECT_EQ(pkey.status, 2);
  EXPECT_THAT(pkey.out, HasSubstr("--pkey: expected a PKey"));
  const Outcome sid = path("--service-id twelve");
  EXPECT_EQ(sid.status, 2);
  EXPECT_THAT(sid.out, HasSubstr("--service-id: expected a ServiceID"));
}

}  // namespace
