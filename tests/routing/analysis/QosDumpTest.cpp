// The QoS tables in the dry run's dumps: sl2vl.dump gains every port's
// table (switch pairs merged with the engine's, one line per CA or router
// port, which the reader passes over), and vlarb.dump gives three lines a
// port as `smpquery vlarb` shows them.
#include <gtest/gtest.h>
#include <ibsm/Dumps.h>

#include <string>

namespace ibsm {
namespace {

struct Small {
  Fabric fabric;
  NodeId sw{}, host{};
  Small() {
    sw = *fabric.addNode(Node::makeSwitch(Guid{0x100}, 2, "sw"));
    host = *fabric.addNode(Node::makeCa(Guid{0x10}, {Guid{0x11}}, "host"));
    EXPECT_TRUE(fabric.connect({sw, 1}, {host, 1}));
  }
};

constexpr std::array<std::uint8_t, 16> kVls{0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 15};

TEST(QosDump, Sl2VlDumpMergesTheEnginesAndTheQosTablesAndReadsBackTheSwitches) {
  const Small s;
  RoutingResult routing;
  routing.sl2vl.push_back({.sw = s.sw, .inPort = 2, .outPort = 1, .vl = {}});
  qos::QosTables qos;
  qos.sl2vl = {{.port = {s.sw, 1}, .inPort = 0, .vl = kVls},
               {.port = {s.sw, 2}, .inPort = 1, .vl = kVls},
               {.port = {s.host, 1}, .inPort = 0, .vl = kVls}};
  std::string text;
  writeSl2VlDump(s.fabric, routing, &qos, [&](std::string_view chunk) { text += chunk; });
  EXPECT_EQ(text,
            "switch 0x0000000000000100 in_port 0 out_port 1 : 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 15\n"
            "switch 0x0000000000000100 in_port 1 out_port 2 : 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 15\n"
            "switch 0x0000000000000100 in_port 2 out_port 1 : 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
            "ca 0x0000000000000010 port 1 : 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 15\n");
  const auto parsed = parseSl2VlDump(text, "sl2vl.dump");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->size(), 3U);
  // Without QoS the dump is the engine's, as before.
  EXPECT_EQ(formatSl2VlDump(s.fabric, routing),
            "switch 0x0000000000000100 in_port 2 out_port 1 : 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
}

// Asked for them (`ibsm path --dir`: the source CA's VL), the reader keeps
// the port lines as the CA port's table: in port 0, the port as out port.
TEST(QosDump, Sl2VlDumpGivesThePortTablesWhenAsked) {
  const Small s;
  const std::string text =
      "switch 0x0000000000000100 in_port 0 out_port 1 : 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 15\n"
      "ca 0x0000000000000010 port 1 : 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 15\n";
  const auto parsed = parseSl2VlDump(text, "sl2vl.dump", /*withPortTables=*/true);
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_EQ(parsed->size(), 2U);
  EXPECT_TRUE((*parsed)[1].portTable);
  const auto entries = sl2vlByNode(s.fabric, *parsed);
  ASSERT_TRUE(entries) << entries.error().message;
  EXPECT_EQ((*entries)[1].sw, s.host);
  EXPECT_EQ((*entries)[1].inPort, 0);
  EXPECT_EQ((*entries)[1].outPort, 1);
  EXPECT_EQ((*entries)[1].vl, kVls);
  EXPECT_FALSE(parseSl2VlDump(std::string(text) + text.substr(text.find("ca ")), "d", true))
      << "a port listed twice";
  DumpedSl2Vl onSwitch = (*parsed)[1];
  onSwitch.switchGuid = Guid{0x100};
  EXPECT_FALSE(sl2vlByNode(s.fabric, {onSwitch})) << "a port table names a CA or router";
}

TEST(QosDump, Sl2VlDumpRefusesABadPortLine) {
  const auto bad = parseSl2VlDump("ca 0x10 port 0 : 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n", "d");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("d:1: expected 'ca 0xGUID port N"), std::string::npos)
      << bad.error().message;
  EXPECT_FALSE(parseSl2VlDump("router 0x10 port 1 : 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 16\n", "d"));
}

TEST(QosDump, VlArbDumpGivesThreeLinesAPortUpToTheLastEntryThatIsNotZero) {
  const Small s;
  qos::QosTables qos;
  std::vector<qos::VlWeight> low(64), high(64);
  low[0] = {0, 4};
  low[2] = {1, 8};
  qos.vlArb = {{.port = {s.sw, 1}, .highLimit = 4, .high = high, .low = low},
               {.port = {s.host, 1}, .highLimit = 0, .high = low, .low = high}};
  EXPECT_EQ(formatVlArbDump(s.fabric, qos),
            "switch 0x0000000000000100 port 1 high_limit 4\n"
            "switch 0x0000000000000100 port 1 low : 0:4 0:0 1:8\n"
            "switch 0x0000000000000100 port 1 high :\n"
            "ca 0x0000000000000010 port 1 high_limit 0\n"
            "ca 0x0000000000000010 port 1 low :\n"
            "ca 0x0000000000000010 port 1 high : 0:4 0:0 1:8\n");
}

}  // namespace
}  // namespace ibsm
