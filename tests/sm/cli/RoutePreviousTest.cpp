// `ibsm route --previous`: what a change would move, as an operator asks it
// after a cable is lost: route the fabric as it was, keep the dump, route
// the fabric as it is against that dump, and read report.json.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/sm/cli/IbsmProcess.h"

namespace ibsm::sm::cli::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using Json = nlohmann::json;

Json readJson(const fs::path& p) {
  std::ifstream in(p);
  return Json::parse(in);  // throws on malformed JSON, failing the test
}

class RoutePrevious : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = freshTestDir("ibsm-prev");
    // The fabric before, routed as the live SM would have routed it.
    ASSERT_EQ(generate("before.net", "").status, 0);
    const Outcome r =
        runIbsm(fmt::format("route -t {} -R ftree -o {}", path("before.net"), path("before")));
    ASSERT_EQ(r.status, 0) << r.out;
  }
  void TearDown() override { fs::remove_all(dir_); }

  Outcome generate(const std::string& name, const std::string& extra) {
    return runIbsm(
        fmt::format("topo generate fat-tree --levels 3 --radix 8 {} -o {}", extra, path(name)));
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return dir_ / name;
  }
  // `ibsm route` of `topology` against the dump of the fabric before.
  Outcome routeAgainstBefore(const std::string& topology, const std::string& extra) {
    return runIbsm(fmt::format("route -t {} -R ftree --previous {} {} -o {}", path(topology),
                               path("before/opensm-lfts.dump"), extra, path("after")));
  }

  fs::path dir_;
};

TEST_F(RoutePrevious, TheSameFabricMovesNothing) {
  const Outcome r = routeAgainstBefore("before.net", "--previous-topology " + path("before.net"));
  ASSERT_EQ(r.status, 0) << r.out;
  const Json p = readJson(dir_ / "after/report.json")["previous"];
  EXPECT_EQ(p["switches"]["compared"], 80);  // the radix-8 3-level tree's switches
  EXPECT_GT(p["entries"]["compared"].get<std::uint64_t>(), 0u);
  EXPECT_GT(p["blocks"]["compared"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(p["entries"]["differ"], 0);
  EXPECT_EQ(p["blocks"]["differ"], 0);
  EXPECT_EQ(p["switches"]["changed"], 0);
  EXPECT_EQ(p["busiestBefore"], p["busiestAfter"]);
  EXPECT_THAT(r.out, HasSubstr("entries that differ: 0 of "));
}

TEST_F(RoutePrevious, OneCableCutMovesSomeBlocksAndTheBusiestLinkIsMeasuredOnBothFabrics) {
  ASSERT_EQ(generate("after.net", "--degrade 1 --seed 3").status, 0);
  const Outcome r = routeAgainstBefore("after.net", "--previous-topology " + path("before.net"));
  ASSERT_EQ(r.status, 0) << r.out;
  const Json report = readJson(dir_ / "after/report.json");
  const Json& p = report["previous"];
  const auto entries = p["entries"]["differ"].get<std::uint64_t>();
  const auto blocks = p["blocks"]["differ"].get<std::uint64_t>();
  EXPECT_GT(blocks, 0u);
  EXPECT_LE(blocks, entries);
  EXPECT_LE(entries, p["entries"]["compared"].get<std::uint64_t>());
  EXPECT_LE(blocks, p["blocks"]["compared"].get<std::uint64_t>());
  EXPECT_GT(p["switches"]["changed"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(p["switches"]["gone"], 0);
  EXPECT_EQ(p["switches"]["new"], 0);
  EXPECT_FALSE(p["mostChanged"].empty());
  EXPECT_LE(p["mostChanged"][0]["blocks"].get<std::uint64_t>(), blocks);
  // Before: the previous tables on the fabric before, as its own run found them.
  const Json before = readJson(dir_ / "before/report.json");
  EXPECT_EQ(p["busiestBefore"]["routes"], before["linkLoad"]["max"]);
  EXPECT_EQ(p["busiestBefore"]["link"], before["linkLoad"]["busiest"][0]["link"]);
  EXPECT_EQ(p["busiestAfter"]["routes"], report["linkLoad"]["max"]);
  EXPECT_THAT(r.out, HasSubstr(fmt::format("blocks that differ: {} of", blocks)));
}

// As the live SM routes after a lost cable: the previous tables are the
// hint, so only entries whose path crossed the cable move; --rebalance
// computes the tables afresh and moves more (ftree keeps D-mod-K's closed
// form for most destinations of a tree that lost a cable, so fresh tables
// are already close to the previous ones, but not that close).
TEST_F(RoutePrevious, ALostCableMovesOnlyTheEntriesThatUsedItAndRebalanceMovesMore) {
  ASSERT_EQ(generate("after.net", "--degrade 1 --seed 3").status, 0);
  const std::string before = "--previous-topology " + path("before.net");
  const Outcome kept = routeAgainstBefore("after.net", before);
  ASSERT_EQ(kept.status, 0) << kept.out;
  const Json k = readJson(dir_ / "after/report.json")["previous"];
  EXPECT_EQ(k["routedAs"], "kept");
  EXPECT_EQ(k["change"], "capacity-lost");
  EXPECT_GT(k["entriesRerouted"].get<std::uint64_t>(), 0u);
  EXPECT_THAT(kept.out, HasSubstr("routed under change (capacity-lost): "));

  fs::remove_all(dir_ / "after");
  const Outcome fresh = routeAgainstBefore("after.net", before + " --rebalance");
  ASSERT_EQ(fresh.status, 0) << fresh.out;
  const Json f = readJson(dir_ / "after/report.json")["previous"];
  EXPECT_EQ(f["routedAs"], "fresh");
  EXPECT_THAT(fresh.out, HasSubstr("routed afresh (--rebalance"));
  EXPECT_LT(k["blocks"]["differ"].get<std::uint64_t>(), f["blocks"]["differ"].get<std::uint64_t>());
  EXPECT_LE(k["entriesRerouted"].get<std::uint64_t>(),
            k["entries"]["compared"].get<std::uint64_t>());
}

// The cable back: capacity gained, so the tables are exactly what a fresh
// run of the whole fabric gives, and a flap ends where it started.
TEST_F(RoutePrevious, ACableThatComesBackRestoresTheFreshTables) {
  ASSERT_EQ(generate("cut.net", "--degrade 1 --seed 3").status, 0);
  const Outcome cut = runIbsm(fmt::format(
      "route -t {} -R ftree --previous {} --previous-topology {} -o {}", path("cut.net"),
      path("before/opensm-lfts.dump"), path("before.net"), path("cut")));
  ASSERT_EQ(cut.status, 0) << cut.out;
  const Outcome back = runIbsm(
      fmt::format("route -t {} -R ftree --previous {} --previous-topology {} -o {}",
                  path("before.net"), path("cut/opensm-lfts.dump"), path("cut.net"), path("back")));
  ASSERT_EQ(back.status, 0) << back.out;
  const Json p = readJson(dir_ / "back/report.json")["previous"];
  EXPECT_EQ(p["change"], "capacity-gained");
  EXPECT_EQ(p["routedAs"], "fresh-fallback");
  const auto slurp = [](const fs::path& f) {
    std::ifstream in(f);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  EXPECT_EQ(slurp(dir_ / "back/opensm-lfts.dump"), slurp(dir_ / "before/opensm-lfts.dump"));
}

TEST_F(RoutePrevious, WithoutThePreviousFabricTheBusiestLinkBeforeIsNotGuessed) {
  ASSERT_EQ(generate("after.net", "--degrade 1 --seed 3").status, 0);
  const Outcome r = routeAgainstBefore("after.net", "");
  ASSERT_EQ(r.status, 0) << r.out;
  const Json p = readJson(dir_ / "after/report.json")["previous"];
  EXPECT_TRUE(p["busiestBefore"].is_null());
  EXPECT_TRUE(p["busiestAfter"].is_object());
  EXPECT_THAT(r.out, HasSubstr("busiest link before: not computed, it needs the fabric the "
                               "previous tables were routed for (--previous-topology)"));
}

TEST_F(RoutePrevious, ASwitchTheFabricNoLongerHasIsCountedAndNamed) {
  std::ifstream in(dir_ / "before/opensm-lfts.dump");
  std::stringstream dump;
  dump << in.rdbuf()
       << "Unicast lids [0-1] of switch Lid 900 guid 0x0000000000abcdef ('unplugged'):\n"
          "0x0001 001 # gone\n1 lids dumped\n";
  write("with-gone.dump", dump.str());
  const Outcome r = runIbsm(fmt::format("route -t {} -R ftree --previous {} -o {}",
                                        path("before.net"), path("with-gone.dump"), path("after")));
  ASSERT_EQ(r.status, 0) << r.out;
  const Json p = readJson(dir_ / "after/report.json")["previous"];
  EXPECT_EQ(p["switches"]["gone"], 1);
  EXPECT_EQ(p["switchesGone"][0]["description"], "unplugged");
  EXPECT_EQ(p["switchesGone"][0]["guid"], "0x0000000000abcdef");
  EXPECT_EQ(p["entries"]["differ"], 0);
  EXPECT_THAT(r.out, HasSubstr("80 switches compared, 1 gone, 0 new"));
  EXPECT_THAT(r.out, HasSubstr("gone: \"unplugged\" (0x0000000000abcdef)"));
}

TEST_F(RoutePrevious, AMalformedPreviousDumpNamesFileAndLineAndWritesNothing) {
  const auto bad = write("bad.dump",
                         "Unicast lids [0-2] of switch Lid 1 guid 0x0000000000200000 ('s'):\n"
                         "0x0001 000\n"
                         "0x0002 port-two\n");
  const Outcome r = runIbsm(fmt::format("route -t {} --previous {} -o {}", path("before.net"),
                                        bad.string(), path("after")));
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_THAT(r.out, HasSubstr(bad.string() + ":3: expected an out port"));
  EXPECT_FALSE(fs::exists(dir_ / "after"));
}

// The compact form of the same tables (`--dump-format compact`) is read
// back by --previous to the same report, whatever name the file has.
TEST_F(RoutePrevious, TheCompactFormGivesTheSameReportAsTheOpenSmForm) {
  const Outcome c = runIbsm(fmt::format("route -t {} -R ftree --dump-format compact -o {}",
                                        path("before.net"), path("before-compact")));
  ASSERT_EQ(c.status, 0) << c.out;
  ASSERT_FALSE(fs::exists(dir_ / "before-compact/opensm-lfts.dump"));
  fs::rename(dir_ / "before-compact/lfts.ibsm", dir_ / "held.bin");
  ASSERT_EQ(generate("after.net", "--degrade 1 --seed 3").status, 0);
  const std::string before = "--previous-topology " + path("before.net");
  ASSERT_EQ(routeAgainstBefore("after.net", before).status, 0);
  Json text = readJson(dir_ / "after/report.json")["previous"];
  const Outcome r =
      runIbsm(fmt::format("route -t {} -R ftree --previous {} {} -o {}", path("after.net"),
                          path("held.bin"), before, path("after-compact")));
  ASSERT_EQ(r.status, 0) << r.out;
  Json compact = readJson(dir_ / "after-compact/report.json")["previous"];
  EXPECT_EQ(compact["tablesFile"], path("held.bin"));
  EXPECT_GT(compact["entriesRerouted"].get<std::uint64_t>(), 0u);
  text.erase("tablesFile");
  compact.erase("tablesFile");
  EXPECT_EQ(compact, text);
}

TEST_F(RoutePrevious, ACompactFileCutShortIsRefusedNamingItAndWritesNothing) {
  ASSERT_EQ(runIbsm(fmt::format("route -t {} -R ftree --dump-format compact -o {}",
                                path("before.net"), path("compact")))
                .status,
            0);
  std::ifstream in(dir_ / "compact/lfts.ibsm", std::ios::binary);
  std::string bytes(std::istreambuf_iterator<char>(in), {});
  const auto cut = write("cut.ibsm", bytes.substr(0, bytes.size() / 2));
  const Outcome r = runIbsm(fmt::format("route -t {} --previous {} -o {}", path("before.net"),
                                        cut.string(), path("after")));
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_THAT(r.out, HasSubstr(cut.string() + ": at byte "));
  EXPECT_THAT(r.out, HasSubstr("it is cut short"));
  EXPECT_FALSE(fs::exists(dir_ / "after"));
}

TEST_F(RoutePrevious, AFileWithNoSwitchIsRefused) {
  const auto empty = write("empty.dump", "# nothing\n");
  const Outcome r = runIbsm(fmt::format("route -t {} --previous {} -o {}", path("before.net"),
                                        empty.string(), path("after")));
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_THAT(r.out, HasSubstr(empty.string() + ":1: expected the LFTs the fabric held"));
  EXPECT_FALSE(fs::exists(dir_ / "after"));
}

TEST_F(RoutePrevious, TablesThatDoNotFitThePreviousFabricAreRefused) {
  const Outcome other =
      runIbsm(fmt::format("topo generate fat-tree --levels 2 --radix 4 -o {}", path("other.net")));
  ASSERT_EQ(other.status, 0) << other.out;
  const Outcome r = routeAgainstBefore("before.net", "--previous-topology " + path("other.net"));
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_THAT(r.out, HasSubstr(fmt::format("{}: the tables do not fit {}",
                                           path("before/opensm-lfts.dump"), path("other.net"))));
  EXPECT_FALSE(fs::exists(dir_ / "after"));
}

// LIDs this run gives that the previous tables were not routed for: entries
// compared by LID would be other destinations, so the operator is told, and
// the report on the previous fabric is refused rather than made up.
TEST_F(RoutePrevious, TablesRoutedForOtherLidsAreNamedAndNotJudgedOnThePreviousFabric) {
  // The LIDs of the run before, but for one switch's.
  std::ifstream in(dir_ / "before/guid2lid");
  std::string kept;
  for (std::string line; std::getline(in, line);)
    if (!line.starts_with("0x0000000000200000 ")) kept += line + "\n";
  const auto g2l = write("moved.guid2lid", kept + "0x0000000000200000 0x02bc 0x02bc\n");
  const Outcome warned = routeAgainstBefore("before.net", "--guid2lid " + g2l.string());
  ASSERT_EQ(warned.status, 0) << warned.out;
  const Json p = readJson(dir_ / "after/report.json")["previous"];
  EXPECT_EQ(p["switches"]["lidsChanged"], 1);
  EXPECT_EQ(p["switchLidsChanged"][0]["guid"], "0x0000000000200000");
  EXPECT_THAT(warned.out, HasSubstr("warning: 1 switches have other LIDs than the previous "
                                    "tables give"));

  fs::remove_all(dir_ / "after");
  const Outcome refused = routeAgainstBefore(
      "before.net",
      fmt::format("--guid2lid {} --previous-topology {}", g2l.string(), path("before.net")));
  EXPECT_EQ(refused.status, 2) << refused.out;
  EXPECT_THAT(refused.out, HasSubstr("(0x0000000000200000) has LID"));
  EXPECT_THAT(refused.out, HasSubstr("but LID 700 in " + path("before.net")));
  EXPECT_FALSE(fs::exists(dir_ / "after"));
}

TEST_F(RoutePrevious, ThePreviousFabricAloneIsRefused) {
  const Outcome r = runIbsm(fmt::format("route -t {} --previous-topology {} -o {}",
                                        path("before.net"), path("before.net"), path("after")));
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_THAT(r.out, HasSubstr("--previous-topology requires --previous"));
}

// ibroute stops with an "iberror:" line when a switch stops answering
// mid-dump; an operator who kept its output (2>&1) has the tables up to it.
// They are read and compared; the table cut short is left out and named.
TEST_F(RoutePrevious, ADumpThatEndsWithAnIbErrorIsReadUpToItAndSaysWhere) {
  std::ifstream in(dir_ / "before/opensm-lfts.dump");
  std::string text, line;
  std::size_t headers = 0, lines = 0, cutAt = 0;
  std::string cutSwitch;
  while (std::getline(in, line)) {
    if (line.starts_with("Unicast lids") && ++headers == 3) {
      cutAt = lines + 4;  // the header and three entries of the third table
      cutSwitch = line.substr(line.find(" guid 0x") + 8, 16);
    }
    if (cutAt != 0 && lines == cutAt) break;
    text += line + "\n";
    ++lines;
  }
  ASSERT_EQ(headers, 3u);
  text += "ibroute: iberror: failed: dump tables: Unicast forwarding table get failed\n";
  const auto cut = write("cut.dump", text);
  const Outcome r = runIbsm(fmt::format("route -t {} -R ftree --previous {} -o {}",
                                        path("before.net"), cut.string(), path("after")));
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string where =
      fmt::format("{}:{}: the dump stops in the table of switch ", cut.string(), lines + 1);
  EXPECT_THAT(r.out, HasSubstr("truncated: " + where));
  EXPECT_THAT(r.out, HasSubstr(fmt::format("(0x{}), which is left out: ibroute: iberror: failed",
                                           cutSwitch)));
  const Json p = readJson(dir_ / "after/report.json")["previous"];
  ASSERT_EQ(p["truncated"].size(), 1u);
  EXPECT_THAT(p["truncated"][0].get<std::string>(), HasSubstr(where));
  EXPECT_EQ(p["switches"]["compared"], 2);  // the two whole tables
  EXPECT_EQ(p["switches"]["new"], 78);      // the cut one and those never reached
}

}  // namespace
}  // namespace ibsm::sm::cli::testing
