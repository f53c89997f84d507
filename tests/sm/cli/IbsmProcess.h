// Runs the real ibsm binary as an operator would, for the tests of the
// commands: exit status and everything printed. IBSM_BINARY is set by
// tests/sm/cli/CMakeLists.txt.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

namespace ibsm::sm::cli::testing {

struct Outcome {
  int status{-1};
  std::string out;  // stdout and stderr together
};

inline Outcome runIbsm(const std::string& args) {
  const std::string cmd = fmt::format("{} {} 2>&1", IBSM_BINARY, args);
  Outcome r;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) r.out.append(buf, n);
  const int st = ::pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

// An empty scratch directory of the running test's own, made anew: named by
// `prefix`, the process and the test, so tests run side by side by ctest
// never share one.
inline std::filesystem::path freshTestDir(std::string_view prefix) {
  const auto dir = std::filesystem::temp_directory_path() /
                   fmt::format("{}-{}-{}", prefix, ::getpid(),
                               ::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace ibsm::sm::cli::testing
