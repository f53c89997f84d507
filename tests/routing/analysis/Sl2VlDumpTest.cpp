// sl2vl.dump: one line per switch and (in port, out port) pair with the VL of
// each SL, written from a routing result and read back to the same entries;
// malformed lines are rejected with file and line.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <ibsm/Dumps.h>

#include <string>

#include "tests/support/FabricFixtures.h"

namespace ibsm {
namespace {

// Every pair of distinct cabled ports of every switch, VL = SL + in port
// modulo 15, so that every field of every line differs somewhere.
RoutingResult everyPortPair(const Fabric& f) {
  RoutingResult r;
  for (const NodeId sw : f.switches())
    for (std::uint8_t in = 1; in <= f.node(sw).numPorts(); ++in)
      for (std::uint8_t out = 1; out <= f.node(sw).numPorts(); ++out) {
        if (in == out || !f.node(sw).ports[in].remote || !f.node(sw).ports[out].remote) continue;
        Sl2VlEntry e{sw, in, out, {}};
        for (std::size_t sl = 0; sl < 16; ++sl)
          e.vl[sl] = static_cast<std::uint8_t>((sl + in) % 15);
        r.sl2vl.push_back(e);
      }
  r.vlsUsed = 15;
  return r;
}

TEST(Sl2VlDump, WritesOneLinePerPortPairAndReadsItBack) {
  const Fabric f = testing::generatedFabric(DragonflySpec{.a = 4, .p = 2, .h = 2});
  const RoutingResult r = everyPortPair(f);
  ASSERT_FALSE(r.sl2vl.empty());
  const std::string text = formatSl2VlDump(f, r);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), static_cast<long>(r.sl2vl.size()));
  const auto& first = r.sl2vl.front();
  const std::string firstLine = text.substr(0, text.find('\n'));
  EXPECT_EQ(firstLine, fmt::format("switch {} in_port {} out_port {} : {}", f.node(first.sw).guid,
                                   first.inPort, first.outPort, fmt::join(first.vl, " ")));
  EXPECT_TRUE(firstLine.starts_with("switch 0x")) << firstLine;

  const auto parsed = parseSl2VlDump(text, "sl2vl.dump");
  ASSERT_TRUE(parsed) << parsed.error().message;
  const auto entries = sl2vlByNode(f, *parsed);
  ASSERT_TRUE(entries) << entries.error().message;
  ASSERT_EQ(entries->size(), r.sl2vl.size());
  for (std::size_t i = 0; i < entries->size(); ++i) {
    EXPECT_EQ((*entries)[i].sw, r.sl2vl[i].sw);
    EXPECT_EQ((*entries)[i].inPort, r.sl2vl[i].inPort);
    EXPECT_EQ((*entries)[i].outPort, r.sl2vl[i].outPort);
    EXPECT_EQ((*entries)[i].vl, r.sl2vl[i].vl);
  }
}

// Every line as Dumps.h documents it, whatever the widths of its numbers
// (ports of one to three digits, VLs of one or two) and however rows repeat.
TEST(Sl2VlDump, EveryLineIsTheDocumentedText) {
  const Fabric f = testing::generatedFabric(DragonflySpec{.a = 4, .p = 2, .h = 2});
  RoutingResult r;
  const std::vector<NodeId> switches = f.switches();
  for (unsigned i = 0; i < 40; ++i) {
    Sl2VlEntry e{switches[i / 8 % switches.size()],
                 static_cast<std::uint8_t>(i * 37 % 255),
                 static_cast<std::uint8_t>(254 - i * 13 % 200),
                 {}};
    for (std::size_t sl = 0; sl < 16; ++sl)
      e.vl[sl] = static_cast<std::uint8_t>(i % 3 == 0 ? 15 - sl : (sl * i) % 16);
    r.sl2vl.push_back(e);
  }
  std::string expected;
  for (const Sl2VlEntry& e : r.sl2vl)
    expected += fmt::format("switch {} in_port {} out_port {} : {}\n", f.node(e.sw).guid, e.inPort,
                            e.outPort, fmt::join(e.vl, " "));
  EXPECT_EQ(formatSl2VlDump(f, r), expected);
}

TEST(Sl2VlDump, SkipsCommentsAndBlankLines) {
  const auto parsed = parseSl2VlDump(
      "# sl2vl\n\nswitch 0x0000000000200000 in_port 3 out_port 7 : 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 "
      "1\n",
      "f");
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_EQ(parsed->size(), 1u);
  EXPECT_EQ(parsed->front().switchGuid, Guid{0x200000});
  EXPECT_EQ(parsed->front().inPort, 3);
  EXPECT_EQ(parsed->front().outPort, 7);
  EXPECT_EQ(parsed->front().vl[15], 1);
}

TEST(Sl2VlDump, RejectsMalformedLinesNamingFileAndLine) {
  const std::string ok = "switch 0x0000000000200000 in_port 3 out_port 7 : " +
                         std::string("0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0") + "\n";
  const struct {
    std::string text;
    std::string message;
  } cases[] = {
      {"switch 0x1 in_port 3 out_port 7 : 0 0\n", "f:1: expected 'switch 0xGUID in_port N"},
      {"# c\nswitch zz in_port 3 out_port 7 : 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
       "f:2: expected a switch GUID"},
      {"switch 0x1 in_port 3 out_port 7 : 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 16\n",
       "f:1: expected a VL 0-15 for SL 15, not '16'"},
      {"switch 0x1 in_port 300 out_port 7 : 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
       "f:1: expected port numbers"},
      {ok + ok, "f:2: expected each (switch, in port, out port) once"},
  };
  for (const auto& c : cases) {
    const auto parsed = parseSl2VlDump(c.text, "f");
    ASSERT_FALSE(parsed) << c.text;
    EXPECT_TRUE(parsed.error().message.starts_with(c.message)) << parsed.error().message;
  }
}

TEST(Sl2VlDump, RefusesEntriesForSwitchesOrPortsTheFabricLacks) {
  const Fabric f = testing::generatedFabric(DragonflySpec{.a = 4, .p = 2, .h = 2});
  DumpedSl2Vl stranger{Guid{0xdead}, 1, 2, {}};
  EXPECT_FALSE(sl2vlByNode(f, {stranger}));
  const NodeId sw = f.switches().front();
  DumpedSl2Vl tooHigh{f.node(sw).guid, 1, static_cast<std::uint8_t>(f.node(sw).numPorts() + 1), {}};
  const auto r = sl2vlByNode(f, {tooHigh});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("ports"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace ibsm
