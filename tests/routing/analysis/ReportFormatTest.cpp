// The report's two faces: JSON that a strict parser reads back with the
// figures in it, and lines that tell an operator what is wrong.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <ibsm/Report.h>

#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>
#include <sstream>

#include "tests/routing/analysis/HandTables.h"
#include "tests/support/FabricBuilder.h"

namespace ibsm {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

boost::property_tree::ptree parseJson(const std::string& text) {
  std::istringstream in(text);
  boost::property_tree::ptree tree;
  boost::property_tree::read_json(in, tree);  // throws on malformed JSON
  return tree;
}

// Two switches, a host on each, a table that strands one host: a report
// with something in every section.
RouteReport brokenReport(std::string hostName) {
  testing::FabricBuilder b;
  b.addSwitch("s0");
  b.addSwitch("s1");
  b.cable("s0", 2, "s1", 2);
  b.addHost("h0", "s0", 1);
  b.addHost(hostName, "s1", 1);
  const Fabric f = b.build();
  testing::HandTables t(f);
  t.deliverLocally().toward("s1", "s0", 2);  // s0 has no way to s1 or its host
  t.result().engine = "hand";
  t.result().notes = {"a note"};
  return analyseRoutes(f, t.result());
}

TEST(ReportJson, IsValidJsonCarryingTheFigures) {
  RouteReport r = brokenReport("h1");
  r.reportSeconds = 0.25;
  r.analysisSeconds = 0.125;
  r.peakRssKiB = 2048;
  const auto tree = parseJson(reportJson(r));
  EXPECT_EQ(tree.get<std::string>("engine"), "hand");
  EXPECT_EQ(tree.get<std::uint64_t>("fabric.switches"), 2u);
  EXPECT_EQ(tree.get<std::uint64_t>("pairs.routed"), r.routedPairs());
  EXPECT_EQ(tree.get<std::uint64_t>("pairs.unreachable"), r.unreachablePairs());
  EXPECT_EQ(tree.get<std::uint64_t>("pairs.ca-to-ca.unreachable"), 1u);
  EXPECT_EQ(tree.get<std::uint64_t>("unreachableByReason.no-entry"), r.unreachablePairs());
  EXPECT_EQ(tree.get<std::string>("unreachableExamples..reason"), "no-entry");
  EXPECT_EQ(tree.get<std::uint64_t>("linkLoad.links"), 2u);
  EXPECT_EQ(tree.get<std::uint64_t>("linkLoad.max"), 1u);
  EXPECT_EQ(tree.get<std::string>("creditLoops.acyclic"), "true");
  EXPECT_DOUBLE_EQ(tree.get<double>("reportSeconds"), 0.25);
  EXPECT_DOUBLE_EQ(tree.get<double>("analysisSeconds"), 0.125);
  EXPECT_EQ(tree.get<std::uint64_t>("peakRssKiB"), 2048u);
}

TEST(ReportJson, CarriesTheTopologyReadersWarnings) {
  RouteReport r = brokenReport("h1");
  const auto clean = parseJson(reportJson(r));
  const auto none = clean.get_child_optional("warnings");  // refers into clean
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
  r.inputWarnings = {"cap.txt:1: skipped 1 line that is not topology (a shell prompt): \"$ x\""};
  const auto tree = parseJson(reportJson(r));
  std::vector<std::string> warnings;
  for (const auto& [key, w] : tree.get_child("warnings")) warnings.push_back(w.data());
  EXPECT_EQ(warnings, r.inputWarnings);
  EXPECT_THAT(reportSummary(r), HasSubstr("input: 1 warning about the topology file"));
}

TEST(ReportJson, EscapesNodeDescriptionsThatAreNotPlainText) {
  const std::string nasty = "rack \"7\" \\ slot\t3\x01";
  const RouteReport r = brokenReport(nasty);
  const std::string json = reportJson(r);
  EXPECT_THAT(json, HasSubstr(R"(rack \"7\" \\ slot\t3\u0001)"));
  const auto tree = parseJson(json);
  bool found = false;
  for (const auto& [key, ex] : tree.get_child("unreachableExamples"))
    found |= ex.get<std::string>("destination.description") == nasty;
  EXPECT_TRUE(found);
}

TEST(ReportSummary, SaysWhatIsUnreachableAndWhy) {
  const std::string text = reportSummary(brokenReport("h1"));
  EXPECT_THAT(text, HasSubstr("routing engine: hand"));
  EXPECT_THAT(text, HasSubstr("note: a note"));
  EXPECT_THAT(text, HasSubstr("unreachable, no LFT entry:"));
  EXPECT_THAT(text, HasSubstr("e.g. \"h0\"[1]"));
  EXPECT_THAT(text, HasSubstr("credit loops: none"));
  EXPECT_THAT(text, Not(HasSubstr("time:")));  // nobody timed it
}

TEST(ReportSummary, ShowsTheCycleOfACreditLoop) {
  RouteReport r;
  r.creditLoops.acyclic = false;
  r.creditLoops.cycle = {"\"a\"[1] -> \"b\"[1]", "\"b\"[2] -> \"a\"[2]"};
  r.reportSeconds = 1.5;
  r.analysisSeconds = 0.75;
  const std::string text = reportSummary(r);
  EXPECT_THAT(text, HasSubstr("CYCLE FOUND"));
  EXPECT_THAT(text, HasSubstr("\"a\"[1] -> \"b\"[1] => \"b\"[2] -> \"a\"[2]"));
  EXPECT_THAT(text, HasSubstr("report 1.500 s (analysis 0.750 s)"));
}

// A report compared with previous tables: one switch's table changed in two
// blocks, one switch gone.
RouteReport withPrevious(bool before) {
  RouteReport r = brokenReport("h1");
  PreviousReport p;
  p.tablesFile = "before/opensm-lfts.dump";
  p.tables.switchesCompared = 2;
  p.tables.switchesChanged = 1;
  p.tables.switchesGone = {NamedSwitch{"old", Guid{0xdead}}};
  p.tables.entriesCompared = 400;
  p.tables.entriesDiffer = 3;
  p.tables.blocksCompared = 8;
  p.tables.blocksDiffer = 2;
  p.tables.mostChanged = {ChangedSwitch{NamedSwitch{"s0", Guid{0x200000}}, 2, 3, Lid{9}, Lid{9}}};
  if (before) {
    p.linkLoadBefore = r.linkLoad;
    p.linkLoadBefore->max = 7;
  }
  r.previous = p;
  return r;
}

TEST(ReportJson, CarriesWhatThePreviousTablesWouldMove) {
  const auto tree = parseJson(reportJson(withPrevious(true)));
  EXPECT_EQ(tree.get<std::string>("previous.tablesFile"), "before/opensm-lfts.dump");
  EXPECT_EQ(tree.get<std::uint64_t>("previous.switches.compared"), 2u);
  EXPECT_EQ(tree.get<std::uint64_t>("previous.switches.gone"), 1u);
  EXPECT_EQ(tree.get<std::string>("previous.switchesGone..guid"), "0x000000000000dead");
  EXPECT_EQ(tree.get<std::uint64_t>("previous.entries.differ"), 3u);
  EXPECT_EQ(tree.get<std::uint64_t>("previous.entries.compared"), 400u);
  EXPECT_DOUBLE_EQ(tree.get<double>("previous.entries.share"), 0.0075);
  EXPECT_EQ(tree.get<std::uint64_t>("previous.blocks.differ"), 2u);
  EXPECT_DOUBLE_EQ(tree.get<double>("previous.blocks.share"), 0.25);
  EXPECT_EQ(tree.get<std::string>("previous.mostChanged..description"), "s0");
  EXPECT_EQ(tree.get<std::uint64_t>("previous.busiestBefore.routes"), 7u);
  EXPECT_EQ(tree.get<std::uint64_t>("previous.busiestAfter.routes"), 1u);
  EXPECT_FALSE(tree.get_child_optional("previous.busiestAfter.link")->data().empty());
}

TEST(ReportJson, LeavesTheBusiestLinkBeforeNullWithoutThePreviousFabric) {
  EXPECT_THAT(reportJson(withPrevious(false)), HasSubstr("\"busiestBefore\":null"));
  EXPECT_THAT(reportJson(brokenReport("h1")), Not(HasSubstr("\"previous\"")));
}

TEST(ReportSummary, SaysWhatThePreviousTablesWouldMove) {
  const std::string text = reportSummary(withPrevious(true));
  EXPECT_THAT(text, HasSubstr("previous tables (before/opensm-lfts.dump): 2 switches compared, "
                              "1 gone, 0 new"));
  EXPECT_THAT(text, HasSubstr("entries that differ: 3 of 400 (0.75%)"));
  EXPECT_THAT(text, HasSubstr("blocks that differ: 2 of 8 (25.00%)"));
  EXPECT_THAT(text, HasSubstr("changed: \"s0\" (0x0000000000200000): 2 blocks, 3 entries\n"));
  EXPECT_THAT(text, HasSubstr("gone: \"old\" (0x000000000000dead)"));
  EXPECT_THAT(text, HasSubstr("busiest link before: 7 routes"));
  EXPECT_THAT(text, HasSubstr("busiest link after:  1 routes"));
}

TEST(ReportSummary, SaysTheBusiestLinkBeforeNeedsThePreviousFabric) {
  EXPECT_THAT(reportSummary(withPrevious(false)),
              HasSubstr("busiest link before: not computed, it needs the fabric the previous "
                        "tables were routed for (--previous-topology)"));
}

}  // namespace
}  // namespace ibsm
