#include "sm/cli/LogFile.h"

namespace ibsm::sm::cli {

LogFileSink::LogFileSink(const std::filesystem::path& path) {
  file_.open(path.string(), false);
}

void LogFileSink::reopen() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++reopens_;
  file_.reopen(false);
}

void LogFileSink::sink_it_(const spdlog::details::log_msg& msg) {
  spdlog::memory_buf_t formatted;
  formatter_->format(msg, formatted);
  file_.write(formatted);
}

void LogFileSink::flush_() {
  file_.flush();
}

}  // namespace ibsm::sm::cli
