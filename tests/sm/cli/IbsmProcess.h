// Runs the real ibsm binary as an operator would, for the tests of the
// commands: exit status and everything printed. IBSM_BINARY is set by
// tests/sm/cli/CMakeLists.txt.
#pragma once

#include <fmt/format.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>

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

}  // namespace ibsm::sm::cli::testing
