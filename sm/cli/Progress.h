// A progress line on stderr, shown only once a run has taken longer than a
// second: short runs stay quiet, long ones say what they are doing.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string_view>

namespace ibsm::sm::cli {

class Progress {
 public:
  Progress() : start_(Clock::now()), tty_(::isatty(STDERR_FILENO) != 0) {}
  ~Progress() {
    if (shown_ && tty_) std::fputc('\n', stderr);
  }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Called as each phase starts.
  void phase(std::string_view what) {
    const double s = elapsedSeconds();
    if (s < 1.0) return;
    shown_ = true;
    std::fprintf(stderr, tty_ ? "\r[%6.1fs] %-60.*s" : "[%6.1fs] %.*s\n", s,
                 static_cast<int>(what.size()), what.data());
    std::fflush(stderr);
  }
  double elapsedSeconds() const {
    return std::chrono::duration<double>(Clock::now() - start_).count();
  }

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point start_;
  bool tty_;
  bool shown_{false};
};

}  // namespace ibsm::sm::cli
