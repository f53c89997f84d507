// ibsm writes opensm-lfts.dump byte for byte as OpenSM does, and reads it
// (and dump_fts output) back. The expected texts in tests/data/dumps were
// written by OpenSM 3.3 and dump_fts on ibsim (see the README.md there); the
// LIDs come from the guid2lid file of the same run.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <ibsm/Dumps.h>
#include <ibsm/Lids.h>
#include <ibsm/Report.h>
#include <ibsm/Topology.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/routing/analysis/HandTables.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string readData(std::string_view name) {
  const auto path = std::filesystem::path(IBSM_TEST_DATA) / "dumps" / name;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The two-switch sample fabric with the LIDs OpenSM gave it in that run.
Fabric twoSwitchFabric(std::uint8_t lmc) {
  auto read = readTopologyFile(testing::testTopologyPath("two-switch-dual-port-hcas.net"));
  if (!read) throw std::runtime_error(read.error().message);
  Fabric& fabric = read->fabric;
  const auto name = fmt::format("two-switch-lmc{}.guid2lid", lmc);
  const auto state = parseGuid2Lid(readData(name), name);
  if (!state) throw std::runtime_error(state.error().message);
  const auto plan = planLids(fabric, *state, lmc);
  if (!plan) throw std::runtime_error(plan.error().message);
  applyLids(fabric, *plan);
  return std::move(fabric);
}

RoutingResult tablesFromDump(const Fabric& fabric, std::string_view text) {
  const auto dumped = parseLftDump(text, "dump");
  if (!dumped) throw std::runtime_error(dumped.error().message);
  auto lfts = lftsByNode(fabric, *dumped);
  if (!lfts) throw std::runtime_error(lfts.error().message);
  RoutingResult r;
  r.lfts = std::move(*lfts);
  return r;
}

class OpenSmDump : public ::testing::TestWithParam<int> {};

TEST_P(OpenSmDump, IsWrittenByteForByteAsOpenSmWroteIt) {
  const auto lmc = static_cast<std::uint8_t>(GetParam());
  const Fabric f = twoSwitchFabric(lmc);
  const std::string expected = readData(fmt::format("two-switch-lmc{}.opensm-lfts.dump", lmc));
  EXPECT_EQ(formatLftDump(f, tablesFromDump(f, expected)), expected);
}

TEST_P(OpenSmDump, HoldsTablesThatRouteEveryPair) {
  const auto lmc = static_cast<std::uint8_t>(GetParam());
  const Fabric f = twoSwitchFabric(lmc);
  const auto tables =
      tablesFromDump(f, readData(fmt::format("two-switch-lmc{}.opensm-lfts.dump", lmc)));
  const RouteReport r = analyseRoutes(f, tables);
  EXPECT_EQ(r.unreachablePairs(), 0u);
  EXPECT_GT(r.routedPairs(), 0u);
  EXPECT_TRUE(r.creditLoops.acyclic);
}

TEST_P(OpenSmDump, ReadsTheSameTablesFromDumpFtsOutput) {
  const auto lmc = static_cast<std::uint8_t>(GetParam());
  const Fabric f = twoSwitchFabric(lmc);
  const auto fromOpenSm =
      tablesFromDump(f, readData(fmt::format("two-switch-lmc{}.opensm-lfts.dump", lmc)));
  const auto fromDumpFts =
      tablesFromDump(f, readData(fmt::format("two-switch-lmc{}.dump_fts", lmc)));
  EXPECT_TRUE(diffLfts(fromOpenSm.lfts, fromDumpFts.lfts, LidIndex(f).maxLid()).empty());
}

INSTANTIATE_TEST_SUITE_P(Lmc, OpenSmDump, ::testing::Values(0, 1));

TEST(OpenSmDumpOrder, ListsSwitchesInTheOrderOfOpenSmsNetworkByteOrderGuidMap) {
  // Switch GUIDs 0x100 and 0x2: OpenSM lists 0x100 first (data/guid-order.topo).
  Fabric f;
  const NodeId a = *f.addNode(Node::makeSwitch(Guid{0x100}, 8, "SwA"));
  const NodeId b = *f.addNode(Node::makeSwitch(Guid{0x2}, 8, "SwB"));
  const NodeId ha = *f.addNode(Node::makeCa(Guid{0x1000}, {Guid{0x1001}}, "HostA"));
  const NodeId hb = *f.addNode(Node::makeCa(Guid{0x2000}, {Guid{0x2001}}, "HostB"));
  ASSERT_TRUE(f.connect({a, 1}, {ha, 1}));
  ASSERT_TRUE(f.connect({b, 1}, {hb, 1}));
  ASSERT_TRUE(f.connect({a, 3}, {b, 3}));
  const auto state = parseGuid2Lid(readData("guid-order.guid2lid"), "guid2lid");
  ASSERT_TRUE(state);
  applyLids(f, *planLids(f, *state, 0));

  const std::string expected = readData("guid-order.opensm-lfts.dump");
  const std::string written = formatLftDump(f, tablesFromDump(f, expected));
  EXPECT_EQ(written, expected);
  EXPECT_LT(written.find("guid 0x0000000000000100"), written.find("guid 0x0000000000000002"));
}

TEST(LftDump, RoundTripsTheTablesOfAGeneratedFabric) {
  const Fabric f = testing::sampleFabric("dragonfly-a4-p2-h2.net", /*lmc=*/1);
  const RoutingResult tables = testing::shortestPathTables(f);
  const std::string text = formatLftDump(f, tables);
  const RoutingResult back = tablesFromDump(f, text);
  EXPECT_TRUE(diffLfts(tables.lfts, back.lfts, LidIndex(f).maxLid()).empty());
  EXPECT_EQ(formatLftDump(f, back), text);
}

TEST(LftDump, LeavesOutEntriesWithoutARouteOrIntoPortsTheSwitchLacks) {
  const Fabric f = twoSwitchFabric(0);
  RoutingResult r;
  r.lfts.resize(f.size());
  const NodeId sw = testing::nodeNamed(f, "Switch1");
  r.lfts[sw].port = {kNoRoute, 0, 9, 3};  // LID 2 -> port 9 of an 8-port switch
  const std::string text = formatLftDump(f, r);
  EXPECT_THAT(text, HasSubstr("0x0001 000 # Switch portguid 0x0000000000200000: 'Switch1'\n"
                              "0x0003 003 # Switch portguid 0x0000000000200001: 'Switch2'\n"
                              "6 lids dumped\n"));
}

TEST(LftDump, NamesALidNobodyHoldsAsUnknown) {
  const Fabric f = twoSwitchFabric(0);
  RoutingResult r;
  r.lfts.resize(f.size());
  r.lfts[testing::nodeNamed(f, "Switch1")].port.assign(7, 3);
  // LIDs stop at 6; the entry for LID 0 is listed, as OpenSM lists any valid port.
  EXPECT_THAT(formatLftDump(f, r), HasSubstr("0x0000 003 # unknown node and type\n"));
}

Result<std::vector<DumpedLft>> parse(std::string_view text) {
  return parseLftDump(text, "lfts.dump");
}

// Fed a line at a time (a dump read as it is parsed), the same tables, and
// errors name the same line.
TEST(ParseLftDump, ALineAtATimeReadsWhatTheWholeTextReads) {
  const std::string text = readData("two-switch-lmc1.opensm-lfts.dump");
  const auto byLines = [](const std::string& t) {
    std::istringstream in(t);
    std::string buffer;
    return parseLftDump(
        [&](std::string_view& line) {
          if (!std::getline(in, buffer)) return false;
          line = buffer;
          return true;
        },
        "lfts.dump");
  };
  const auto whole = parse(text);
  const auto lines = byLines(text);
  ASSERT_TRUE(whole && lines);
  ASSERT_EQ(lines->size(), whole->size());
  for (std::size_t i = 0; i < whole->size(); ++i) {
    EXPECT_EQ((*lines)[i].switchGuid, (*whole)[i].switchGuid);
    EXPECT_EQ((*lines)[i].lft.port, (*whole)[i].lft.port);
  }
  const std::string bad = text + "\n0x0001 port\n";
  EXPECT_EQ(byLines(bad).error().message, parse(bad).error().message);
}

TEST(ParseLftDump, ReadsHeaderFieldsOfBothFormats) {
  auto osm = parse(readData("two-switch-lmc1.opensm-lfts.dump"));
  ASSERT_TRUE(osm) << osm.error().message;
  ASSERT_EQ(osm->size(), 2u);
  EXPECT_EQ((*osm)[1].switchGuid, Guid{0x200001});
  EXPECT_EQ((*osm)[1].switchLid, Lid{8});
  EXPECT_EQ((*osm)[1].description, "Switch2");
  EXPECT_EQ((*osm)[1].lft.at(Lid{11}), 1);
  EXPECT_EQ((*osm)[1].lft.at(Lid{9}), kNoRoute);

  auto fts = parse(readData("two-switch-lmc1.dump_fts"));
  ASSERT_TRUE(fts) << fts.error().message;
  ASSERT_EQ(fts->size(), 2u);
  EXPECT_EQ((*fts)[0].switchGuid, Guid{0x200001});  // dump_fts walks from the SM's switch
  EXPECT_EQ((*fts)[0].switchLid, Lid{});            // by DR path: no LID in its header
  EXPECT_EQ((*fts)[0].description, "Switch2");
  EXPECT_EQ((*fts)[0].lft.at(Lid{3}), 5);
}

TEST(ParseLftDump, ReadsIbrouteAndDumpFtsAllEntriesOutput) {
  const auto t = parse(
      "Unicast lids [0x0-0x2] of switch Lid 1 guid 0x0000000000200000 (Switch1):\n"
      "  Lid  Out   Destination\n"
      "       Port     Info \n"
      "0x0000 255 : (path #0 - illegal port)\n"
      "0x0001 000 : (Switch portguid 0x0000000000200000: 'Switch1')\n"
      "0x0002 001 : (Channel Adapter portguid 0x0000000000100001: 'Hca1')\n"
      "3 lids dumped \n");
  ASSERT_TRUE(t) << t.error().message;
  ASSERT_EQ(t->size(), 1u);
  EXPECT_EQ((*t)[0].switchLid, Lid{1});
  EXPECT_EQ((*t)[0].lft.port, (std::vector<std::uint8_t>{kNoRoute, 0, 1}));
}

TEST(ParseLftDump, NamesFileAndLineOfWhatItCannotRead) {
  const auto noHeader = parse("0x0001 000 # Switch\n");
  ASSERT_FALSE(noHeader);
  EXPECT_THAT(noHeader.error().message, StartsWith("lfts.dump:1: expected"));

  const std::string header = "Unicast lids [0-3] of switch Lid 1 guid 0x0000000000200000 ('S'):\n";
  const auto garbage = parse(header + "0x0001 000 # x\nrouting is fun\n");
  ASSERT_FALSE(garbage);
  EXPECT_THAT(garbage.error().message, StartsWith("lfts.dump:3: expected"));

  const auto twice = parse(header + "0x0002 001 # x\n0x0002 003 # x\n");
  ASSERT_FALSE(twice);
  EXPECT_THAT(twice.error().message, StartsWith("lfts.dump:3:"));

  const auto sameSwitch = parse(header + header);
  ASSERT_FALSE(sameSwitch);
  EXPECT_THAT(sameSwitch.error().message, HasSubstr("0x0000000000200000"));

  EXPECT_FALSE(parse(header + "0x0001 300 # x\n"));          // no such port number
  EXPECT_FALSE(parse(header + "0xC000 001 # multicast\n"));  // not a unicast LID
  EXPECT_FALSE(parse("Multicast mlids [0xc000-0xc001] of switch Lid 1 guid 0x1:\n"));
  EXPECT_FALSE(parse("Unicast lids [0-3] of switch Lid 1 guid 0x0000000000200000:\n"));
}

// ibroute and dump_fts print an "iberror:" line when a switch stops
// answering mid-dump (2>&1 keeps it with the tables). What switches held is
// read up to it; the table it cut short is left out and named.
constexpr std::string_view kCutShort =
    "Unicast lids [0x0-0x2] of switch Lid 1 guid 0x0000000000200000 (Switch1):\n"
    "  Lid  Out   Destination\n"
    "       Port     Info \n"
    "0x0001 000 : (Switch portguid 0x0000000000200000: 'Switch1')\n"
    "0x0002 001 : (Channel Adapter portguid 0x0000000000100001: 'Hca1')\n"
    "2 valid lids dumped \n"
    "Unicast lids [0x0-0x2] of switch Lid 2 guid 0x0000000000200001 (Switch2):\n"
    "  Lid  Out   Destination\n"
    "       Port     Info \n"
    "0x0001 003 : (Switch portguid 0x0000000000200000: 'Switch1')\n"
    "ibwarn: [812] _do_madrpc: recv failed: Connection timed out\n"
    "ibroute: iberror: failed: dump tables: Unicast forwarding table get failed\n";

Result<HeldLftDump> parseHeld(std::string_view text) {
  std::istringstream in{std::string(text)};
  std::string buffer;
  return parseHeldLftDump(
      [&](std::string_view& line) {
        if (!std::getline(in, buffer)) return false;
        line = buffer;
        return true;
      },
      "held.dump");
}

TEST(ParseHeldLftDump, ReadsUpToAnIbErrorAndLeavesOutTheTableItCut) {
  const auto held = parseHeld(kCutShort);
  ASSERT_TRUE(held) << held.error().message;
  ASSERT_EQ(held->tables.size(), 1u);
  EXPECT_EQ(held->tables[0].switchGuid, Guid{0x200000});
  EXPECT_EQ(held->tables[0].lft.port, (std::vector<std::uint8_t>{kNoRoute, 0, 1}));
  ASSERT_EQ(held->cuts.size(), 1u);
  EXPECT_EQ(held->cuts[0].line, 12u);
  EXPECT_EQ(held->cuts[0].switchGuid, Guid{0x200001});
  EXPECT_EQ(held->cuts[0].description, "Switch2");
  EXPECT_EQ(held->cuts[0].message,
            "ibroute: iberror: failed: dump tables: Unicast forwarding table get failed");

  // Stopped between two tables: every table read is whole.
  const std::string whole{kCutShort.substr(0, kCutShort.find("Unicast lids", 10))};
  const auto between =
      parseHeld(whole + "ibroute: iberror: [pid 812] main: failed: dump tables: x\n");
  ASSERT_TRUE(between) << between.error().message;
  EXPECT_EQ(between->tables.size(), 1u);
  ASSERT_EQ(between->cuts.size(), 1u);
  EXPECT_EQ(between->cuts[0].switchGuid, Guid{});
}

TEST(ParseHeldLftDump, ParseLftDumpStillRefusesADumpCutShort) {
  const auto strict = parse(kCutShort);
  ASSERT_FALSE(strict);
  EXPECT_THAT(strict.error().message, StartsWith("lfts.dump:11: expected"));
  // Anything else unreadable is an error in both.
  // Appended in place: GCC 12 at -O3 warns falsely (-Warray-bounds) on
  // `std::string(view) + "literal"` when it inlines the move.
  std::string unreadable{kCutShort};
  unreadable += "routing is fun\n";
  EXPECT_FALSE(parseHeld(unreadable));
}

TEST(LftsByNode, RejectsASwitchTheFabricDoesNotHaveOrAPortItLacks) {
  const Fabric f = twoSwitchFabric(0);
  const auto unknown = parse("Unicast lids [0-1] of switch Lid 1 guid 0x0000000000abcdef ('X'):\n");
  ASSERT_TRUE(unknown);
  EXPECT_FALSE(lftsByNode(f, *unknown));
  const auto badPort = parse(
      "Unicast lids [0-1] of switch Lid 1 guid 0x0000000000200000 ('Switch1'):\n"
      "0x0001 009 # beyond the 8 ports\n");
  ASSERT_TRUE(badPort);
  const auto placed = lftsByNode(f, *badPort);
  ASSERT_FALSE(placed);
  EXPECT_THAT(placed.error().message, HasSubstr("port 9"));
}

TEST(DiffLfts, ListsEveryEntryThatDiffersUpToTheMaxLid) {
  std::vector<Lft> expected(3), actual(3);
  expected[1].port = {kNoRoute, 0, 1, 2, 3};
  actual[1].port = {kNoRoute, 0, 1, 4};  // LID 3 differs, LID 4 missing
  actual[2].port = {kNoRoute, 5};        // a table where none was expected
  const auto d = diffLfts(expected, actual, Lid{4});
  EXPECT_EQ(d, (std::vector<LftDifference>{
                   {1, Lid{3}, 2, 4}, {1, Lid{4}, 3, kNoRoute}, {2, Lid{1}, kNoRoute, 5}}));
}

}  // namespace
}  // namespace ibsm
