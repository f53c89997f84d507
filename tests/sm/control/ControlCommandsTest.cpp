// `ibsm status` and `ibsm sweep` as an operator runs them, against a real
// control socket served in this process: output, exit codes, and where the
// socket path comes from.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <future>
#include <thread>

#include "sm/control/ControlServer.h"
#include "sm/control/Metrics.h"
#include "tests/sm/control/HealthViewSample.h"

namespace ibsm::sm::control {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

struct Outcome {
  int status{-1};
  std::string out;  // stdout and stderr together
};

Outcome ibsm(const std::string& args) {
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

class ControlCommands : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/ibsm-ctlcmd-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    path_ = dir_ / "ibsm.sock";
    status_.state = "STANDBY";
    status_.phase = "StandbyPolling";
    status_.master = Guid{0x0002c90300000001};
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Serves like the daemon loop while the command runs.
  Outcome run(ControlServer& server, const std::string& args) {
    auto done = std::async(std::launch::async, [&] { return ibsm(args); });
    while (done.wait_for(5ms) != std::future_status::ready)
      server.serve([&] { return status_; }, [&](SweepAsk ask) { sweeps_.push_back(ask); });
    return done.get();
  }

  fs::path dir_, path_;
  DaemonStatus status_;
  std::vector<SweepAsk> sweeps_;
};

TEST_F(ControlCommands, StatusPrintsTheDaemonsLinesAndExitsZero) {
  auto server = ControlServer::listen(path_);
  ASSERT_TRUE(server);
  const auto r = run(**server, "status --socket " + path_.string());
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out, formatStatus(status_));
}

TEST_F(ControlCommands, StatusJsonPrintsTheJson) {
  auto server = ControlServer::listen(path_);
  ASSERT_TRUE(server);
  const auto r = run(**server, "status --json --socket " + path_.string());
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out, formatStatusJson(status_));
}

TEST_F(ControlCommands, SweepHeavyAsksForAHeavySweep) {
  auto server = ControlServer::listen(path_);
  ASSERT_TRUE(server);
  auto r = run(**server, "sweep --heavy --socket " + path_.string());
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out, "ok: heavy sweep requested\n");
  r = run(**server, "sweep --socket " + path_.string());
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(sweeps_, (std::vector<SweepAsk>{SweepAsk::Heavy, SweepAsk::Light}));
}

TEST_F(ControlCommands, SweepRebalanceAsksForAHeavySweepWithFreshRoutes) {
  auto server = ControlServer::listen(path_);
  ASSERT_TRUE(server);
  auto r = run(**server, "sweep --rebalance --socket " + path_.string());
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out, "ok: heavy sweep with fresh routes (rebalance) requested\n");
  EXPECT_EQ(sweeps_, (std::vector<SweepAsk>{SweepAsk::Rebalance}));
}

TEST_F(ControlCommands, TheSocketComesFromTheConfigFileWithoutSocketFlag) {
  const fs::path other = dir_ / "elsewhere.sock";
  std::ofstream(dir_ / "ibsm.toml")
      << fmt::format("[sm]\ncontrol_socket = \"{}\"\n", other.string());
  auto server = ControlServer::listen(other);
  ASSERT_TRUE(server);
  const auto r = run(**server, "status -F " + (dir_ / "ibsm.toml").string());
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.rfind("state: STANDBY\n", 0), 0u) << r.out;
}

TEST_F(ControlCommands, NoDaemonExitsTwoNamingTheSocket) {
  const auto r = ibsm("status --socket " + path_.string());
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "ibsm status: no ibsm daemon listening on " + path_.string() +
                       ": no such file or directory\n");
  EXPECT_EQ(ibsm("sweep --heavy --socket " + path_.string()).status, 2);
}

TEST_F(ControlCommands, HealthPrintsTheDaemonsHealthAndItsVariants) {
  auto server = ControlServer::listen(path_);
  ASSERT_TRUE(server);
  (*server)->provideHealth([] { return testing::twoUnhealthy(); });
  auto r = run(**server, "health --socket " + path_.string());
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out, formatHealth(testing::twoUnhealthy()));
  r = run(**server, "health --ports --socket " + path_.string());
  EXPECT_EQ(r.out, formatHealthPorts(testing::twoUnhealthy()));
  r = run(**server, "health --json --socket " + path_.string());
  EXPECT_EQ(r.out, formatHealthJson(testing::twoUnhealthy()));
  EXPECT_EQ(ibsm("health --json --ports --socket " + path_.string()).status, 2);
}

TEST_F(ControlCommands, MetricsPrintsThePrometheusText) {
  auto server = ControlServer::listen(path_);
  ASSERT_TRUE(server);
  (*server)->provideHealth([] { return testing::healthy(); });
  const auto r = run(**server, "metrics --socket " + path_.string());
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out, formatMetrics(status_, testing::healthy()));
}

TEST_F(ControlCommands, HealthAndMetricsWithNoDaemonExitTwoWithOneLine) {
  auto r = ibsm("health --socket " + path_.string());
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "ibsm health: no ibsm daemon listening on " + path_.string() +
                       ": no such file or directory\n");
  r = ibsm("metrics --socket " + path_.string());
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "ibsm metrics: no ibsm daemon listening on " + path_.string() +
                       ": no such file or directory\n");
}

TEST_F(ControlCommands, ABadConfigExitsTwoWithFileAndLine) {
  const fs::path conf = dir_ / "bad.toml";
  std::ofstream(conf) << "[sm]\ncontrol_socket = 7\n";
  const auto r = ibsm("status -F " + conf.string());
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "ibsm status: " + conf.string() +
                       ":2: expected sm.control_socket to be a socket path (string)\n");
}

// Issue 27: a typo the daemon refused on SIGHUP must not lock the operator
// out of the commands that ask it what is wrong. Only sm.control_socket is
// read; every other bad key is a warning naming its line.
TEST_F(ControlCommands, AConfigTheDaemonRefusesStillFindsItsSocketWithWarnings) {
  const fs::path other = dir_ / "elsewhere.sock";
  const fs::path conf = dir_ / "typo.toml";
  std::ofstream(conf) << fmt::format(
      "[sm]\npriorty = 7\nsweep_interval = \"ten\"\ncontrol_socket = \"{}\"\n", other.string());
  auto server = ControlServer::listen(other);
  ASSERT_TRUE(server);
  (*server)->provideHealth([] { return testing::healthy(); });
  const std::string warnings = fmt::format(
      "ibsm {{0}}: warning: {0}:2: unknown key 'sm.priorty' (see man ibsm.toml) (ignored by this "
      "command; the daemon refuses the file)\n"
      "ibsm {{0}}: warning: {0}:3: expected sm.sweep_interval to be an integer from 0 to 86400 "
      "(ignored by this command; the daemon refuses the file)\n",
      conf.string());
  const auto status = run(**server, "status -F " + conf.string());
  EXPECT_EQ(status.status, 0) << status.out;
  EXPECT_EQ(status.out, fmt::format(fmt::runtime(warnings), "status") + formatStatus(status_));
  for (const std::string command : {"sweep --heavy", "health", "metrics"}) {
    const auto r = run(**server, command + " -F " + conf.string());
    EXPECT_EQ(r.status, 0) << command << ": " << r.out;
    EXPECT_EQ(
        r.out.rfind(fmt::format(fmt::runtime(warnings), command.substr(0, command.find(' '))), 0),
        0u)
        << r.out;
  }
  EXPECT_EQ(sweeps_, (std::vector<SweepAsk>{SweepAsk::Heavy}));
}

TEST_F(ControlCommands, AConfigThatIsNotTomlExitsTwoAskingForTheSocket) {
  const fs::path conf = dir_ / "broken.toml";
  std::ofstream(conf) << "[sm\npriority = 7\n";
  const auto r = ibsm("status -F " + conf.string());
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out.rfind("ibsm status: " + conf.string() + ":1: ", 0), 0u) << r.out;
  EXPECT_TRUE(r.out.ends_with("(the control socket cannot be read from it: give --socket PATH)\n"))
      << r.out;
}

TEST_F(ControlCommands, ADaemonErrorAnswerExitsOne) {
  // A daemon that refuses the request (one of another ibsm version, say).
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::strncpy(a.sun_path, path_.c_str(), sizeof(a.sun_path) - 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(::listen(fd, 1), 0);
  std::thread daemon([fd] {
    const int c = ::accept(fd, nullptr, nullptr);
    char buf[64];
    (void)::recv(c, buf, sizeof buf, 0);
    const std::string_view answer = "error: unknown request 'sweep'\n";
    (void)::send(c, answer.data(), answer.size(), MSG_NOSIGNAL);
    ::close(c);
  });
  const auto r = ibsm("sweep --socket " + path_.string());
  daemon.join();
  ::close(fd);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "ibsm sweep: error: unknown request 'sweep'\n");
}

TEST_F(ControlCommands, UnknownOptionIsBadInput) {
  EXPECT_EQ(ibsm("status --frobnicate").status, 2);
}

}  // namespace
}  // namespace ibsm::sm::control
