// Log lines straight to the systemd journal when the daemon runs as a
// unit (its stderr is the journal's stream, JOURNAL_STREAM): each line
// with its priority (`journalctl -p warning` shows warnings and errors
// only), without a timestamp of ours (the journal keeps its own), and with
// its log id as a field of its own, so an operator asks for one message by
// id: `journalctl -u ibsm IBSM_LOG_ID=SM-0001`.
//
//   if (stderrIsJournal()) logger = std::make_shared<spdlog::logger>("ibsm",
//   std::make_shared<JournalSink>());
#pragma once

#include <spdlog/common.h>
#include <spdlog/sinks/base_sink.h>

#include <mutex>
#include <string_view>

namespace ibsm::sm::cli {

// True when stderr is the stream systemd connected to the journal: the
// device and inode in JOURNAL_STREAM are stderr's (systemd.exec(5)).
bool stderrIsJournal();

// The syslog priority the journal files a level under (info 6, warn 4, error 3...).
int journalPriority(spdlog::level::level_enum level);

// The id a log line starts with ("SM-0001", "PROG-0310"); empty when none.
std::string_view logIdOf(std::string_view message);

class JournalSink final : public spdlog::sinks::base_sink<std::mutex> {
 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override;
  void flush_() override {}
};

}  // namespace ibsm::sm::cli
