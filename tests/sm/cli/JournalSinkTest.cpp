// Under systemd the daemon's lines go to the journal with their priority
// and their log id as a field: what decides when, the priority and the id.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <string>

#include "sm/cli/JournalSink.h"

namespace ibsm::sm::cli {
namespace {

TEST(JournalSink, TheLogIdIsTheLinesFirstWordOfCapitalsADashAndFourDigits) {
  EXPECT_EQ(logIdOf("SM-0001 subnet up: 2 switches"), "SM-0001");
  EXPECT_EQ(logIdOf("PROG-0310 PortInfo Set refused on a retry"), "PROG-0310");
  EXPECT_EQ(logIdOf("SM-0470"), "SM-0470");
  EXPECT_EQ(logIdOf("subnet up"), "");
  EXPECT_EQ(logIdOf("SM-001 three digits"), "");
  EXPECT_EQ(logIdOf("SM-00012 five digits"), "");
  EXPECT_EQ(logIdOf("sm-0001 lower case"), "");
  EXPECT_EQ(logIdOf("-0001 no letters"), "");
  EXPECT_EQ(logIdOf(""), "");
}

TEST(JournalSink, LevelsAreFiledUnderTheirSyslogPriorities) {
  EXPECT_EQ(journalPriority(spdlog::level::critical), 2);
  EXPECT_EQ(journalPriority(spdlog::level::err), 3);
  EXPECT_EQ(journalPriority(spdlog::level::warn), 4);
  EXPECT_EQ(journalPriority(spdlog::level::info), 6);
  EXPECT_EQ(journalPriority(spdlog::level::debug), 7);
  EXPECT_EQ(journalPriority(spdlog::level::trace), 7);
}

TEST(JournalSink, OnlyAStderrThatIsTheJournalsStreamCounts) {
  unsetenv("JOURNAL_STREAM");
  EXPECT_FALSE(stderrIsJournal()) << "not under systemd";
  struct stat st {};
  ASSERT_EQ(fstat(2, &st), 0);
  const std::string mine = std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
  setenv("JOURNAL_STREAM", mine.c_str(), 1);
  EXPECT_TRUE(stderrIsJournal());
  const std::string other = std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino + 1);
  setenv("JOURNAL_STREAM", other.c_str(), 1);
  EXPECT_FALSE(stderrIsJournal()) << "stderr redirected elsewhere by the unit or a shell";
  setenv("JOURNAL_STREAM", "garbage", 1);
  EXPECT_FALSE(stderrIsJournal());
  unsetenv("JOURNAL_STREAM");
}

}  // namespace
}  // namespace ibsm::sm::cli
