// Captures that are broken, not merely untidy: LIDs no port can hold, and
// cabling that contradicts itself. Each is refused with file, line and what
// was expected; nothing is repaired or skipped.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <ibsm/Topology.h>

#include <string>

#include "tests/routing/topology/CaptureText.h"

namespace ibsm {
namespace {

using testcaptures::kSmall;
using testcaptures::replaced;
using ::testing::StartsWith;

std::string errorOf(std::string_view text) {
  auto f = parseIbnetdiscover(text, "cap.txt");
  EXPECT_FALSE(f) << "expected the capture to be rejected";
  return f ? "" : f.error().message;
}

TEST(BrokenCapture, AnEmptyLidOfACaPort) {
  EXPECT_EQ(errorOf(replaced(kSmall, "# lid 3 lmc 0", "# lid  lmc 0")),
            "cap.txt:12: this port: expected a LID from 0 to 49151, got 'lmc'");
}

TEST(BrokenCapture, AnEmptyLidOfASwitch) {
  EXPECT_EQ(errorOf(replaced(kSmall, "port 0 lid 1 lmc 0", "port 0 lid  lmc 0")),
            "cap.txt:2: switch port 0: expected a LID from 0 to 49151, got 'lmc'");
}

TEST(BrokenCapture, AnEmptyLidOfThePeer) {
  EXPECT_EQ(errorOf(replaced(kSmall, "\"b\" lid 2 4xQDR", "\"b\" lid  4xQDR")),
            "cap.txt:3: the remote port: expected a LID from 0 to 49151, got '4xQDR'");
}

TEST(BrokenCapture, ANegativePeerLid) {
  EXPECT_EQ(errorOf(replaced(kSmall, "\"b\" lid 2 4xQDR", "\"b\" lid -1 4xQDR")),
            "cap.txt:3: the remote port: expected a LID from 0 to 49151, got '-1'");
}

TEST(BrokenCapture, LidsOutOfRange) {
  EXPECT_EQ(errorOf(replaced(kSmall, "# lid 3 lmc 0", "# lid 49152 lmc 0")),
            "cap.txt:12: this port: LID 49152 is out of range: expected 0 to 49151 (from 49152 "
            "up, LIDs are multicast)");
  EXPECT_EQ(errorOf(replaced(kSmall, "port 0 lid 1 lmc 0", "port 0 lid 65535 lmc 0")),
            "cap.txt:2: switch port 0: LID 65535 is out of range: expected 0 to 49151 (from "
            "49152 up, LIDs are multicast)");
  EXPECT_EQ(errorOf(replaced(kSmall, "\"b\" lid 2 4xQDR", "\"b\" lid 99999999999999999999 4xQDR")),
            "cap.txt:3: the remote port: expected a LID from 0 to 49151, got "
            "'99999999999999999999'");
}

TEST(BrokenCapture, AnLmcOutOfRange) {
  EXPECT_EQ(errorOf(replaced(kSmall, "# lid 3 lmc 0", "# lid 3 lmc 8")),
            "cap.txt:12: this port: expected an LMC from 0 to 7 after 'lmc', got '8'");
}

TEST(BrokenCapture, CablingThatContradictsItself) {
  // a's port 1 goes to b's port 2, but b's port 2 goes to h.
  EXPECT_EQ(errorOf(replaced(kSmall, "[2]\t\"S-0000000000000010\"[1]\t\t# \"a\" lid 1 4xQDR",
                             "[2]\t\"H-0000000000000030\"[1](31) \t\t# \"h\" lid 3 4xQDR")),
            "cap.txt:3: port [1] of switch 0x0000000000000010 \"a\" leads to port [2] of switch "
            "0x0000000000000020 \"b\", but line 8 says that port leads to 0x0000000000000030 "
            "port [1]");
}

}  // namespace
}  // namespace ibsm
