// `ibsm route --qos-policy` as an operator runs it: every ordered CA port
// pair counted under the level its plain PathRecord gets, in report.json
// and the summary; a broken policy refused with its file and line, nothing
// written.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tests/sm/cli/IbsmProcess.h"

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

struct Outcome {
  int status{-1};
  std::string out;
};

Outcome ibsm(const std::string& args) {
  Outcome r;
  FILE* p = ::popen(fmt::format("{} {} 2>&1", IBSM_BINARY, args).c_str(), "r");
  if (!p) return r;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) r.out.append(buf, n);
  const int st = ::pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

class RouteQos : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = ibsm::sm::cli::testing::freshTestDir("ibsm-route-qos"); }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return dir_ / name;
  }
  std::string route(const fs::path& policy, const std::string& extra = "") {
    return fmt::format(
        "route --topology {}/fat-tree-3level-k8.ibnetdiscover --out {} "
        "--qos-policy {} {}",
        IBSM_TEST_TOPOLOGIES, (dir_ / "out").string(), policy.string(), extra);
  }
  fs::path dir_;
};

// Without a partitions file every port is a full member of 0x7fff, so
// every pair's plain PathRecord carries it; a QoS-class rule never holds.
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
    name: ipoib
    sl: 1
  end-qos-level
end-qos-levels
qos-match-rules
  qos-match-rule
    source: hosts
    qos-class: 5
    qos-level-name: mpi
  end-qos-match-rule
end-qos-match-rules
qos-ulps
  ipoib : 1
end-qos-ulps
)";

TEST_F(RouteQos, CountsEveryCaPairUnderItsLevel) {
  const auto policy = write("qos-policy.conf", kPolicy);
  const Outcome r = ibsm(route(policy, "--json"));
  ASSERT_EQ(r.status, 0) << r.out;
  std::ifstream in(dir_ / "out" / "report.json");
  const auto report = nlohmann::json::parse(in);
  const std::uint64_t cas = report["fabric"]["caPorts"];
  ASSERT_GT(cas, 1u);
  const auto& qos = report["qos"];
  EXPECT_EQ(qos["policy"], policy.string());
  EXPECT_EQ(qos["caPairs"], cas * (cas - 1));
  EXPECT_EQ(qos["noSharedPKey"], 0u);
  std::map<std::string, std::uint64_t> byLevel;
  for (const auto& l : qos["levels"]) byLevel[l["name"]] = l["pairs"];
  // The qos-ulps `ipoib : 1` line is a rule on PKey 0x7fff: a plain
  // PathRecord names no PKey, so (as the SA and OpenSM match it) every pair
  // gets DEFAULT; the mpi rule wants a QoS class none was asked.
  EXPECT_EQ(byLevel["DEFAULT"], cas * (cas - 1));
  EXPECT_EQ(byLevel["mpi"], 0u);
  EXPECT_EQ(byLevel["ULP_SL1"], 0u);
}

TEST_F(RouteQos, TheSummarySaysTheLevelsBesideTheTotal) {
  const Outcome r = ibsm(route(write("qos-policy.conf", kPolicy)));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("16256 CA port pairs, a plain PathRecord each: DEFAULT (SL 0) "
                               "16256, mpi (SL 2) 0, ipoib (SL 1) 0, ULP_SL1 (SL 1) 0"));
}

TEST_F(RouteQos, ABrokenPolicyIsRefusedWithItsLineAndNothingWritten) {
  const auto policy = write("bad.conf", "qos-levels\n  qos-level\n    name: DEFAULT\n    sl: 16\n");
  const Outcome r = ibsm(route(policy));
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.out, HasSubstr(policy.string() + ":4: sl: expected a service level 0-15"));
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

TEST_F(RouteQos, WithoutAPolicyTheReportHasNoQos) {
  const Outcome r =
      ibsm(fmt::format("route --topology {}/fat-tree-3level-k8.ibnetdiscover --out {} --json",
                       IBSM_TEST_TOPOLOGIES, (dir_ / "out").string()));
  ASSERT_EQ(r.status, 0) << r.out;
  std::ifstream in(dir_ / "out" / "report.json");
  EXPECT_FALSE(nlohmann::json::parse(in).contains("qos"));
}

// With the dragonfly's VL layers and qos.enabled, each QoS class gets its own
// block of layers; the dry run says how many VLs the classes need and which
// each class uses, walks one SL of each class for credit loops, and refuses
// classes that do not fit the ports' VLCap (VL0-7 here) with the numbers.
std::string dragonflyQos(const fs::path& config, const fs::path& out) {
  return fmt::format("route --topology {}/dragonfly-a4-p2-h2.net --out {} -F {} --check",
                     IBSM_TEST_TOPOLOGIES, out.string(), config.string());
}

TEST_F(RouteQos, TwoClassesOnTheDragonflysLayersEachHaveTheirOwnVls) {
  const auto config = write("ibsm.toml",
                            "[routing]\nengine = \"dragonfly\"\n[qos]\nenabled = true\n"
                            "sl2vl = \"0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1\"\n");
  const Outcome r = ibsm(dragonflyQos(config, dir_ / "out"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("qos VLs: 2 classes x 2 routing VL layers = 4 VLs\n"
                               "  class of QoS VL 0 (SLs 0-7): VLs 0-1\n"
                               "  class of QoS VL 1 (SLs 8-15): VLs 2-3\n"));
  EXPECT_THAT(r.out, HasSubstr("credit loops: none"));
  std::ifstream in(dir_ / "out" / "report.json");
  const auto report = nlohmann::json::parse(in);
  EXPECT_EQ(report["creditLoops"]["sls"], nlohmann::json::parse("[0, 8]"));
  EXPECT_EQ(report["qosVls"]["vlsNeeded"], 4);
  EXPECT_EQ(report["qosVls"]["perClass"][1]["firstVl"], 2);
}

TEST_F(RouteQos, ClassesTooManyForTheDragonflysVlCapAreRefusedWithTheVlsNeeded) {
  const auto config = write("ibsm.toml",
                            "[routing]\nengine = \"dragonfly\"\n[qos]\nenabled = true\n"
                            "sl2vl = \"0,0,0,1,1,1,2,2,2,3,3,3,4,4,4,4\"\n");
  const Outcome r = ibsm(dragonflyQos(config, dir_ / "out"));
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_THAT(r.out, HasSubstr("qos.sl2vl"));
  EXPECT_THAT(r.out, HasSubstr("5 classes x 2 VL layers need 10 VLs, but"));
  EXPECT_THAT(r.out, HasSubstr("allows 8 (its link's VLCap runs 8 data VLs)"));
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

}  // namespace
