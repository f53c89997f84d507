// `ibsm config import` and `ibsm config check` as an operator runs them: every
// opensm.conf form OpenSM 3.3.23 writes (tests/data/opensm-conf) imports, and
// the ibsm.toml written passes `ibsm config check` (run beside the opensm.conf,
// whose relative paths name the GUID lists and partitions file there). Bad
// input exits 2 with file:line and writes nothing.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/sm/cli/IbsmProcess.h"

namespace ibsm::sm::cli {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

const fs::path kData = fs::path(IBSM_SOURCE_DIR) / "tests/data/opensm-conf";

class ConfigCommand : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    // A parameterised test's name has a '/': not in a directory name.
    std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::ranges::replace(name, '/', '_');
    dir_ = fs::temp_directory_path() / fmt::format("ibsm-config-cli-{}-{}", ::getpid(), name);
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs ibsm in `cwd`, as an operator beside their files.
  static testing::Outcome runIn(const fs::path& cwd, const std::string& args) {
    return runShell(fmt::format("cd {} && {} {}", cwd.string(), IBSM_BINARY, args));
  }
  static testing::Outcome runShell(const std::string& cmd) {
    testing::Outcome r;
    FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
    if (!p) return r;
    char buf[4096];
    while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) r.out.append(buf, n);
    const int st = ::pclose(p);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return r;
  }

  fs::path dir_;
};

TEST_P(ConfigCommand, ImportsAndTheResultPassesTheCheck) {
  const fs::path out = dir_ / (GetParam() + ".toml");
  const auto imported =
      runIn(kData, fmt::format("config import {}.conf -o {}", GetParam(), out.string()));
  ASSERT_EQ(imported.status, 0) << imported.out;
  EXPECT_THAT(imported.out, HasSubstr("ibsm keys set"));
  ASSERT_TRUE(fs::exists(out));
  const auto checked = runIn(kData, fmt::format("config check {}", out.string()));
  EXPECT_EQ(checked.status, 0) << checked.out;
  EXPECT_THAT(checked.out, HasSubstr(": valid: "));
}

INSTANTIATE_TEST_SUITE_P(OpenSm3323, ConfigCommand,
                         ::testing::Values("default", "cli-ftree", "cli-dfsssp", "cli-minhop",
                                           "hand-edited"));

class ConfigCommandInput : public ConfigCommand {};

TEST_F(ConfigCommandInput, ImportPrintsToStdoutWithoutOutput) {
  const auto r = runIn(kData, "config import cli-ftree.conf");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("engine = [\"ftree\", \"updn\", \"minhop\"]"));
}

TEST_F(ConfigCommandInput, AGarbageLineExitsTwoNamingFileAndLineAndWritesNothing) {
  std::ofstream(dir_ / "bad.conf") << "sm_priority 3\nsm_priority = 7\n";
  const auto r = runIn(dir_, "config import bad.conf -o out.toml");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_THAT(r.out, HasSubstr("bad.conf:2: expected an OpenSM option line"));
  EXPECT_FALSE(fs::exists(dir_ / "out.toml"));
}

TEST_F(ConfigCommandInput, AnUnknownOptionIsAWarningNamingFileAndLine) {
  std::ofstream(dir_ / "odd.conf") << "sm_priority 3\nsite_thing 1\n";
  const auto r = runIn(dir_, "config import odd.conf -o out.toml");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("odd.conf:2: warning: unknown option 'site_thing'"));
}

TEST_F(ConfigCommandInput, AnExistingOutputIsKeptUnlessForced) {
  std::ofstream(dir_ / "ibsm.toml") << "# mine\n";
  const auto r =
      runIn(kData, fmt::format("config import default.conf -o {}", (dir_ / "ibsm.toml").string()));
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_THAT(r.out, HasSubstr("exists"));
  std::ifstream in(dir_ / "ibsm.toml");
  std::ostringstream kept;
  kept << in.rdbuf();
  EXPECT_EQ(kept.str(), "# mine\n");
  const auto forced = runIn(kData, fmt::format("config import default.conf -o {} --force",
                                               (dir_ / "ibsm.toml").string()));
  EXPECT_EQ(forced.status, 0) << forced.out;
}

TEST_F(ConfigCommandInput, CheckExitsTwoWithFileAndLine) {
  std::ofstream(dir_ / "ibsm.toml") << "[sm]\npriority = 3\npriorty = 7\n";
  const auto r = runIn(dir_, "config check ibsm.toml");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_THAT(r.out, HasSubstr("ibsm.toml:3: unknown key 'sm.priorty'"));
}

}  // namespace
}  // namespace ibsm::sm::cli
