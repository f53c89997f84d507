#include "sm/cli/JournalSink.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <systemd/sd-journal.h>

#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace ibsm::sm::cli {

bool stderrIsJournal() {
  const char* stream = std::getenv("JOURNAL_STREAM");
  if (stream == nullptr) return false;
  unsigned long long dev = 0;
  unsigned long long ino = 0;
  if (std::sscanf(stream, "%llu:%llu", &dev, &ino) != 2) return false;
  struct stat st {};
  if (fstat(2, &st) != 0) return false;
  return st.st_dev == dev && st.st_ino == ino;
}

int journalPriority(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::critical:
      return 2;  // LOG_CRIT
    case spdlog::level::err:
      return 3;  // LOG_ERR
    case spdlog::level::warn:
      return 4;  // LOG_WARNING
    case spdlog::level::info:
      return 6;  // LOG_INFO
    default:
      return 7;  // LOG_DEBUG: debug, trace
  }
}

// Upper-case letters, '-', four digits, then a space or the end.
std::string_view logIdOf(std::string_view message) {
  const auto dash = message.find('-');
  if (dash == 0 || dash == std::string_view::npos || message.size() < dash + 5) return {};
  for (std::size_t i = 0; i < dash; ++i)
    if (!std::isupper(static_cast<unsigned char>(message[i]))) return {};
  for (std::size_t i = dash + 1; i < dash + 5; ++i)
    if (!std::isdigit(static_cast<unsigned char>(message[i]))) return {};
  if (message.size() > dash + 5 && message[dash + 5] != ' ') return {};
  return message.substr(0, dash + 5);
}

void JournalSink::sink_it_(const spdlog::details::log_msg& msg) {
  const std::string_view text(msg.payload.data(), msg.payload.size());
  const std::string message = fmt::format("MESSAGE={}", text);
  const std::string priority = fmt::format("PRIORITY={}", journalPriority(msg.level));
  const std::string_view logId = logIdOf(text);
  const std::string id = fmt::format("IBSM_LOG_ID={}", logId);
  static constexpr std::string_view kIdentifier = "SYSLOG_IDENTIFIER=ibsm";
  const auto field = [](std::string_view s) {
    return iovec{.iov_base = const_cast<char*>(s.data()), .iov_len = s.size()};
  };
  std::array<iovec, 4> fields{field(message), field(priority), field(kIdentifier), field(id)};
  const int count = logId.empty() ? 3 : 4;
  // The journal gone (stopping, or never there): the line still reaches
  // stderr, which systemd also files in the journal.
  if (sd_journal_sendv(fields.data(), count) < 0) fmt::print(stderr, "{}\n", text);
}

}  // namespace ibsm::sm::cli
