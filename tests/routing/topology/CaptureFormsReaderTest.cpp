// Captures as operators keep them: saved on Windows, copied from a terminal
// with the prompt, with what the diagnostics printed on stderr in the same
// file. None of that is wrong with the fabric, so the capture reads; what is
// skipped is said in one warning per run of lines. What only looks like noise
// (a malformed record, an unknown line between records) stays an error.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <ibsm/Topology.h>

#include <string>
#include <vector>

#include "tests/routing/topology/CaptureText.h"

namespace ibsm {
namespace {

using testcaptures::joined;
using testcaptures::kSmall;
using testcaptures::replaced;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using Warnings = std::vector<std::string>;

constexpr std::string_view kPrompt = "[root@host dir]# ibnetdiscover\n";
constexpr std::string_view kSmpError =
    "src/query_smp.c:195; umad (DR path slid 0; dlid 0; 0,1,3) bad status 110; Connection timed "
    "out\n";
constexpr std::string_view kIbwarn = "ibwarn: [4242] mad_rpc: _do_madrpc failed; dport (DR path)\n";

TopologyRead read(std::string_view text) {
  auto f = parseIbnetdiscover(text, "cap.txt");
  EXPECT_TRUE(f) << (f ? "" : f.error().message);
  return f ? std::move(*f) : TopologyRead{};
}

std::string errorOf(std::string_view text) {
  auto f = parseIbnetdiscover(text, "cap.txt");
  EXPECT_FALSE(f) << "expected the capture to be rejected";
  return f ? "" : f.error().message;
}

// The fabric of kSmall, whatever was around it.
void expectSmallFabric(const Fabric& f) {
  ASSERT_EQ(f.size(), 3u);
  const auto a = f.findNode(Guid{0x10});
  const auto h = f.findNode(Guid{0x30});
  ASSERT_TRUE(a && h);
  EXPECT_EQ(f.port({*a, 3}).remote, (PortRef{*h, 1}));
  EXPECT_EQ(f.node(*h).ports[1].guid, Guid{0x31});
  EXPECT_EQ(f.node(*h).ports[1].lid, Lid{3});
  EXPECT_EQ(f.node(*h).ports[1].link.speedActive, 4);  // QDR, from the file's last line
}

std::string withCrlf(std::string_view text) {
  std::string out;
  for (const char c : text) out += c == '\n' ? std::string("\r\n") : std::string(1, c);
  return out;
}

// --- Not errors, and nothing to say ---

TEST(CaptureForms, AByteOrderMarkIsNoPartOfTheFirstLine) {
  const TopologyRead r = read(joined({"\xEF\xBB\xBF", kSmall}));
  expectSmallFabric(r.fabric);
  EXPECT_EQ(r.warnings, Warnings{});
  const TopologyRead commented = read(joined({"\xEF\xBB\xBF#\n# Topology file\n", kSmall}));
  expectSmallFabric(commented.fabric);
  EXPECT_EQ(commented.warnings, Warnings{});
}

TEST(CaptureForms, CrlfLineEndsReadAsLineEnds) {
  const TopologyRead r = read(withCrlf(kSmall));
  expectSmallFabric(r.fabric);
  EXPECT_EQ(r.warnings, Warnings{});
}

TEST(CaptureForms, TheLastLineNeedsNoNewline) {
  std::string text{kSmall};
  text.pop_back();
  const TopologyRead r = read(text);
  expectSmallFabric(r.fabric);
  EXPECT_EQ(r.warnings, Warnings{});
  expectSmallFabric(read(withCrlf(text)).fabric);
}

// --- Skipped, with one warning per run ---

TEST(CaptureForms, TheShellPromptCopiedAlongIsSkipped) {
  const TopologyRead r = read(joined({kPrompt, kSmall}));
  expectSmallFabric(r.fabric);
  EXPECT_EQ(r.warnings, Warnings{"cap.txt:1: skipped 1 line that is not topology (a shell prompt): "
                                 "\"[root@host dir]# ibnetdiscover\""});
}

TEST(CaptureForms, StderrAndAPromptBeforeTheFirstRecordAreOneRun) {
  const std::string text =
      joined({kPrompt, kSmpError, kIbwarn,
              "\n#\n# Topology file: generated on Wed Dec  2 16:10:57 2026\n#\n", kSmall});
  const TopologyRead r = read(text);
  expectSmallFabric(r.fabric);
  EXPECT_EQ(r.warnings,
            Warnings{"cap.txt:1-3: skipped 3 lines that are not topology (a shell prompt, 2 "
                     "messages printed on stderr), the first: \"[root@host dir]# ibnetdiscover\""});
}

TEST(CaptureForms, OtherTextBeforeTheFirstRecordIsSkipped) {
  const TopologyRead r =
      read("Last login: Tue Dec  1 10:00:00 2026 from 10.0.0.1\n\n" + std::string(kSmall));
  expectSmallFabric(r.fabric);
  EXPECT_EQ(r.warnings, Warnings{"cap.txt:1: skipped 1 line that is not topology (a line of other "
                                 "text before the first record): \"Last login: Tue Dec  1 "
                                 "10:00:00 2026 from 10.0.0.1\""});
}

TEST(CaptureForms, StderrLinesBetweenRecordsAreSkippedWhereTheyStand) {
  // One inside a's section (the section goes on after it), one between sections.
  std::string text = replaced(kSmall, "4xQDR\n[3]", joined({"4xQDR\n", kIbwarn, "[3]"}));
  text = replaced(text, "\n\ncaguid", joined({"\n", kSmpError, "\ncaguid"}));
  const TopologyRead r = read(text);
  expectSmallFabric(r.fabric);
  EXPECT_EQ(r.warnings,
            (Warnings{"cap.txt:4: skipped 1 line that is not topology (a message printed on "
                      "stderr): \"ibwarn: [4242] mad_rpc: _do_madrpc failed; dport (DR path)\"",
                      "cap.txt:10: skipped 1 line that is not topology (a message printed on "
                      "stderr): \"src/query_smp.c:195; umad (DR path slid 0; dlid 0; 0,1,3) "
                      "ba...\""}));
}

TEST(CaptureForms, APromptAfterTheLastRecordIsSkipped) {
  const TopologyRead r = read(joined({kSmall, "[root@host dir]# \nme@host:~$ exit\n"}));
  expectSmallFabric(r.fabric);
  EXPECT_EQ(r.warnings, Warnings{"cap.txt:13-14: skipped 2 lines that are not topology (2 shell "
                                 "prompts), the first: \"[root@host dir]#\""});
}

TEST(CaptureForms, LineNumbersCountTheSkippedLines) {
  const auto e =
      errorOf(joined({kPrompt, replaced(kSmall, "\"b\" lid 2 4xQDR", "\"b\" lid 7 4xQDR")}));
  EXPECT_THAT(e, StartsWith("cap.txt:4: "));
}

// --- Only what is clearly not topology is skipped ---

TEST(CaptureForms, AMalformedRecordAfterAPromptIsStillAnError) {
  const auto e = errorOf(std::string(kPrompt) + replaced(kSmall, "Switch\t4 \"S-0000000000000010\"",
                                                         "Switch\t4 S-0000000000000010"));
  EXPECT_THAT(e, StartsWith("cap.txt:3: "));
  EXPECT_THAT(e, HasSubstr("expected a quoted node name"));
}

TEST(CaptureForms, APortLineBeforeAnyHeaderIsNotAPrompt) {
  const auto e =
      errorOf("[1]\t\"S-0000000000000020\"[2]\t\t# \"b\" lid 2 4xQDR\n" + std::string(kSmall));
  EXPECT_THAT(e, StartsWith("cap.txt:1: "));
  EXPECT_THAT(e, HasSubstr("port line outside a node section"));
}

TEST(CaptureForms, SomethingThatOnlyResemblesAStderrMessageIsAnError) {
  for (const std::string_view odd :
       {"ibwarn [4242] mad_rpc: failed\n", "query_smp.c 195 failed\n", "Connection timed out\n"}) {
    const auto e = errorOf(replaced(kSmall, "\n\ncaguid", joined({"\n", odd, "caguid"})));
    EXPECT_THAT(e, StartsWith("cap.txt:9: ")) << odd;
    EXPECT_THAT(e, HasSubstr("expected a node header")) << odd;
  }
}

// --- A cable whose two ends report different rates ---

std::string withRates(std::string_view atA, std::string_view atB) {
  return replaced(replaced(kSmall, "\"b\" lid 2 4xQDR", joined({"\"b\" lid 2 ", atA})),
                  "\"a\" lid 1 4xQDR\n\ncaguid", joined({"\"a\" lid 1 ", atB, "\n\ncaguid"}));
}

TEST(CaptureRates, TheLowerWidthIsKeptWithOneWarningNamingBothEnds) {
  const TopologyRead r = read(withRates("4xSDR", "1xSDR"));
  const auto a = *r.fabric.findNode(Guid{0x10});
  const auto b = *r.fabric.findNode(Guid{0x20});
  EXPECT_EQ(r.fabric.port({a, 1}).link.widthActive, 1);  // 1x at both ends
  EXPECT_EQ(r.fabric.port({b, 2}).link.widthActive, 1);
  EXPECT_EQ(r.fabric.port({b, 2}).link.speedActive, 1);
  EXPECT_EQ(r.warnings,
            Warnings{"cap.txt:3: the two ends of a cable report different rates: port [1] of "
                     "switch 0x0000000000000010 \"a\" says 4xSDR (cap.txt:3), port [2] of switch "
                     "0x0000000000000020 \"b\" says 1xSDR (cap.txt:8); read as 1xSDR, the lower "
                     "width and the lower speed"});
}

TEST(CaptureRates, WidthAndSpeedAreLoweredEachOnItsOwn) {
  const TopologyRead r = read(withRates("4xSDR", "1xDDR"));
  for (const auto& [node, port] : {std::pair{0x10, 1}, std::pair{0x20, 2}}) {
    const Port& p = r.fabric.port(
        {*r.fabric.findNode(Guid{std::uint64_t(node)}), static_cast<std::uint8_t>(port)});
    EXPECT_EQ(p.link.widthActive, 1);  // 1x from b
    EXPECT_EQ(p.link.speedActive, 1);  // SDR from a
  }
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_THAT(r.warnings[0], HasSubstr("says 4xSDR (cap.txt:3)"));
  EXPECT_THAT(r.warnings[0], HasSubstr("says 1xDDR (cap.txt:8); read as 1xSDR"));
}

TEST(CaptureRates, ExtendedSpeedsCompareAboveQdr) {
  const TopologyRead r = read(withRates("4xEDR", "4xFDR"));
  const Port& p = r.fabric.port({*r.fabric.findNode(Guid{0x10}), 1});
  EXPECT_EQ(p.link.extSpeedActive, 1);  // FDR
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_THAT(r.warnings[0], HasSubstr("read as 4xFDR"));
  EXPECT_THAT(read(withRates("4xQDR", "4xFDR")).warnings[0], HasSubstr("read as 4xQDR"));
  EXPECT_THAT(read(withRates("2xNDR", "4xHDR")).warnings[0], HasSubstr("read as 2xHDR"));
}

TEST(CaptureRates, AnEndThatCouldNotReadItsRateDoesNotDisagree) {
  const TopologyRead r = read(withRates("??QDR", "4x???"));
  EXPECT_EQ(r.warnings, Warnings{});
  const Port& p = r.fabric.port({*r.fabric.findNode(Guid{0x20}), 2});
  EXPECT_EQ(p.link.widthActive, 2);  // 4x, from b's line
  EXPECT_EQ(p.link.speedActive, 4);  // QDR, from a's line
}

// --- Format detection sees past all of it ---

TEST(CaptureForms, DetectionSeesPastTheMarkThePromptAndStderr) {
  const std::string text = joined({"\xEF\xBB\xBF", kPrompt, kSmpError, withCrlf(kSmall)});
  EXPECT_EQ(detectTopologyFormat(text), TopologyFormat::Ibnetdiscover);
  const TopologyRead r = read(text);
  expectSmallFabric(r.fabric);
  EXPECT_EQ(r.warnings.size(), 1u);
}

}  // namespace
}  // namespace ibsm
