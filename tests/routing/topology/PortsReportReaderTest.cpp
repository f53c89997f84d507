// The `ibnetdiscover -p` ports report: one line per port, with its type, LID,
// number, GUID, rate and the port at the other end. It names ports, not
// nodes: switches are their port GUIDs, each CA port a node of its own; the
// reader says so once, and is as strict about the cabling as with the
// topology output.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <ibsm/Topology.h>

#include <string>
#include <vector>

#include "tests/routing/topology/CaptureText.h"

namespace ibsm {
namespace {

using testcaptures::joined;
using testcaptures::replaced;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using Warnings = std::vector<std::string>;

// Switch a (LID 1), switch b (LID 2), a dual-port HCA "h HCA-1" with port 1
// on a and port 2 on b; a's port 2 and b's ports 3-4 have no cable.
constexpr std::string_view kReport =
    R"(SW     1  3 0x0000000000000010 4x QDR - SW     2  2 0x0000000000000020 ( 'a' - 'b' )
SW     1  2 0x0000000000000010 4x QDR                                    'a'
SW     1  1 0x0000000000000010 4x QDR - CA     3  1 0x0000000000000031 ( 'a' - 'h HCA-1' )
SW     2  4 0x0000000000000020 4x SDR                                    'b'
SW     2  3 0x0000000000000020 ?? ???                                    'b'
SW     2  2 0x0000000000000020 4x QDR - SW     1  3 0x0000000000000010 ( 'b' - 'a' )
SW     2  1 0x0000000000000020 4x QDR - CA     4  2 0x0000000000000032 ( 'b' - 'h HCA-1' )
CA     3  1 0x0000000000000031 4x QDR - SW     1  1 0x0000000000000010 ( 'h HCA-1' - 'a' )
CA     4  2 0x0000000000000032 4x QDR - SW     2  1 0x0000000000000020 ( 'h HCA-1' - 'b' )
)";

constexpr std::string_view kAboutTheReport =
    "ports.txt:1: an 'ibnetdiscover -p' ports report names ports, not nodes: each switch is read "
    "as its port GUID, and each of its 2 CA and router ports as a node of its own (which ports "
    "share an HCA is not in the report); 'ibnetdiscover' without -p prints the nodes";

TopologyRead read(std::string_view text) {
  auto f = parseIbnetdiscoverPorts(text, "ports.txt");
  EXPECT_TRUE(f) << (f ? "" : f.error().message);
  return f ? std::move(*f) : TopologyRead{};
}

std::string errorOf(std::string_view text) {
  auto f = parseIbnetdiscoverPorts(text, "ports.txt");
  EXPECT_FALSE(f) << "expected the report to be rejected";
  return f ? "" : f.error().message;
}

const Node& nodeOf(const Fabric& f, std::uint64_t guid) {
  const auto id = f.findNode(Guid{guid});
  EXPECT_TRUE(id) << std::hex << guid;
  return f.node(id.value_or(0));
}

TEST(PortsReport, IsDetectedByItsLines) {
  EXPECT_EQ(detectTopologyFormat(kReport), TopologyFormat::IbnetdiscoverPorts);
  EXPECT_EQ(
      detectTopologyFormat(joined({"\xEF\xBB\xBF[root@host ~]# ibnetdiscover -p\n", kReport})),
      TopologyFormat::IbnetdiscoverPorts);
}

TEST(PortsReport, SaysOnceWhatItCannotKnow) {
  EXPECT_EQ(read(kReport).warnings, Warnings{std::string(kAboutTheReport)});
}

TEST(PortsReport, ASwitchIsItsPortGuidWithEveryPortItLists) {
  const Fabric f = read(kReport).fabric;
  ASSERT_EQ(f.switches().size(), 2u);
  const Node& a = nodeOf(f, 0x10);
  const Node& b = nodeOf(f, 0x20);
  EXPECT_EQ(a.description, "a");
  EXPECT_EQ(a.numPorts(), 3);  // the highest port it lists
  EXPECT_EQ(b.numPorts(), 4);
  EXPECT_EQ(a.ports[0].lid, Lid{1});
  EXPECT_EQ(b.ports[0].lid, Lid{2});
  EXPECT_EQ(a.ports[2].guid, Guid{0x10});
  EXPECT_EQ(a.ports[3].remote, (PortRef{*f.findNode(Guid{0x20}), 2}));
  EXPECT_EQ(a.ports[3].state, PortState::Active);
  EXPECT_EQ(a.ports[3].link.widthActive, 2);  // 4x
  EXPECT_EQ(a.ports[3].link.speedActive, 4);  // QDR
  EXPECT_FALSE(a.ports[2].connected());
  EXPECT_EQ(a.ports[2].state, PortState::Down);
  EXPECT_FALSE(b.ports[3].connected());
}

TEST(PortsReport, EachCaPortIsANodeOfItsOwnNamedByItsPortGuid) {
  const Fabric f = read(kReport).fabric;
  ASSERT_EQ(f.endNodes().size(), 2u);
  const Node& first = nodeOf(f, 0x31);
  EXPECT_EQ(first.type, NodeType::Ca);
  EXPECT_EQ(first.description, "h HCA-1");
  EXPECT_EQ(first.numPorts(), 1);
  EXPECT_EQ(first.ports[1].guid, Guid{0x31});
  EXPECT_EQ(first.ports[1].lid, Lid{3});
  EXPECT_EQ(first.ports[1].remote, (PortRef{*f.findNode(Guid{0x10}), 1}));
  // Port 2 keeps its number: a two-port node whose port 1 the report does not show.
  const Node& second = nodeOf(f, 0x32);
  EXPECT_EQ(second.numPorts(), 2);
  EXPECT_EQ(second.ports[2].guid, Guid{0x32});
  EXPECT_EQ(second.ports[2].lid, Lid{4});
  EXPECT_TRUE(second.ports[2].connected());
  EXPECT_FALSE(second.ports[1].connected());
  EXPECT_EQ(second.ports[1].guid, Guid{});
  EXPECT_EQ(f.findPort(Guid{0x32})->port, 2);
}

TEST(PortsReport, ReadsRouterPorts) {
  std::string text =
      replaced(kReport, "- CA     4  2 0x0000000000000032", "- RT     4  2 0x0000000000000032");
  text = replaced(text, "CA     4  2 0x0000000000000032", "RT     4  2 0x0000000000000032");
  EXPECT_EQ(nodeOf(read(text).fabric, 0x32).type, NodeType::Router);
}

TEST(PortsReport, APromptAndStderrAroundItAreSkipped) {
  const TopologyRead r =
      read(joined({"[root@host ~]# ibnetdiscover -p\nibwarn: [77] mad_rpc: timeout\n", kReport,
                   "[root@host ~]#\n"}));
  EXPECT_EQ(r.fabric.size(), 4u);
  EXPECT_EQ(r.warnings,
            (Warnings{"ports.txt:1-2: skipped 2 lines that are not topology (a shell prompt, a "
                      "message printed on stderr), the first: \"[root@host ~]# ibnetdiscover -p\"",
                      "ports.txt:12: skipped 1 line that is not topology (a shell prompt): "
                      "\"[root@host ~]#\"",
                      replaced(kAboutTheReport, "ports.txt:1:", "ports.txt:3:")}));
}

TEST(PortsReport, DifferentRatesAtTheTwoEndsAreReadAsTheLower) {
  const TopologyRead r = read(replaced(kReport, "SW     2  2 0x0000000000000020 4x QDR",
                                       "SW     2  2 0x0000000000000020 1x DDR"));
  const Port& p = r.fabric.port({*r.fabric.findNode(Guid{0x10}), 3});
  EXPECT_EQ(p.link.widthActive, 1);
  EXPECT_EQ(p.link.speedActive, 2);
  EXPECT_EQ(r.warnings,
            (Warnings{std::string(kAboutTheReport),
                      "ports.txt:1: the two ends of a cable report different rates: port [3] of "
                      "switch 0x0000000000000010 \"a\" says 4xQDR (ports.txt:1), port [2] of "
                      "switch 0x0000000000000020 \"b\" says 1xDDR (ports.txt:6); read as 1xDDR, "
                      "the lower width and the lower speed"}));
}

// --- Errors: file, line and what was expected ---

TEST(PortsReportErrors, TheTwoEndsOfACableDisagree) {
  // a's port 3 goes to b's port 2, but b's port 2 goes to a's port 2.
  const auto e = errorOf(replaced(kReport, "- SW     1  3 0x0000000000000010 ( 'b' - 'a' )",
                                  "- SW     1  2 0x0000000000000010 ( 'b' - 'a' )"));
  EXPECT_THAT(e, StartsWith("ports.txt:1: "));
  EXPECT_THAT(e, HasSubstr("port [3] of switch 0x0000000000000010 \"a\" leads to port [2] of "
                           "switch 0x0000000000000020 \"b\", but line 6 says that port leads to "
                           "port [2] of switch 0x0000000000000010 \"a\""));
}

TEST(PortsReportErrors, ACableListedAtOneEndOnly) {
  const auto e =
      errorOf(replaced(kReport,
                       "CA     3  1 0x0000000000000031 4x QDR - SW     1  1 0x0000000000000010 ( "
                       "'h HCA-1' - 'a' )\n",
                       ""));
  EXPECT_THAT(e, StartsWith("ports.txt:3: "));
  EXPECT_THAT(e, HasSubstr("leads to port [1] of CA 0x0000000000000031, which has no line in this "
                           "report (is the capture cut short?)"));
}

TEST(PortsReportErrors, ARemoteLidThatContradictsItsOwnLine) {
  const auto e = errorOf(replaced(kReport, "- CA     3  1", "- CA     9  1"));
  EXPECT_THAT(e, StartsWith("ports.txt:3: "));
  EXPECT_THAT(e, HasSubstr("has LID 9, but line 8 gives LID 3"));
}

TEST(PortsReportErrors, BrokenLids) {
  EXPECT_THAT(errorOf(replaced(kReport, "\nCA     3  1 0x", "\nCA    -1  1 0x")),
              StartsWith("ports.txt:8: this port: expected a LID from 0 to 49151, got '-1'"));
  EXPECT_THAT(errorOf(replaced(kReport, "- CA     3  1", "- CA 65535  1")),
              StartsWith("ports.txt:3: the remote port: LID 65535 is out of range: expected 0 "
                         "to 49151"));
}

TEST(PortsReportErrors, MalformedLines) {
  EXPECT_THAT(errorOf(replaced(kReport, "SW     1  2 0x", "??     1  2 0x")),
              StartsWith("ports.txt:2: unknown node type '?\?' of this port (expected SW, CA or "
                         "RT)"));
  EXPECT_THAT(errorOf(replaced(kReport, "0x0000000000000031 4x QDR - SW", "0x31 4x QQR - SW")),
              StartsWith("ports.txt:8: expected a link width and speed such as '4x QDR', got "
                         "'4x QQR'"));
  EXPECT_THAT(errorOf(replaced(kReport, "( 'a' - 'b' )", "( 'a' 'b' )")),
              StartsWith("ports.txt:1: expected \"( '<description>' - '<remote description>' )\""));
  EXPECT_THAT(errorOf(joined({kReport, "Switch 4 \"S-10\"\n"})),
              StartsWith("ports.txt:10: expected a port line of 'ibnetdiscover -p'"));
}

TEST(PortsReportErrors, ASwitchWithTwoLids) {
  const auto e = errorOf(replaced(kReport, "SW     1  2 0x", "SW     5  2 0x"));
  EXPECT_THAT(e, StartsWith("ports.txt:2: switch 0x0000000000000010 has LID 5 here but LID 1 at "
                            "line 1"));
}

TEST(PortsReportErrors, APortListedTwice) {
  const auto e = errorOf(joined({kReport, kReport.substr(0, kReport.find('\n') + 1)}));
  EXPECT_THAT(e, StartsWith("ports.txt:10: port [3] of switch 0x0000000000000010 is listed twice "
                            "(also at line 1)"));
}

}  // namespace
}  // namespace ibsm
