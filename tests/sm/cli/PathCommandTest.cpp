// `ibsm path` offline as an operator runs it: a pair of a generated fabric
// walked through the tables `ibsm route` makes (routed again, or read back
// from the dry run's directory: the same answer), names taken as node names,
// GUIDs or LIDs, a multicast tree walked from one member, and bad input
// refused with exit 2 and the file and line.
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

class PathCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = freshTestDir("ibsm-path");
    net_ = dir_ / "fabric.net";
    const Outcome gen =
        runIbsm(fmt::format("topo generate fat-tree --levels 3 --radix 4 -o {}", net_.string()));
    ASSERT_EQ(gen.status, 0) << gen.out;
    const Outcome route = runIbsm(
        fmt::format("route -t {} -o {} -F /dev/null", net_.string(), (dir_ / "dry").string()));
    ASSERT_EQ(route.status, 0) << route.out;
  }
  void TearDown() override { fs::remove_all(dir_); }

  Outcome path(const std::string& args) {
    return runIbsm(fmt::format("path {} -t {} -F /dev/null", args, net_.string()));
  }

  fs::path dir_;
  fs::path net_;
};

TEST_F(PathCommand, APairIsWalkedFromItsHostThroughEverySwitchToTheOther) {
  const Outcome o = path("h0_0_0 h1_1_1 --json");
  ASSERT_EQ(o.status, 0) << o.out;
  const Json j = Json::parse(o.out);
  EXPECT_EQ(j["end"], "delivered");
  EXPECT_EQ(j["from"]["name"], "h0_0_0");
  EXPECT_EQ(j["to"]["name"], "h1_1_1");
  const auto& hops = j["hops"];
  ASSERT_GE(hops.size(), 3u);
  EXPECT_EQ(hops.front()["name"], "h0_0_0");
  EXPECT_TRUE(hops.front()["in_port"].is_null());
  EXPECT_EQ(hops.back()["name"], "h1_1_1");
  EXPECT_TRUE(hops.back()["out_port"].is_null());
  EXPECT_EQ(j["switch_hops"], hops.size() - 2);
  for (std::size_t i = 0; i + 1 < hops.size(); ++i) {
    EXPECT_EQ(hops[i]["vl"], 0) << i;
    EXPECT_EQ(hops[i]["link"]["mtu"], 4096) << i;
    EXPECT_FALSE(hops[i]["link"]["width"].get<std::string>().empty()) << i;
  }
}

TEST_F(PathCommand, TheDryRunsDirectoryGivesTheSameWalkAsRoutingAgain) {
  const Outcome routed = path("h0_0_0 h1_1_1 --json");
  const Outcome read = path(fmt::format("h0_0_0 h1_1_1 --json --dir {}", (dir_ / "dry").string()));
  ASSERT_EQ(read.status, 0) << read.out;
  EXPECT_EQ(read.out, routed.out);
}

// pair-sls beside the dry run's tables (an engine that layers its routes
// over VLs writes it): the pair is walked on the SL the engine gave it, as
// the SA answers it; a line that is not a pair is refused with its line.
TEST_F(PathCommand, TheDryRunsPairSlsGiveThePairItsSl) {
  const fs::path dry = dir_ / "dry";
  const Json plain =
      Json::parse(path(fmt::format("h0_0_0 h1_1_1 --json --dir {}", dry.string())).out);
  ASSERT_EQ(plain["sl"], 0);
  {
    std::ofstream f(dry / "pair-sls");
    f << fmt::format("# by hand\nnode {} port {} dlid {:#06x} sl 1\n",
                     plain["from"]["guid"].get<std::string>(), plain["from"]["port"].get<int>(),
                     plain["dlid"].get<int>());
  }
  const Outcome named = path(fmt::format("h0_0_0 h1_1_1 --json --dir {}", dry.string()));
  ASSERT_EQ(named.status, 0) << named.out;
  EXPECT_EQ(Json::parse(named.out)["sl"], 1);
  // The way back is another pair: SL 0.
  const Outcome back = path(fmt::format("h1_1_1 h0_0_0 --json --dir {}", dry.string()));
  EXPECT_EQ(Json::parse(back.out)["sl"], 0);
  // Asked for another SL: walked so, with the SA's refusal noted.
  const Outcome asked = path(fmt::format("h0_0_0 h1_1_1 --sl 0 --dir {}", dry.string()));
  EXPECT_THAT(asked.out, HasSubstr("the SA answers no path for SL 0"));

  std::ofstream(dry / "pair-sls", std::ios::app) << "node 0x1 port 1 dlid 0x5 sl 99\n";
  const Outcome bad = path(fmt::format("h0_0_0 h1_1_1 --dir {}", dry.string()));
  EXPECT_EQ(bad.status, 2);
  EXPECT_THAT(bad.out, HasSubstr("pair-sls:3: SL 99 is above 15"));
}

// `--dump-format compact`: the directory holds lfts.ibsm in place of
// opensm-lfts.dump, and the walk read from it is the same.
TEST_F(PathCommand, ADryRunInCompactFormGivesTheSameWalk) {
  const fs::path compact = dir_ / "compact";
  const Outcome route = runIbsm(fmt::format("route -t {} -o {} -F /dev/null --dump-format compact",
                                            net_.string(), compact.string()));
  ASSERT_EQ(route.status, 0) << route.out;
  ASSERT_TRUE(fs::exists(compact / "lfts.ibsm"));
  ASSERT_FALSE(fs::exists(compact / "opensm-lfts.dump"));
  const Outcome text = path(fmt::format("h0_0_0 h1_1_1 --json --dir {}", (dir_ / "dry").string()));
  const Outcome read = path(fmt::format("h0_0_0 h1_1_1 --json --dir {}", compact.string()));
  ASSERT_EQ(read.status, 0) << read.out;
  EXPECT_EQ(read.out, text.out);
}

TEST_F(PathCommand, EndsAreNamedByNameGuidOrLid) {
  const Json byName = Json::parse(path("h0_0_0 h1_1_1 --json").out);
  const std::string guid = byName["from"]["port_guid"];
  const int lid = byName["to"]["lid"];
  const Outcome o = path(fmt::format("{} {} --json", guid, lid));
  ASSERT_EQ(o.status, 0) << o.out;
  EXPECT_EQ(Json::parse(o.out)["hops"], byName["hops"]);
  // The text table names the pair and every hop.
  const Outcome text = path("h0_0_0 h1_1_1");
  EXPECT_THAT(text.out, HasSubstr("SL 0: delivered"));
  EXPECT_THAT(text.out, HasSubstr("\"h1_1_1\""));
}

TEST_F(PathCommand, AMulticastGroupIsWalkedFromOneMemberToEveryOther) {
  // The default partition's IPoIB broadcast group, every CA a member.
  const Outcome o = path("h0_0_0 --mgid ff12:401b:ffff::ffff:ffff --json");
  ASSERT_EQ(o.status, 0) << o.out;
  const Json j = Json::parse(o.out);
  EXPECT_EQ(j["mlid"], 0xC000);
  EXPECT_TRUE(j["problems"].empty()) << j["problems"];
  std::size_t cas = 0;
  std::ifstream in(net_);
  for (std::string line; std::getline(in, line);) cas += line.starts_with("Hca");
  EXPECT_EQ(j["receivers"].size(), cas - 1);
  const Outcome fromDir = path(fmt::format(
      "h0_0_0 --mgid ff12:401b:ffff::ffff:ffff --json --dir {}", (dir_ / "dry").string()));
  EXPECT_EQ(fromDir.out, o.out);
}

TEST_F(PathCommand, BadInputIsRefusedWithExit2AndWhatWasWrong) {
  Outcome o = path("h0_0_0 nobody");
  EXPECT_EQ(o.status, 2);
  EXPECT_THAT(o.out, HasSubstr("'nobody': no node has this name"));
  o = path("h0_0_0 --mgid ff12:401b:ffff::1 --json");
  EXPECT_EQ(o.status, 2);
  EXPECT_THAT(o.out, HasSubstr("no multicast group has this MGID"));
  o = path("h0_0_0");
  EXPECT_EQ(o.status, 2);
  // A dump that is not one: its file and line.
  std::ofstream(dir_ / "dry" / "opensm-lfts.dump")
      << "Unicast lids [0x0-0x4] of switch\nnonsense\n";
  o = path(fmt::format("h0_0_0 h1_1_1 --dir {}", (dir_ / "dry").string()));
  EXPECT_EQ(o.status, 2);
  EXPECT_THAT(o.out, HasSubstr("opensm-lfts.dump:"));
}

TEST_F(PathCommand, TablesOfAnotherFabricAreRefused) {
  const fs::path other = dir_ / "other.net";
  ASSERT_EQ(
      runIbsm(fmt::format("topo generate fat-tree --levels 2 --radix 4 -o {}", other.string()))
          .status,
      0);
  const Outcome o = runIbsm(fmt::format("path h0_0 h1_1 -t {} --dir {} -F /dev/null",
                                        other.string(), (dir_ / "dry").string()));
  EXPECT_EQ(o.status, 2) << o.out;
  // Generated GUIDs overlap (both from 0x100000): the dump names a switch the file lacks.
  EXPECT_THAT(o.out, HasSubstr("opensm-lfts.dump: the dump lists switch"));
}

}  // namespace
