// log.file (`ibsm run -f FILE`) as logrotate needs it: after `mv ibsm.log
// ibsm.log.1` the daemon still writes into the moved file until it opens
// the path again, which it does on SIGHUP (dist/logrotate's postrotate
// sends one). Lines are appended, so `copytruncate` works too.
//
//   auto sink = std::make_shared<LogFileSink>(path);   // throws spdlog_ex: at the edge
//   logger = std::make_shared<spdlog::logger>("ibsm", sink);
//   ... on SIGHUP: sink->reopen();
#pragma once

#include <spdlog/details/file_helper.h>
#include <spdlog/sinks/base_sink.h>

#include <cstdint>
#include <filesystem>
#include <mutex>

namespace ibsm::sm::cli {

class LogFileSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  // Opens (creates) the file for appending; spdlog_ex when it cannot.
  explicit LogFileSink(const std::filesystem::path& path);
  // Closes the file and opens the path again, creating it when it was
  // moved away. Throws spdlog_ex when it cannot, and then writes nowhere
  // until a reopen succeeds.
  void reopen();
  std::uint64_t reopens() const { return reopens_; }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override;
  void flush_() override;

 private:
  spdlog::details::file_helper file_;
  std::uint64_t reopens_{0};
};

}  // namespace ibsm::sm::cli
