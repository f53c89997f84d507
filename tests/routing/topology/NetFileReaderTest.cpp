// ibsim net files: nodes get the GUIDs, descriptions, LIDs and link rates
// ibsim gives them, so a dry run names the ports a live run on ibsim sees;
// what ibsim would refuse, or read differently than written, is an error.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <ibsm/Topology.h>

#include <string>

namespace ibsm {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// Line numbers matter to the error tests.
constexpr std::string_view kNet = R"(# a small fabric
Switch 4 "sw" # "spine switch" enhanced port 0 lid 7
[1] "h1"[1]
[2]	"h2"[2]	w=1
[3] "sw2"[3]

Hca	2 "h1"
[1] "sw"[1]

Switch	4 "sw2"
[3] "sw"[3]

Hca 2 "h2"
[2] "sw"[2] w=1
)";

std::string replaced(std::string_view text, std::string_view from, std::string_view to) {
  std::string s{text};
  const auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

Fabric parsed(std::string_view text) {
  auto f = parseNetFile(text, "fabric.net");
  EXPECT_TRUE(f) << (f ? "" : f.error().message);
  return f ? std::move(*f) : Fabric{};
}

std::string errorOf(std::string_view text) {
  auto f = parseNetFile(text, "fabric.net");
  EXPECT_FALSE(f) << "expected the net file to be rejected";
  return f ? "" : f.error().message;
}

const Node& named(const Fabric& f, std::string_view description) {
  for (const Node& n : f.nodes())
    if (n.description == description) return n;
  ADD_FAILURE() << "no node " << description;
  static const Node kNone = Node::makeCa(Guid{}, {Guid{}, Guid{}}, "none");
  return kNone;
}

TEST(NetFileReader, GivesGuidsPerNodeTypeInFileOrderAsIbsimDoes) {
  const Fabric f = parsed(kNet);
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(named(f, "spine switch").guid, Guid{0x200000});
  EXPECT_EQ(named(f, "sw2").guid, Guid{0x200001});
  const Node& h1 = named(f, "h1");
  EXPECT_EQ(h1.guid, Guid{0x100000});
  EXPECT_EQ(h1.ports[1].guid, Guid{0x100001});
  EXPECT_EQ(h1.ports[2].guid, Guid{0x100002});
  const Node& h2 = named(f, "h2");
  EXPECT_EQ(h2.guid, Guid{0x100003});  // a node GUID and one per port before it
  EXPECT_EQ(h2.ports[2].guid, Guid{0x100005});
  EXPECT_EQ(h2.systemImageGuid, h2.guid);
  EXPECT_EQ(named(f, "sw2").ports[3].guid, Guid{0x200001});  // a switch has one GUID
}

TEST(NetFileReader, CablesEveryPortBothEndsName) {
  const Fabric f = parsed(kNet);
  const PortRef h2port = *f.findPort(Guid{0x100005});
  const NodeId sw = *f.findNode(Guid{0x200000});
  EXPECT_EQ(f.port(h2port).remote, (PortRef{sw, 2}));
  EXPECT_EQ(f.port({sw, 2}).remote, h2port);
  EXPECT_EQ(f.port({sw, 3}).remote, (PortRef{*f.findNode(Guid{0x200001}), 3}));
  EXPECT_EQ(f.port({sw, 3}).state, PortState::Active);
  EXPECT_EQ(f.port({sw, 4}).state, PortState::Down);
  EXPECT_FALSE(f.port({sw, 4}).connected());
  EXPECT_FALSE(f.port(*f.findPort(Guid{0x100004})).connected());
}

TEST(NetFileReader, TakesTheDescriptionLidAndPortZeroKindFromTheHeaderComment) {
  const Fabric f = parsed(kNet);
  const Node& sw = named(f, "spine switch");
  EXPECT_EQ(sw.ports[0].lid, Lid{7});
  EXPECT_TRUE(sw.switchData->enhancedPort0);
  EXPECT_FALSE(named(f, "sw2").switchData->enhancedPort0);
  // Without a quote, the description runs up to " lid " (ibsim's parse_node_desc).
  const Fabric g = parsed(
      replaced(kNet, R"(# "spine switch" enhanced port 0 lid 7)", "# spine switch lid 9 lmc 1"));
  EXPECT_EQ(named(g, "spine switch").ports[0].lid, Lid{9});
  EXPECT_EQ(named(g, "spine switch").ports[0].lmc, 1);
}

TEST(NetFileReader, DefaultLinkIs4xSdrAndW1MakesItOneLane) {
  const Fabric f = parsed(kNet);
  const NodeId sw = *f.findNode(Guid{0x200000});
  EXPECT_EQ(f.port({sw, 1}).link.widthActive, 2);  // 4x
  EXPECT_EQ(f.port({sw, 1}).link.speedActive, 1);  // SDR
  EXPECT_EQ(f.port({sw, 1}).link.extSpeedActive, 0);
  EXPECT_EQ(f.port({sw, 2}).link.widthActive, 1);  // w=1 at both ends: 1x
  EXPECT_EQ(f.port({sw, 2}).link.widthEnabled, 1);
  EXPECT_EQ(f.port(*f.findPort(Guid{0x100005})).link.widthActive, 1);
}

TEST(NetFileReader, LinkTrainsToTheBestRateBothEndsEnable) {
  const Fabric f = parsed(replaced(replaced(kNet, "[1] \"h1\"[1]", "[1] \"h1\"[1] w=11 s=7 e=3"),
                                   "[1] \"sw\"[1]", "[1] \"sw\"[1] w=3 s=3 e=1"));
  const Port& p = named(f, "h1").ports[1];
  EXPECT_EQ(p.link.widthActive, 2);     // 4x, the widest of 1x|4x|12x and 1x|4x
  EXPECT_EQ(p.link.speedActive, 2);     // DDR
  EXPECT_EQ(p.link.extSpeedActive, 1);  // FDR
  EXPECT_EQ(p.link.widthEnabled, 3);
}

TEST(NetFileReader, FileWideDefaultsApplyToTheNodesAfterThem) {
  const Fabric f = parsed(std::string("width=3\nspeed=7\nextspeed=4\n") + std::string(kNet));
  EXPECT_EQ(named(f, "h1").ports[1].link.widthActive, 2);
  EXPECT_EQ(named(f, "h1").ports[1].link.speedActive, 4);
  EXPECT_EQ(named(f, "h1").ports[1].link.extSpeedActive, 4);  // HDR
}

TEST(NetFileReader, GuidBasesMoveTheCounters) {
  const Fabric f = parsed(
      "switchguid=0x0002c90000000100\n"
      "Switch 2 \"a\"\n[1] \"b\"[1]\n[2] \"r\"[1]\n\n"
      "caguid+0x40\n"
      "sysimgguid=0x77\n"
      "vendid=0x2c9\n"
      "devid=0x1003\n"
      "Hca 1 \"b\"\n[1] \"a\"[1]\n\n"
      "rtguid=0x300000\n"
      "Rtr 1 \"r\"\n[1] \"a\"[2]\n\n"
      "Hca 1 \"c\"\n");
  const Node& a = named(f, "a");
  EXPECT_EQ(a.guid, Guid{0x0002c90000000100});
  const Node& b = named(f, "b");
  EXPECT_EQ(b.guid, Guid{0x100040});
  EXPECT_EQ(b.ports[1].guid, Guid{0x100041});
  EXPECT_EQ(b.systemImageGuid, Guid{0x77});
  EXPECT_EQ(b.vendorId, 0x2c9u);
  EXPECT_EQ(b.deviceId, 0x1003);
  const Node& r = named(f, "r");
  EXPECT_EQ(r.type, NodeType::Router);
  EXPECT_EQ(r.guid, Guid{0x300000});
  EXPECT_EQ(r.ports[1].guid, Guid{0x300001});
  const Node& c = named(f, "c");
  EXPECT_EQ(c.guid, Guid{0x100042});
  EXPECT_EQ(c.systemImageGuid, c.guid);  // sysimgguid= and vendid= hold for one node
  EXPECT_EQ(c.vendorId, 0u);
  EXPECT_EQ(c.deviceId, 0x1003);  // devid= holds until changed
}

TEST(NetFileReader, ReadsTheIbnetdiscoverAnnotationsIbsimReads) {
  // ibsim accepts captures as net files: widths, speeds and LIDs come from
  // the '# ... lid N 4xQDR' tails, GUIDs from its own counters.
  const Fabric f = parsed(
      "Switch\t8 \"S-0000000000200001\"\t\t# \"Switch2\" base port 0 lid 3 lmc 0\n"
      "[1]\t\"H-0000000000100003\"[1](100004) \t\t# \"Hca2\" lid 5 4xQDR\n"
      "\n"
      "Ca\t2 \"H-0000000000100003\"\t\t# \"Hca2\"\n"
      "[1](100004) \t\"S-0000000000200001\"[1]\t\t# lid 5 lmc 0 \"Switch2\" lid 3 4xQDR\n");
  const Node& sw = named(f, "Switch2");
  const Node& hca = named(f, "Hca2");
  EXPECT_EQ(sw.guid, Guid{0x200000});
  EXPECT_EQ(hca.guid, Guid{0x100000});
  EXPECT_EQ(sw.ports[0].lid, Lid{3});
  EXPECT_EQ(hca.ports[1].lid, Lid{5});
  EXPECT_EQ(hca.ports[1].link.speedActive, 4);  // QDR
  EXPECT_EQ(hca.ports[1].link.widthActive, 2);
}

TEST(NetFileReader, AcceptsIbsimsOwnLayoutQuirks) {
  // Remote port omitted means port 1; comments inside a record; a record
  // that lists every port may be followed by the next header directly.
  const Fabric f = parsed(
      "Switch 1 \"a\"\n"
      "[1] \"b\"\n"
      "Hca 1 \"b\" # host b\n"
      "# a comment inside the record\n"
      "[1] \"a\"[1]\n");
  EXPECT_EQ(named(f, "host b").ports[1].remote, (PortRef{*f.findNode(Guid{0x200000}), 1}));
}

TEST(NetFileReader, FormatIsRecognised) {
  EXPECT_EQ(detectTopologyFormat(kNet), TopologyFormat::IbsimNet);
  EXPECT_EQ(detectTopologyFormat(""), TopologyFormat::IbsimNet);
}

// --- Errors: each names the file, the line and what was expected. ---

TEST(NetFileReaderErrors, MalformedLine) {
  const auto e = errorOf(replaced(kNet, "[3] \"sw2\"[3]\n\n", "[3] \"sw2\"[3]\n\nnonsense here\n"));
  EXPECT_THAT(e, StartsWith("fabric.net:7: "));
  EXPECT_THAT(e, HasSubstr("expected a node header"));
}

TEST(NetFileReaderErrors, AnIndentedLineIbsimWouldIgnore) {
  const auto e = errorOf(replaced(kNet, "Switch\t4 \"sw2\"", "  Switch\t4 \"sw2\""));
  EXPECT_THAT(e, StartsWith("fabric.net:10: "));
  EXPECT_THAT(e, HasSubstr("remove the indentation"));
}

TEST(NetFileReaderErrors, UnknownNodeType) {
  const auto e = errorOf(replaced(kNet, "Switch\t4 \"sw2\"", "Router\t4 \"sw2\""));
  EXPECT_THAT(e, StartsWith("fabric.net:10: "));
  EXPECT_THAT(e, HasSubstr("unknown node type 'Router'"));
}

TEST(NetFileReaderErrors, PortBeyondTheNodesPortCount) {
  const auto e = errorOf(replaced(kNet, "[3] \"sw2\"[3]", "[5] \"sw2\"[3]"));
  EXPECT_THAT(e, StartsWith("fabric.net:5: "));
  EXPECT_THAT(e, HasSubstr("port [5] is beyond the 4 ports of switch \"sw\""));
}

TEST(NetFileReaderErrors, RemotePortBeyondTheRemotesPortCount) {
  const auto e = errorOf(replaced(kNet, "[1] \"h1\"[1]", "[1] \"h1\"[3]"));
  EXPECT_THAT(e, StartsWith("fabric.net:3: "));
  EXPECT_THAT(e, HasSubstr("which has 2 ports"));
}

TEST(NetFileReaderErrors, ACableWrittenAtOneEndOnly) {
  const auto e = errorOf(replaced(kNet, "[3] \"sw\"[3]\n", ""));
  EXPECT_THAT(e, StartsWith("fabric.net:5: "));
  EXPECT_THAT(e, HasSubstr("does not list that port; ibsim needs a cable written at both ends"));
}

TEST(NetFileReaderErrors, TheTwoEndsOfACableDisagree) {
  const auto e = errorOf(replaced(kNet, "[3] \"sw\"[3]", "[3] \"sw\"[4]"));
  EXPECT_THAT(e, StartsWith("fabric.net:5: "));
  EXPECT_THAT(e, HasSubstr("but line 11 says that port leads to \"sw\"[4]"));
}

TEST(NetFileReaderErrors, ACableToANodeThatIsNotDefined) {
  const auto e = errorOf(replaced(kNet, "[3] \"sw2\"[3]", "[3] \"sw3\"[3]"));
  EXPECT_THAT(e, StartsWith("fabric.net:5: "));
  EXPECT_THAT(e, HasSubstr("leads to \"sw3\", but no node of that name"));
}

TEST(NetFileReaderErrors, ANodeDefinedTwice) {
  const auto e = errorOf(replaced(kNet, "Switch\t4 \"sw2\"", "Switch\t4 \"h1\""));
  EXPECT_THAT(e, StartsWith("fabric.net:10: "));
  EXPECT_THAT(e, HasSubstr("node \"h1\" is defined twice (first at line 7)"));
}

TEST(NetFileReaderErrors, DuplicateGuids) {
  const auto e =
      errorOf(replaced(kNet, "Switch\t4 \"sw2\"", "switchguid=0x200000\nSwitch\t4 \"sw2\""));
  EXPECT_THAT(e, StartsWith("fabric.net:11: "));
  EXPECT_THAT(e, HasSubstr("GUID 0x0000000000200000, already the GUID of switch \"sw\""));
}

TEST(NetFileReaderErrors, DuplicatePortGuids) {
  // The CA base moved onto the port GUIDs h1 already has.
  const auto e = errorOf(replaced(kNet, "Hca 2 \"h2\"", "caguid=0x100001\nHca 2 \"h2\""));
  EXPECT_THAT(e, StartsWith("fabric.net:14: "));
  EXPECT_THAT(e, HasSubstr("port GUID 0x0000000000100002"));
}

TEST(NetFileReaderErrors, AHeaderIbsimWouldSwallowAsTheEndOfARecord) {
  const auto e = errorOf(replaced(kNet, "[1] \"sw\"[1]\n\n", "[1] \"sw\"[1]\n"));
  EXPECT_THAT(e, StartsWith("fabric.net:9: "));
  EXPECT_THAT(e, HasSubstr("ibsim would take this line as that end and skip it"));
}

TEST(NetFileReaderErrors, ARemotePortIbsimWouldNotSee) {
  const auto e = errorOf(replaced(kNet, "[3] \"sw2\"[3]", "[3] \"sw2\" [3]"));
  EXPECT_THAT(e, StartsWith("fabric.net:5: "));
  EXPECT_THAT(e, HasSubstr("here it would use port 1"));
}

TEST(NetFileReaderErrors, APortCountIbsimWouldMisread) {
  // ibsim reads counts with strtoul(.., 0): a leading zero makes them octal.
  const auto e = errorOf(replaced(kNet, "Switch\t4 \"sw2\"", "Switch\t010 \"sw2\""));
  EXPECT_THAT(e, StartsWith("fabric.net:10: "));
  EXPECT_THAT(e, HasSubstr("ibsim reads the port count of this 'Switch' header as 8, not 10"));
}

TEST(NetFileReaderErrors, EndsWithNoCommonWidth) {
  const auto e = errorOf(replaced(kNet, "[2] \"sw\"[2] w=1", "[2] \"sw\"[2]"));
  EXPECT_THAT(e, StartsWith("fabric.net:4: "));
  EXPECT_THAT(e, HasSubstr("share no link width (this end enables 1, line 14 enables 2)"));
}

TEST(NetFileReaderErrors, ARouterIbsimWouldGiveGuidZero) {
  const auto e = errorOf(std::string(kNet) + "\nRt 1 \"r\"\n");
  EXPECT_THAT(e, StartsWith("fabric.net:16: "));
  EXPECT_THAT(e, HasSubstr("GUID 0"));
}

TEST(NetFileReaderErrors, APortListedTwice) {
  const auto e = errorOf(replaced(kNet, "[3] \"sw2\"[3]", "[1] \"sw2\"[3]"));
  EXPECT_THAT(e, StartsWith("fabric.net:5: "));
  EXPECT_THAT(e, HasSubstr("listed twice (also at line 3)"));
}

TEST(NetFileReaderErrors, MorePortLinesThanPorts) {
  const auto e = errorOf("Hca 1 \"a\"\n[1] \"b\"[1]\n[1] \"b\"[2]\n\nHca 2 \"b\"\n");
  EXPECT_THAT(e, StartsWith("fabric.net:3: "));
  EXPECT_THAT(e, HasSubstr("more port lines than the 1 ports of CA \"a\""));
}

TEST(NetFileReaderErrors, BadAndUnknownPortOptions) {
  auto e = errorOf(replaced(kNet, "[2] \"sw\"[2] w=1", "[2] \"sw\"[2] w=40"));
  EXPECT_THAT(e, StartsWith("fabric.net:14: "));
  EXPECT_THAT(e, HasSubstr("bad link width w=40"));
  e = errorOf(replaced(kNet, "[2] \"sw\"[2] w=1", "[2] \"sw\"[2] width=1"));
  EXPECT_THAT(e, StartsWith("fabric.net:14: "));
  EXPECT_THAT(e, HasSubstr("ibsim port options are w=, s= and e="));
}

TEST(NetFileReaderErrors, UnsupportedIbsimDirectives) {
  const auto e = errorOf(std::string("include \"other.net\"\n") + std::string(kNet));
  EXPECT_THAT(e, StartsWith("fabric.net:1: "));
  EXPECT_THAT(e, HasSubstr("'include' lines are not supported"));
}

TEST(NetFileReaderErrors, ALineTooLongForIbsim) {
  const auto e = errorOf(replaced(kNet, "# a small fabric", "# " + std::string(300, 'x')));
  EXPECT_THAT(e, StartsWith("fabric.net:1: "));
  EXPECT_THAT(e, HasSubstr("ibsim reads at most 254"));
}

TEST(NetFileReaderErrors, AFileWithNoNodes) {
  EXPECT_THAT(errorOf("# only a comment\n"), StartsWith("fabric.net: no nodes found"));
}

}  // namespace
}  // namespace ibsm
