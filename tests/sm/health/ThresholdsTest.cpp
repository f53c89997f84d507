// Threshold files as ibqueryerrors reads them (--threshold-file), and which
// counters are over their threshold.
#include <gtest/gtest.h>
#include <infiniband/mad.h>

#include <filesystem>

#include "sm/health/Thresholds.h"

namespace ibsm::sm::health {
namespace {

Thresholds parsed(std::string_view text) {
  auto t = parseThresholds(text, "thresholds");
  EXPECT_TRUE(t.has_value()) << (t ? "" : t.error().message);
  return t.value_or(Thresholds{});
}

std::string errorOf(std::string_view text) {
  auto t = parseThresholds(text, "error_thresholds");
  EXPECT_FALSE(t.has_value());
  return t ? "" : t.error().message;
}

// ibqueryerrors matches a line's name against libibmad's field names from
// IB_PC_EXT_ERR_SYM_F to IB_PC_EXT_XMT_WAIT_F; ours must be the same ones.
TEST(ThresholdFile, CounterNamesAreTheOnesIbqueryerrorsMatches) {
  for (std::size_t i = 0; i < kThresholdCounterCount; ++i) {
    const auto field = static_cast<MAD_FIELDS>(IB_PC_EXT_ERR_SYM_F + static_cast<int>(i));
    EXPECT_EQ(counterName(counterAt(i)), mad_field_name(field));
  }
}

TEST(ThresholdFile, ReadsNameEqualsValueLinesSkippingCommentsAndBlankLines) {
  const Thresholds t = parsed(
      "# Define thresholds for error counters\n"
      "SymbolErrorCounter=10\n"
      "\n"
      "   # an indented comment\n"
      "LinkErrorRecoveryCounter=10\r\n"
      "VL15Dropped=100   \n"
      "PortXmitWait=1000");
  EXPECT_EQ(t.of(Counter::SymbolErrorCounter), 10U);
  EXPECT_EQ(t.of(Counter::LinkErrorRecoveryCounter), 10U);
  EXPECT_EQ(t.of(Counter::VL15Dropped), 100U);
  EXPECT_EQ(t.of(Counter::PortXmitWait), 1000U);
  EXPECT_EQ(t.of(Counter::LinkDownedCounter), 0U) << "not named: ibqueryerrors' default";
}

// The file Debian installs as /etc/infiniband-diags/error_thresholds: all
// commented out, so every threshold is 0 and any count is reported.
TEST(ThresholdFile, TheInstalledDefaultFileLeavesEveryThresholdAtZero) {
  const Thresholds t = parsed(
      "# Define error thresholds here\n\n"
      "#SymbolErrorCounter=10\n#LinkErrorRecoveryCounter=10\n#LinkDownedCounter=10\n"
      "#PortRcvErrors=10\n#PortRcvRemotePhysicalErrors=100\n#PortRcvSwitchRelayErrors=100\n"
      "#PortXmitDiscards=100\n#PortXmitConstraintErrors=100\n#PortRcvConstraintErrors=100\n"
      "#LocalLinkIntegrityErrors=10\n#ExcessiveBufferOverrunErrors=10\n#VL15Dropped=100\n"
      "#PortXmitWait=1000\n");
  EXPECT_EQ(t, Thresholds{});
}

TEST(ThresholdFile, NumbersAreReadLikeStrtoulSoHexAndOctalToo) {
  const Thresholds t = parsed(
      "PortRcvErrors=0x10\nPortXmitDiscards=010\nPortRcvSwitchRelayErrors=18446744073709551615\n");
  EXPECT_EQ(t.of(Counter::PortRcvErrors), 16U);
  EXPECT_EQ(t.of(Counter::PortXmitDiscards), 8U);
  EXPECT_EQ(t.of(Counter::PortRcvSwitchRelayErrors), ~std::uint64_t{0});
}

TEST(ThresholdFile, AnUnknownNameIsAnErrorNamingFileLineAndTheNamesExpected) {
  const std::string e = errorOf("SymbolErrorCounter=1\nSymbolErrors=10\n");
  EXPECT_NE(e.find("error_thresholds:2:"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown counter 'SymbolErrors'"), std::string::npos) << e;
  EXPECT_NE(e.find("ExcessiveBufferOverrunErrors"), std::string::npos) << e;
  EXPECT_FALSE(parseThresholds("PortXmitData=5", "f").has_value())
      << "data counters have no threshold in ibqueryerrors' file";
}

TEST(ThresholdFile, AValueThatIsNotAWholeNumberIsAnError) {
  for (std::string_view bad : {"PortRcvErrors=", "PortRcvErrors=ten", "PortRcvErrors=10abc",
                               "PortRcvErrors=-1", "PortRcvErrors=99999999999999999999"}) {
    const std::string e = errorOf(bad);
    EXPECT_NE(e.find("error_thresholds:1: PortRcvErrors: expected a number"), std::string::npos)
        << bad << " -> " << e;
  }
}

TEST(ThresholdFile, ALineWithoutEqualsIsAnError) {
  EXPECT_EQ(errorOf("\nSymbolErrorCounter 10\n"), "error_thresholds:2: expected CounterName=value");
}

// ibqueryerrors compares the name with the spaces and so skips the line.
TEST(ThresholdFile, SpacesAroundTheNameAreAnErrorRatherThanASkippedLine) {
  EXPECT_NE(errorOf("SymbolErrorCounter = 10").find("no spaces around the name"),
            std::string::npos);
  EXPECT_NE(errorOf("  SymbolErrorCounter=10").find("error_thresholds:1:"), std::string::npos);
}

TEST(ThresholdFile, ACounterSetTwiceIsAnErrorNamingBothLines) {
  EXPECT_EQ(errorOf("VL15Dropped=1\n# again\nVL15Dropped=2\n"),
            "error_thresholds:3: VL15Dropped set again (first on line 1)");
}

TEST(ThresholdFile, LoadingAMissingFileNamesIt) {
  const auto t = loadThresholds("/nonexistent/ibsm/error_thresholds");
  ASSERT_FALSE(t.has_value());
  EXPECT_NE(t.error().message.find("/nonexistent/ibsm/error_thresholds"), std::string::npos);
}

TEST(Exceeds, ListsTheCountersAboveTheirThresholdButNotThoseAtIt) {
  const Thresholds t = parsed("SymbolErrorCounter=10\nLinkDownedCounter=2\n");
  CounterTotals totals{};
  totals[index(Counter::SymbolErrorCounter)].value = 10;  // at: not over
  totals[index(Counter::LinkDownedCounter)].value = 3;
  totals[index(Counter::PortRcvErrors)].value = 1;    // default threshold 0
  totals[index(Counter::PortXmitData)].value = 1000;  // no threshold for data
  EXPECT_EQ(exceeds(t, totals),
            (std::vector<Counter>{Counter::LinkDownedCounter, Counter::PortRcvErrors}));
  EXPECT_TRUE(exceeds(t, CounterTotals{}).empty());
}

TEST(Exceeds, RatesPerHourAreJudgedAgainstTheirOwnThresholds) {
  const Thresholds perHour = parsed("SymbolErrorCounter=60\nPortXmitWait=1000\n");
  PerCounter<double> rates{};
  rates[index(Counter::SymbolErrorCounter)] = 60.5;
  rates[index(Counter::PortXmitWait)] = 999.0;
  EXPECT_EQ(exceeds(perHour, rates), std::vector<Counter>{Counter::SymbolErrorCounter});
}

}  // namespace
}  // namespace ibsm::sm::health
