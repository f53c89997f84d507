// `ibsm run` before it touches the wire: how the port is named (the
// instance of ibsm@.service is a GUID or device:port), and what a host
// without an InfiniBand port gets. Bad input exits 2 with one line naming
// the option and what was expected; nothing is sent.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "tests/sm/cli/IbsmProcess.h"

namespace {

using ibsm::sm::cli::testing::Outcome;
using ibsm::sm::cli::testing::runIbsm;
using ::testing::HasSubstr;

class RunCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           fmt::format("ibsm-run-{}", ::testing::UnitTest::GetInstance()->random_seed());
    std::filesystem::create_directories(dir_);
    // 0700, as the daemon keeps its state directory (else it tightens it, SM-0810).
    std::filesystem::permissions(dir_, std::filesystem::perms::owner_all);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  Outcome run(const std::string& args) {
    return runIbsm(fmt::format("run --state-dir {} {}", dir_.string(), args));
  }
  static bool hostHasIbPorts() {
    std::error_code ec;
    const std::filesystem::path sys{"/sys/class/infiniband"};
    return std::filesystem::exists(sys, ec) && !std::filesystem::is_empty(sys, ec);
  }
  std::filesystem::path dir_;
};

TEST_F(RunCommand, PortTakesAGuidOrDeviceColonPort) {
  for (const char* bad : {"foo", "mlx5_0", "mlx5_0:", ":1", "mlx5_0:0", "mlx5_0:255", "mlx5_0:1x",
                          "0x0", "0xnothex"}) {
    const Outcome r = run(fmt::format("--port '{}'", bad));
    EXPECT_EQ(r.status, 2) << bad << ": " << r.out;
    EXPECT_THAT(r.out, HasSubstr(fmt::format(
                           "--port {}: expected a port GUID (0x0002c90300a1b2c3) or device:port "
                           "(mlx5_0:1)",
                           bad)));
  }
}

TEST_F(RunCommand, PortAndGuidTogetherAreRefused) {
  const Outcome r = run("--guid 0x10 --port mlx5_0:1");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.out, HasSubstr("--port and --guid both name the port: give one"));
}

TEST_F(RunCommand, ControlSocketMustFitAUnixSocketAddress) {
  const Outcome r = run(fmt::format("--control-socket /run/{}", std::string(110, 's')));
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.out, HasSubstr("expected a socket path of 1 to 107 bytes"));
}

TEST_F(RunCommand, AHostWithoutAnInfinibandPortIsToldSoInOneLine) {
  if (hostHasIbPorts()) GTEST_SKIP() << "this host has InfiniBand ports";
  for (const char* port : {"", "--port mlx5_0:1", "--port 0x0002c90300a1b2c3"}) {
    const Outcome r = run(port);
    EXPECT_EQ(r.status, 2) << port;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
    EXPECT_THAT(r.out, HasSubstr("ibsm run: ")) << port;
  }
}

}  // namespace
