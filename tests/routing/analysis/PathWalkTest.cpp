// `ibsm path` walks one pair through the tables as the packet goes: every
// hop with its ports and VL, ending where the tables end it -- delivered,
// or why not -- and never hanging on a loop. Names resolve as operators
// write them: node name, node or port GUID, LID.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "routing/analysis/PathFormat.h"
#include "routing/analysis/PathWalk.h"
#include "tests/routing/analysis/HandTables.h"
#include "tests/support/FabricBuilder.h"

namespace ibsm::analysis {
namespace {

using ::testing::ElementsAre;
using testing::FabricBuilder;
using testing::HandTables;
using ::testing::HasSubstr;
using testing::lidOf;
using testing::nodeNamed;

// s0 -- s1 -- s2 (s1 port 2 to s0, port 3 to s2), a host on port 1 of each.
Fabric line(std::uint8_t lmc = 0) {
  FabricBuilder b;
  b.addSwitch("s0");
  b.addSwitch("s1");
  b.addSwitch("s2");
  b.cable("s0", 2, "s1", 2).cable("s1", 3, "s2", 2);
  b.addHost("h0", "s0", 1);
  b.addHost("h1", "s1", 1);
  b.addHost("h2", "s2", 1);
  return b.build(lmc);
}

HandTables lineTables(const Fabric& f) {
  HandTables t(f);
  t.deliverLocally();
  t.toward("s0", "s1", 2).toward("s0", "s2", 2);
  t.toward("s1", "s0", 2).toward("s1", "s2", 3);
  t.toward("s2", "s0", 2).toward("s2", "s1", 2);
  return t;
}

PortRef host(const Fabric& f, std::string_view name) {
  return {nodeNamed(f, name), 1};
}

struct HopView {
  std::string name;
  int in;
  int out;
  bool operator==(const HopView&) const = default;
};
std::vector<HopView> hopsOf(const Fabric& f, const UnicastPath& p) {
  std::vector<HopView> out;
  for (const auto& h : p.hops) out.push_back({f.node(h.node).description, h.inPort, h.outPort});
  return out;
}

TEST(PathWalk, AHostToAHostPassesEverySwitchWithItsInAndOutPorts) {
  const Fabric f = line();
  HandTables t = lineTables(f);
  const auto p = walkUnicast(f, {t.result().lfts, {}}, host(f, "h0"), lidOf(f, "h2", 1), 0);

  EXPECT_EQ(p.end, PathEnd::Delivered);
  ASSERT_TRUE(p.to);
  EXPECT_EQ(*p.to, host(f, "h2"));
  EXPECT_THAT(hopsOf(f, p),
              ElementsAre(HopView{"h0", 0, 1}, HopView{"s0", 1, 2}, HopView{"s1", 2, 3},
                          HopView{"s2", 2, 1}, HopView{"h2", 1, 0}));
  // No SL2VL tables: SL 0 runs on VL 0 on every link.
  for (std::size_t i = 0; i + 1 < p.hops.size(); ++i) EXPECT_EQ(p.hops[i].vl, 0) << i;
}

TEST(PathWalk, ASwitchDestinationEndsAtItsPortZero) {
  const Fabric f = line();
  HandTables t = lineTables(f);
  const auto p = walkUnicast(f, {t.result().lfts, {}}, host(f, "h2"), lidOf(f, "s0"), 0);
  EXPECT_EQ(p.end, PathEnd::Delivered);
  EXPECT_THAT(hopsOf(f, p), ElementsAre(HopView{"h2", 0, 1}, HopView{"s2", 1, 2},
                                        HopView{"s1", 3, 2}, HopView{"s0", 2, 0}));
}

TEST(PathWalk, ASwitchSourceStartsAtItsPortZero) {
  const Fabric f = line();
  HandTables t = lineTables(f);
  const PortRef s2{nodeNamed(f, "s2"), 0};
  const auto p = walkUnicast(f, {t.result().lfts, {}}, s2, lidOf(f, "h1", 1), 0);
  EXPECT_EQ(p.end, PathEnd::Delivered);
  EXPECT_THAT(hopsOf(f, p),
              ElementsAre(HopView{"s2", 0, 2}, HopView{"s1", 3, 1}, HopView{"h1", 1, 0}));
}

TEST(PathWalk, AMissingEntryEndsTheWalkAtThatSwitch) {
  const Fabric f = line();
  HandTables t = lineTables(f);
  t.set("s1", lidOf(f, "h2", 1), kNoRoute);
  const auto p = walkUnicast(f, {t.result().lfts, {}}, host(f, "h0"), lidOf(f, "h2", 1), 0);
  EXPECT_EQ(p.end, PathEnd::NoEntry);
  EXPECT_EQ(f.node(p.hops.back().node).description, "s1");
  EXPECT_EQ(p.hops.back().outPort, kNoRoute);
  EXPECT_THAT(formatUnicastPath(f, p), HasSubstr("no-entry"));
}

TEST(PathWalk, AnEntryIntoAPortWithoutCableIsADeadPort) {
  const Fabric f = line();
  HandTables t = lineTables(f);
  t.set("s1", lidOf(f, "h2", 1), 7);
  const auto p = walkUnicast(f, {t.result().lfts, {}}, host(f, "h0"), lidOf(f, "h2", 1), 0);
  EXPECT_EQ(p.end, PathEnd::DeadPort);
  EXPECT_EQ(p.hops.back().outPort, 7);
}

TEST(PathWalk, ALoopInTheTablesEndsAtTheFirstSwitchPassedTwice) {
  const Fabric f = line();
  HandTables t = lineTables(f);
  t.set("s1", lidOf(f, "h2", 1), 2);  // back to s0, which sends it to s1 again
  const auto p = walkUnicast(f, {t.result().lfts, {}}, host(f, "h0"), lidOf(f, "h2", 1), 0);
  EXPECT_EQ(p.end, PathEnd::Loop);
  EXPECT_THAT(hopsOf(f, p), ElementsAre(HopView{"h0", 0, 1}, HopView{"s0", 1, 2},
                                        HopView{"s1", 2, 2}, HopView{"s0", 2, kNoRoute}));
}

TEST(PathWalk, ADeliveryToTheWrongHostIsNamed) {
  const Fabric f = line();
  HandTables t = lineTables(f);
  t.set("s2", lidOf(f, "h2", 1), 2).set("s1", lidOf(f, "h2", 1), 1);
  const auto p = walkUnicast(f, {t.result().lfts, {}}, host(f, "h0"), lidOf(f, "h2", 1), 0);
  EXPECT_EQ(p.end, PathEnd::WrongPort);
  EXPECT_EQ(f.node(p.hops.back().node).description, "h1");
}

TEST(PathWalk, AHostCutFromTheFabricIsUnreachable) {
  Fabric f = line();
  HandTables t = lineTables(f);
  f.disconnect(host(f, "h0"));
  const auto p = walkUnicast(f, {t.result().lfts, {}}, host(f, "h0"), lidOf(f, "h2", 1), 0);
  EXPECT_EQ(p.end, PathEnd::DeadPort);
  EXPECT_EQ(p.hops.size(), 1u);
}

TEST(PathWalk, ALidNoPortOwnsIsSaidSo) {
  const Fabric f = line();
  HandTables t = lineTables(f);
  const auto p = walkUnicast(f, {t.result().lfts, {}}, host(f, "h0"), Lid{900}, 0);
  EXPECT_EQ(p.end, PathEnd::NoOwner);
  EXPECT_FALSE(p.to);
}

// s0 and s1 joined by two cables (ports 2 and 3): with LMC 1 the two LIDs
// of h1 take one cable each, and the walk shows which.
TEST(PathWalk, EachLidOfAnLmcRangeTakesItsOwnRoute) {
  FabricBuilder b;
  b.addSwitch("s0");
  b.addSwitch("s1");
  b.cable("s0", 2, "s1", 2).cable("s0", 3, "s1", 3);
  b.addHost("h0", "s0", 1);
  b.addHost("h1", "s1", 1);
  const Fabric f = b.build(1);
  HandTables t(f);
  t.deliverLocally();
  const Lid base = lidOf(f, "h1", 1);
  const Lid second{static_cast<std::uint16_t>(base.value + 1)};
  t.set("s0", base, 2).set("s0", second, 3);

  const auto first = walkUnicast(f, {t.result().lfts, {}}, host(f, "h0"), base, 0);
  const auto other = walkUnicast(f, {t.result().lfts, {}}, host(f, "h0"), second, 0);
  EXPECT_EQ(first.end, PathEnd::Delivered);
  EXPECT_EQ(other.end, PathEnd::Delivered);
  EXPECT_EQ(first.hops[1].outPort, 2);
  EXPECT_EQ(other.hops[1].outPort, 3);
  EXPECT_EQ(other.hops[2].inPort, 3);
  // The destination named by its second LID is that LID, not the base.
  EXPECT_EQ(findDestinationLid(f, std::to_string(second.value)).value(), second);
}

TEST(PathWalk, TheVlOfEachLinkComesFromTheSl2VlEntryOfItsPortPair) {
  const Fabric f = line();
  HandTables t = lineTables(f);
  const NodeId s1 = nodeNamed(f, "s1");
  Sl2VlEntry e{.sw = s1, .inPort = 2, .outPort = 3, .vl = {}};
  e.vl[0] = 1;
  e.vl[3] = 2;
  const std::vector<Sl2VlEntry> sl2vl{e};
  const auto p0 = walkUnicast(f, {t.result().lfts, sl2vl}, host(f, "h0"), lidOf(f, "h2", 1), 0);
  EXPECT_EQ(p0.hops[2].vl, 1);
  EXPECT_EQ(p0.hops[1].vl, 0);  // s0's pair has no entry: SL 0 on VL 0
  const auto p3 = walkUnicast(f, {t.result().lfts, sl2vl}, host(f, "h0"), lidOf(f, "h2", 1), 3);
  EXPECT_EQ(p3.hops[2].vl, 2);
  EXPECT_EQ(p3.hops[1].vl, kUnknownVl);  // SL 3 where nothing was programmed
  EXPECT_THAT(unicastPathJson(f, p0), HasSubstr("\"vl\":1"));
}

// With QoS every port is programmed, a CA's one table too (in port 0, its
// port as out port): the source's link takes its VL from it, and a hop's
// in VL is the VL the hop before went out on.
TEST(PathWalk, TheSourcesVlComesFromItsPortsTableAndEachHopShowsItsInVl) {
  const Fabric f = line();
  HandTables t = lineTables(f);
  const NodeId h0 = nodeNamed(f, "h0");
  const NodeId s0 = nodeNamed(f, "s0");
  Sl2VlEntry ca{.sw = h0, .inPort = 0, .outPort = 1, .vl = {}};
  ca.vl[4] = 2;
  Sl2VlEntry sw{.sw = s0, .inPort = 1, .outPort = 2, .vl = {}};
  sw.vl[4] = 3;
  const std::vector<Sl2VlEntry> sl2vl{ca, sw};
  const auto p = walkUnicast(f, {t.result().lfts, sl2vl}, host(f, "h0"), lidOf(f, "h2", 1), 4);
  ASSERT_EQ(p.end, PathEnd::Delivered);
  EXPECT_EQ(p.hops[0].vl, 2);
  EXPECT_EQ(p.hops[1].vl, 3);
  EXPECT_EQ(p.hops[2].vl, kUnknownVl);  // s1 holds no table: SL 4 is not known there
  const std::string json = unicastPathJson(f, p);
  EXPECT_THAT(json, HasSubstr("\"vl\":3,\"in_vl\":2"));
  EXPECT_THAT(json, HasSubstr("\"vl\":2,\"in_vl\":null"));
  EXPECT_THAT(formatUnicastPath(f, p), HasSubstr("VL2>VL3"));
}

// The QoS level the SA gives the path is named beside its SL, and a note
// when the SA would answer no path for the SL walked.
TEST(PathWalk, TheQosLevelAndTheNoteAreShown) {
  const Fabric f = line();
  HandTables t = lineTables(f);
  auto p = walkUnicast(f, {t.result().lfts, {}}, host(f, "h0"), lidOf(f, "h1", 1), 0);
  EXPECT_THAT(formatUnicastPath(f, p), HasSubstr("SL 0: delivered, 2 switch hops"));
  EXPECT_THAT(unicastPathJson(f, p), HasSubstr("\"qos_level\":null,\"note\":null"));
  p.qosLevel = "Storage";
  p.note = "no path";
  EXPECT_THAT(formatUnicastPath(f, p),
              HasSubstr("SL 0 (QoS level Storage): delivered, 2 switch hops\nnote: no path\n"));
  EXPECT_THAT(unicastPathJson(f, p), HasSubstr("\"qos_level\":\"Storage\",\"note\":\"no path\""));
}

// The daemon answers entries one at a time from the blocks it holds.
TEST(PathWalk, AnEntryFunctionStandsInForTheTables) {
  const Fabric f = line();
  HandTables t = lineTables(f);
  const auto& lfts = t.result().lfts;
  const NodeId s1 = nodeNamed(f, "s1");
  const PathTables tables{.lfts = {}, .sl2vl = {}, .entry = [&](NodeId sw, Lid lid) {
                            return sw == s1 ? std::uint8_t{1} : lfts[sw].at(lid);
                          }};
  const auto p = walkUnicast(f, tables, host(f, "h0"), lidOf(f, "h2", 1), 0);
  EXPECT_EQ(p.end, PathEnd::WrongPort);
  EXPECT_EQ(f.node(p.hops.back().node).description, "h1");
}

TEST(PathWalk, EndsAreNamedByNodeNameGuidPortGuidOrLid) {
  const Fabric f = line();
  const PortRef h2 = host(f, "h2");
  const Guid nodeGuid = f.node(h2.node).guid;
  const Guid portGuid = f.port(h2).guid;
  EXPECT_EQ(findEndPort(f, "h2").value(), h2);
  EXPECT_EQ(findEndPort(f, fmt::format("{}", nodeGuid)).value(), h2);
  EXPECT_EQ(findEndPort(f, fmt::format("0x{:x}", portGuid.value)).value(), h2);
  EXPECT_EQ(findEndPort(f, std::to_string(f.port(h2).lid.value)).value(), h2);
  EXPECT_EQ(findEndPort(f, fmt::format("0x{:x}", f.port(h2).lid.value)).value(), h2);
  EXPECT_EQ(findEndPort(f, "s1").value(), (PortRef{nodeNamed(f, "s1"), 0}));

  auto nobody = findEndPort(f, "h9");
  ASSERT_FALSE(nobody);
  EXPECT_THAT(nobody.error().message, HasSubstr("'h9': no node has this name"));
  EXPECT_FALSE(findEndPort(f, "999"));
  EXPECT_FALSE(findEndPort(f, "0xdeadbeef00"));
}

TEST(PathWalk, TheJsonGivesEveryHopWithItsLink) {
  const Fabric f = line();
  HandTables t = lineTables(f);
  const auto p = walkUnicast(f, {t.result().lfts, {}}, host(f, "h0"), lidOf(f, "h1", 1), 0);
  const std::string json = unicastPathJson(f, p);
  EXPECT_THAT(json, HasSubstr("\"end\":\"delivered\",\"switch_hops\":2"));
  EXPECT_THAT(json, HasSubstr("\"name\":\"s0\""));
  EXPECT_THAT(json, HasSubstr("\"in_port\":1,\"out_port\":2,\"link\":{\"width\":"));
  EXPECT_THAT(json, HasSubstr("\"name\":\"h1\""));
}

// The MFTs of one group on the line: s1 is the root, every host a member.
TEST(PathWalk, AMulticastWalkShowsTheTreesBranchesFromTheSource) {
  const Fabric f = line();
  std::vector<SwitchMft> mfts(f.size());
  const std::uint16_t mlid = 0xC000;
  auto set = [&](std::string_view sw, std::initializer_list<int> ports) {
    for (int p : ports) mfts[nodeNamed(f, sw)].entries[mlid].set(static_cast<std::size_t>(p));
  };
  set("s0", {1, 2});
  set("s1", {1, 2, 3});
  set("s2", {1, 2});
  const auto m = walkMulticast(f, mfts, host(f, "h0"), Lid{mlid});
  ASSERT_EQ(m.branches.size(), 3u);
  EXPECT_EQ(f.node(m.branches[0].node).description, "s0");
  EXPECT_THAT(m.branches[0].outPorts, ElementsAre(2));
  EXPECT_THAT(m.branches[1].outPorts, ElementsAre(1, 3));
  EXPECT_EQ(m.branches[2].depth, 2);
  EXPECT_THAT(m.receivers, ElementsAre(host(f, "h1"), host(f, "h2")));
  EXPECT_TRUE(m.problems.empty());

  set("s2", {3});  // a port without a cable
  const auto broken = walkMulticast(f, mfts, host(f, "h0"), Lid{mlid});
  ASSERT_EQ(broken.problems.size(), 1u);
  EXPECT_THAT(broken.problems[0], HasSubstr("no cable"));
}

}  // namespace
}  // namespace ibsm::analysis
