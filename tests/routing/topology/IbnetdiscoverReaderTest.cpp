// ibnetdiscover captures: what a real capture may contain is read, what
// contradicts itself is an error naming file and line.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <ibsm/Topology.h>

#include <string>

#include "tests/routing/topology/CaptureText.h"

namespace ibsm {
namespace {

using testcaptures::kSmall;
using testcaptures::replaced;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// A capture from an HDR cluster, in infiniband-diags 44's layout.
constexpr std::string_view kCluster = R"(#
# Topology file: generated on Wed Dec  2 16:10:57 2026
#
# Initiated from node 0002c90300000001 port 0002c90300000002

vendid=0x2c9
devid=0xd2f0
sysimgguid=0x7cfe900300a0b0c0
switchguid=0x7cfe900300a0b0c0(7cfe900300a0b0c0)
Switch	40 "S-7cfe900300a0b0c0"		# "MF0;leaf01:MQM8700/U1" enhanced port 0 lid 1 lmc 0
[1]	"H-0002c90300000001"[1](2c90300000002) 		# "node001 HCA-1" lid 4 4xHDR
[2]	"H-0002c90300000001"[2](2c90300000003) 		# "node001 HCA-1" lid 6 2xNDR
[39]	"S-7cfe900300a0b0d0"[39]		# "MF0;spine01:MQM8700/U1" lid 2 4xHDR
[40]	"S-7cfe900300a0b0d0"[40]		# "MF0;spine01:MQM8700/U1" lid 2 4xHDR

vendid=0x2c9
devid=0xd2f0
sysimgguid=0x7cfe900300a0b0d0
switchguid=0x7cfe900300a0b0d0(7cfe900300a0b0d0)
Switch	40 "S-7cfe900300a0b0d0"		# "MF0;spine01:MQM8700/U1" base port 0 lid 2 lmc 2
[12]	"R-0002c90300000100"[1](2c90300000101) 		# "router-a" lid 9 4xEDR
[39]	"S-7cfe900300a0b0c0"[39]		# "MF0;leaf01:MQM8700/U1" lid 1 4xHDR
[40]	"S-7cfe900300a0b0c0"[40]		# "MF0;leaf01:MQM8700/U1" lid 1 4xHDR

vendid=0x2c9
devid=0x101b
sysimgguid=0x2c90300000004
caguid=0x2c90300000001
Ca	2 "H-0002c90300000001"		# "node001 HCA-1"
[1](2c90300000002) 	"S-7cfe900300a0b0c0"[1]		# lid 4 lmc 1 "MF0;leaf01:MQM8700/U1" lid 1 4xHDR
[2](2c90300000003) 	"S-7cfe900300a0b0c0"[2]		# lid 6 lmc 0 "MF0;leaf01:MQM8700/U1" lid 1 2xNDR

vendid=0x2c9
devid=0x0
sysimgguid=0x2c90300000100
rtguid=0x2c90300000100
Rt	1 "R-0002c90300000100"		# "router-a"
[1](2c90300000101) 	"S-7cfe900300a0b0d0"[12]		# lid 9 lmc 0 "MF0;spine01:MQM8700/U1" lid 2 4xEDR
)";

// An ordinary capture reads without a word.
Fabric parsed(std::string_view text) {
  auto f = parseIbnetdiscover(text, "cluster.ibnd");
  EXPECT_TRUE(f) << (f ? "" : f.error().message);
  if (f) {
    EXPECT_EQ(f->warnings, std::vector<std::string>{});
  }
  return f ? std::move(f->fabric) : Fabric{};
}

std::string errorOf(std::string_view text) {
  auto f = parseIbnetdiscover(text, "cluster.ibnd");
  EXPECT_FALSE(f) << "expected the capture to be rejected";
  return f ? "" : f.error().message;
}

const Node& nodeOf(const Fabric& f, std::uint64_t guid) {
  const auto id = f.findNode(Guid{guid});
  EXPECT_TRUE(id) << std::hex << guid;
  return f.node(id.value_or(0));
}

TEST(IbnetdiscoverReader, ReadsNodeTypesGuidsAndDescriptions) {
  const Fabric f = parsed(kCluster);
  ASSERT_EQ(f.size(), 4u);
  const Node& leaf = nodeOf(f, 0x7cfe900300a0b0c0);
  EXPECT_EQ(leaf.type, NodeType::Switch);
  EXPECT_EQ(leaf.description, "MF0;leaf01:MQM8700/U1");
  EXPECT_EQ(leaf.numPorts(), 40);
  EXPECT_EQ(leaf.vendorId, 0x2c9u);
  EXPECT_EQ(leaf.deviceId, 0xd2f0);
  EXPECT_EQ(leaf.ports[17].guid, Guid{0x7cfe900300a0b0c0});
  const Node& hca = nodeOf(f, 0x2c90300000001);
  EXPECT_EQ(hca.type, NodeType::Ca);
  EXPECT_EQ(hca.description, "node001 HCA-1");
  EXPECT_EQ(hca.systemImageGuid, Guid{0x2c90300000004});
  EXPECT_EQ(hca.deviceId, 0x101b);
  EXPECT_EQ(hca.ports[1].guid, Guid{0x2c90300000002});
  EXPECT_EQ(hca.ports[2].guid, Guid{0x2c90300000003});
  const Node& router = nodeOf(f, 0x2c90300000100);
  EXPECT_EQ(router.type, NodeType::Router);
  EXPECT_EQ(router.ports[1].guid, Guid{0x2c90300000101});
  EXPECT_EQ(f.findPort(Guid{0x2c90300000003})->node, f.findNode(hca.guid));
}

TEST(IbnetdiscoverReader, ReadsSwitchLidLmcAndPortZeroKind) {
  const Fabric f = parsed(kCluster);
  const Node& leaf = nodeOf(f, 0x7cfe900300a0b0c0);
  const Node& spine = nodeOf(f, 0x7cfe900300a0b0d0);
  EXPECT_EQ(leaf.ports[0].lid, Lid{1});
  EXPECT_TRUE(leaf.switchData->enhancedPort0);
  EXPECT_EQ(spine.ports[0].lid, Lid{2});
  EXPECT_EQ(spine.ports[0].lmc, 2);
  EXPECT_FALSE(spine.switchData->enhancedPort0);
}

TEST(IbnetdiscoverReader, ReadsCaPortLidsAndLmc) {
  const Fabric f = parsed(kCluster);
  const Node& hca = nodeOf(f, 0x2c90300000001);
  EXPECT_EQ(hca.ports[1].lid, Lid{4});
  EXPECT_EQ(hca.ports[1].lmc, 1);
  EXPECT_EQ(hca.ports[2].lid, Lid{6});
  EXPECT_EQ(nodeOf(f, 0x2c90300000100).ports[1].lid, Lid{9});
}

TEST(IbnetdiscoverReader, CablesBothEndsAndLeavesUnlistedPortsDown) {
  const Fabric f = parsed(kCluster);
  const auto leaf = *f.findNode(Guid{0x7cfe900300a0b0c0});
  const auto spine = *f.findNode(Guid{0x7cfe900300a0b0d0});
  EXPECT_EQ(f.port({leaf, 39}).remote, (PortRef{spine, 39}));
  EXPECT_EQ(f.port({spine, 40}).remote, (PortRef{leaf, 40}));
  EXPECT_EQ(f.port({leaf, 39}).state, PortState::Active);
  EXPECT_FALSE(f.port({leaf, 3}).connected());
  EXPECT_EQ(f.port({leaf, 3}).state, PortState::Down);
  int cabled = 0;
  for (const Node& n : f.nodes())
    for (const Port& p : n.ports) cabled += p.connected();
  EXPECT_EQ(cabled, 10);  // 5 cables, two ends each
}

TEST(IbnetdiscoverReader, ReadsLinkWidthAndExtendedSpeed) {
  const Fabric f = parsed(kCluster);
  const Node& hca = nodeOf(f, 0x2c90300000001);
  EXPECT_EQ(hca.ports[1].link.widthActive, 2);                            // 4x
  EXPECT_EQ(hca.ports[1].link.extSpeedActive, 4);                         // HDR
  EXPECT_EQ(hca.ports[2].link.widthActive, 16);                           // 2x
  EXPECT_EQ(hca.ports[2].link.extSpeedActive, 8);                         // NDR
  EXPECT_EQ(nodeOf(f, 0x2c90300000100).ports[1].link.extSpeedActive, 2);  // EDR
}

struct RateCase {
  std::string_view token;
  int width;
  int speed;
  int ext;
};

class LinkRates : public ::testing::TestWithParam<RateCase> {};

TEST_P(LinkRates, BecomeIbaCodes) {
  const RateCase& c = GetParam();
  const std::string text =
      replaced(replaced(kSmall, "\"b\" lid 2 4xQDR", fmt::format("\"b\" lid 2 {}", c.token)),
               "\"a\" lid 1 4xQDR\n\ncaguid", fmt::format("\"a\" lid 1 {}\n\ncaguid", c.token));
  const Fabric f = parsed(text);
  const Port& p = nodeOf(f, 0x10).ports[1];
  EXPECT_EQ(p.link.widthActive, c.width);
  EXPECT_EQ(p.link.speedActive, c.speed);
  EXPECT_EQ(p.link.extSpeedActive, c.ext);
}

INSTANTIATE_TEST_SUITE_P(IbnetdiscoverReader, LinkRates,
                         ::testing::Values(RateCase{"1xSDR", 1, 1, 0}, RateCase{"4xDDR", 2, 2, 0},
                                           RateCase{"12xQDR", 8, 4, 0}, RateCase{"8xQDR", 4, 4, 0},
                                           RateCase{"4xFDR10", 2, 4, 0}, RateCase{"4xFDR", 2, 4, 1},
                                           RateCase{"4xEDR", 2, 4, 2}, RateCase{"4xHDR", 2, 4, 4},
                                           RateCase{"2xNDR", 16, 4, 8},
                                           RateCase{"4xXDR", 2, 4, 32}));

TEST(IbnetdiscoverReader, ToleratesWhatRealCapturesContain) {
  // -g chassis grouping, ext port labels, --full attributes, Xsigo notes,
  // a warning from 2>&1 (skipped, with a warning of ours), Windows line
  // ends, blanks instead of tabs, and an unreadable width.
  const std::string text =
      "#\r\n"
      "# Topology file: generated on Wed Dec  2 16:10:57 2026\r\n"
      "# Reported max hops discovered: 1\r\n"
      "Chassis 1 (guid 0x10)\r\n"
      "\r\n"
      "# Spine Nodes\r\n"
      "ibwarn: [4242] mad_rpc: _do_madrpc failed; dport (DR path slid 0; dlid 0; 0,1,7)\r\n"
      "vendid=0x2c9\r\n"
      "devid=0xbd36\r\n"
      "sysimgguid=0x10\t\t# Chassis 1 (ISR2012) \r\n"
      "switchguid=0x10(10)\t# Voltaire sLB-2024 Spine 1 Chip 1\r\n"
      "Switch 36 \"S-0000000000000010\" # \"spine \"quoted\" name\" base port 0 lid 1 lmc 0\r\n"
      "[33][ext 1]\t\"S-0000000000000020\"[2][ext 7]\t\t# \"b\" lid 2 4xQDR s=4 w=2 v=4\r\n"
      "\r\n"
      "Non-Chassis Nodes\r\n"
      "\r\n"
      "switchguid=0x20(20)\r\n"
      "Switch\t4 \"S-0000000000000020\"\t\t# \"b\" base port 0 lid 2 lmc 0\r\n"
      "[2][ext 7]\t\"S-0000000000000010\"[33][ext 1]\t\t# \"spine \"quoted\" name\" lid 1 ??QDR\r\n"
      "[3]\t\"H-0000000000000030\"[1](31) \t\t# \"h\" lid 3 4x??? slot 3\r\n"
      "\r\n"
      "caguid=0x30\r\n"
      "Ca\t1 \"H-0000000000000030\"\t\t# \"h\" (scp)\r\n"
      "[1](31) \t\"S-0000000000000020\"[3]\t\t# lid 3 lmc 0 \"b\" lid 2 4xQDR\r\n";
  const auto read = parseIbnetdiscover(text, "cluster.ibnd");
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(read->warnings,
            std::vector<std::string>{
                "cluster.ibnd:7: skipped 1 line that is not topology (a message printed on "
                "stderr): \"ibwarn: [4242] mad_rpc: _do_madrpc failed; dport (DR path sl...\""});
  const Fabric& f = read->fabric;
  ASSERT_EQ(f.size(), 3u);
  const Node& spine = nodeOf(f, 0x10);
  EXPECT_EQ(spine.description, "spine \"quoted\" name");
  EXPECT_EQ(spine.ports[33].remote, (PortRef{*f.findNode(Guid{0x20}), 2}));
  EXPECT_EQ(spine.ports[33].vlCap, 4);
  EXPECT_EQ(spine.ports[33].link.widthActive, 2);
  EXPECT_EQ(nodeOf(f, 0x30).description, "h");
  EXPECT_EQ(nodeOf(f, 0x30).ports[1].link.speedActive, 4);
}

TEST(IbnetdiscoverReader, ReadsOldCapturesThatPrintNoRate) {
  const Fabric f = parsed(replaced(replaced(kSmall, "\"b\" lid 2 4xQDR", "\"b\" lid 2"),
                                   "\"a\" lid 1 4xQDR\n\ncaguid", "\"a\" lid 1\n\ncaguid"));
  EXPECT_TRUE(nodeOf(f, 0x10).ports[1].connected());
  EXPECT_EQ(nodeOf(f, 0x10).ports[1].state, PortState::Active);
}

TEST(IbnetdiscoverReader, FormatIsRecognised) {
  EXPECT_EQ(detectTopologyFormat(kCluster), TopologyFormat::Ibnetdiscover);
  EXPECT_EQ(detectTopologyFormat(kSmall), TopologyFormat::Ibnetdiscover);
  EXPECT_EQ(detectTopologyFormat("# net\nSwitch 8 \"S-1\"\n[1] \"h\"[1]\n"),
            TopologyFormat::IbsimNet);
}

// --- Errors: each names the file, the line and what was expected. ---

TEST(IbnetdiscoverReaderErrors, MalformedLine) {
  const auto e = errorOf(replaced(kSmall, "\n\ncaguid", "\nthis is not a capture line\ncaguid"));
  EXPECT_THAT(e, StartsWith("cluster.ibnd:9: "));
  EXPECT_THAT(e, HasSubstr("expected a node header"));
}

TEST(IbnetdiscoverReaderErrors, MalformedPortLine) {
  const auto e = errorOf(replaced(kSmall, "[3]\t\"H-", "[3\t\"H-"));
  EXPECT_THAT(e, StartsWith("cluster.ibnd:4: "));
  EXPECT_THAT(e, HasSubstr("expected a port number"));
}

TEST(IbnetdiscoverReaderErrors, MalformedLinkRate) {
  const auto e = errorOf(replaced(kSmall, "\"b\" lid 2 4xQDR", "\"b\" lid 2 4xQQR"));
  EXPECT_THAT(e, StartsWith("cluster.ibnd:3: "));
  EXPECT_THAT(e, HasSubstr("expected a link width and speed"));
}

TEST(IbnetdiscoverReaderErrors, UnknownNodeType) {
  const auto e = errorOf(replaced(kSmall, "Ca\t1 \"H-", "Bridge\t1 \"H-"));
  EXPECT_THAT(e, StartsWith("cluster.ibnd:11: "));
  EXPECT_THAT(e, HasSubstr("unknown node type 'Bridge'"));
}

TEST(IbnetdiscoverReaderErrors, UnknownNodeTypeInARemoteName) {
  const auto e =
      errorOf(replaced(kSmall, "[3]\t\"H-0000000000000030\"", "[3]\t\"?-0000000000000030\""));
  EXPECT_THAT(e, StartsWith("cluster.ibnd:4: "));
  EXPECT_THAT(e, HasSubstr("unknown node type"));
}

TEST(IbnetdiscoverReaderErrors, PortBeyondTheNodesPortCount) {
  const auto e = errorOf(replaced(kSmall, "[3]\t\"H-", "[5]\t\"H-"));
  EXPECT_THAT(e, StartsWith("cluster.ibnd:4: "));
  EXPECT_THAT(e, HasSubstr("port [5] is beyond the 4 ports"));
}

TEST(IbnetdiscoverReaderErrors, RemotePortBeyondTheRemotesPortCount) {
  const auto e =
      errorOf(replaced(kSmall, "\"S-0000000000000020\"[2]", "\"S-0000000000000020\"[9]"));
  EXPECT_THAT(e, StartsWith("cluster.ibnd:3: "));
  EXPECT_THAT(e, HasSubstr("which has 4 ports"));
}

TEST(IbnetdiscoverReaderErrors, TheTwoEndsOfACableDisagree) {
  // a says its port 1 reaches b port 2; b says its port 2 reaches a port 4.
  const auto e =
      errorOf(replaced(kSmall, "\"S-0000000000000010\"[1]", "\"S-0000000000000010\"[4]"));
  EXPECT_THAT(e, StartsWith("cluster.ibnd:3: "));
  EXPECT_THAT(e, HasSubstr("but line 8 says that port leads to 0x0000000000000010 port [4]"));
}

TEST(IbnetdiscoverReaderErrors, ACableListedAtOneEndOnly) {
  const auto e = errorOf(replaced(kSmall, "[2]\t\"S-0000000000000010\"[1]\t\t# \"a\" lid 1 4xQDR\n",
                                  "# port 2 went missing\n"));
  EXPECT_THAT(e, StartsWith("cluster.ibnd:3: "));
  EXPECT_THAT(e, HasSubstr("section (line 7) does not list port [2]"));
}

TEST(IbnetdiscoverReaderErrors, DuplicateNodeGuid) {
  const auto e =
      errorOf(replaced(replaced(kSmall, "switchguid=0x20(20)", "switchguid=0x10(10)"),
                       "Switch\t4 \"S-0000000000000020\"", "Switch\t4 \"S-0000000000000010\""));
  EXPECT_THAT(e, StartsWith("cluster.ibnd:7: "));
  EXPECT_THAT(e, HasSubstr("node GUID 0x0000000000000010 appears twice"));
  EXPECT_THAT(e, HasSubstr("at line 2"));
}

TEST(IbnetdiscoverReaderErrors, DuplicatePortGuid) {
  // The CA's port claims the GUID switch a already has.
  const std::string text = replaced(replaced(kSmall, "[1](31)", "[1](10)"), "[1](31) ", "[1](10) ");
  const auto e = errorOf(text);
  EXPECT_THAT(e, StartsWith("cluster.ibnd:11: "));
  EXPECT_THAT(e, HasSubstr("port GUID 0x0000000000000010"));
}

TEST(IbnetdiscoverReaderErrors, TwoPortsOfOneCaWithTheSameGuid) {
  const auto e =
      errorOf(replaced(kCluster, "[2](2c90300000003) \t\"S-", "[2](2c90300000002) \t\"S-"));
  EXPECT_THAT(e, StartsWith("cluster.ibnd:31: "));
  EXPECT_THAT(e, HasSubstr("is also the GUID of its port [1] (line 30)"));
}

TEST(IbnetdiscoverReaderErrors, ALinkToANodeWithNoSection) {
  // A capture cut short: h's section is gone, a still points at it.
  std::string text{kSmall};
  text.resize(text.find("caguid=0x30"));
  const auto e = errorOf(text);
  EXPECT_THAT(e, StartsWith("cluster.ibnd:4: "));
  EXPECT_THAT(e, HasSubstr("which has no section in this file"));
}

TEST(IbnetdiscoverReaderErrors, ALidThatContradictsTheNodesOwnSection) {
  const auto e = errorOf(replaced(kSmall, "\"b\" lid 2 4xQDR", "\"b\" lid 7 4xQDR"));
  EXPECT_THAT(e, StartsWith("cluster.ibnd:3: "));
  EXPECT_THAT(e, HasSubstr("has LID 7, but line 7 gives LID 2"));
}

TEST(IbnetdiscoverReaderErrors, AGuidLineThatDoesNotMatchItsHeader) {
  const auto e = errorOf(replaced(kSmall, "switchguid=0x20(20)", "switchguid=0x21(21)"));
  EXPECT_THAT(e, StartsWith("cluster.ibnd:7: "));
  EXPECT_THAT(e, HasSubstr("line 6 announced switch 0x0000000000000021"));
}

TEST(IbnetdiscoverReaderErrors, APortLineBeforeAnyHeader) {
  const auto e = errorOf(std::string("[1]\t\"S-0000000000000020\"[2]\t\t# \"b\" lid 2 4xQDR\n") +
                         std::string(kSmall));
  EXPECT_THAT(e, StartsWith("cluster.ibnd:1: "));
  EXPECT_THAT(e, HasSubstr("port line outside a node section"));
}

TEST(IbnetdiscoverReaderErrors, APortListedTwice) {
  const auto e = errorOf(replaced(kSmall, "[3]\t\"H-", "[1]\t\"H-"));
  EXPECT_THAT(e, StartsWith("cluster.ibnd:4: "));
  EXPECT_THAT(e, HasSubstr("listed twice (also at line 3)"));
}

TEST(IbnetdiscoverReaderErrors, AHeaderWhoseNameHasTheWrongType) {
  const auto e = errorOf(replaced(kSmall, "Ca\t1 \"H-", "Ca\t1 \"S-"));
  EXPECT_THAT(e, StartsWith("cluster.ibnd:11: "));
  EXPECT_THAT(e, HasSubstr("must name its node H-<guid>"));
}

TEST(IbnetdiscoverReaderErrors, AFileWithNoNodes) {
  const auto e = errorOf("#\n# nothing here\n");
  EXPECT_THAT(e, StartsWith("cluster.ibnd: no node sections"));
}

}  // namespace
}  // namespace ibsm
