// The control socket, server and client for real on a temporary path: what
// `ibsm status` and `ibsm sweep` rely on, and what must never stall the SM.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <fstream>
#include <future>
#include <thread>

#include "sm/control/ControlServer.h"
#include "sm/control/HealthFormat.h"
#include "sm/control/Metrics.h"
#include "sm/mad/MadTransport.h"
#include "tests/sm/control/HealthViewSample.h"
#include "tests/sm/support/PipeTransport.h"

namespace ibsm::sm::control {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

class ControlSocket : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/ibsm-control-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    path_ = dir_ / "run" / "ibsm.sock";  // "run" does not exist yet
  }
  void TearDown() override { fs::remove_all(dir_); }

  DaemonStatus sample() const {
    DaemonStatus s;
    s.state = "MASTER";
    s.phase = "MasterIdle";
    s.portGuid = Guid{0x0002c90300a1b2c3};
    s.lid = Lid{1};
    s.priority = 7;
    s.master = s.portGuid;
    s.sweeps.total = 3;
    s.routes.engine = "ftree";
    s.routes.switches = 80;
    s.routes.caPorts = 128;
    return s;
  }

  // Runs serve() on this thread (as the daemon does) while `ask` runs on
  // another, until `ask` is done.
  template <typename F>
  auto serveWhile(ControlServer& server, F ask) {
    auto answer = std::async(std::launch::async, ask);
    while (answer.wait_for(5ms) != std::future_status::ready)
      server.serve([&] { return sample(); }, [&](SweepAsk ask) { sweeps_.push_back(ask); });
    return answer.get();
  }

  int connectRaw() const {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, path_.c_str(), sizeof(a.sun_path) - 1);
    EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    return fd;
  }

  fs::path dir_, path_;
  std::vector<SweepAsk> sweeps_;
};

// sm.control_timeout_ms as a test sets it, to keep the suite quick.
constexpr auto kShortDeadline = 300ms;

TEST_F(ControlSocket, StatusAnswersTheFormattedText) {
  auto server = ControlServer::listen(path_);
  ASSERT_TRUE(server) << server.error().message;
  EXPECT_TRUE(fs::is_socket(path_));
  const auto answer = serveWhile(**server, [&] { return request(path_, "status"); });
  ASSERT_TRUE(answer) << answer.error().message;
  EXPECT_EQ(*answer, formatStatus(sample()));
  EXPECT_NE(answer->find("state: MASTER\n"), std::string::npos);
  EXPECT_TRUE(sweeps_.empty());
}

TEST_F(ControlSocket, StatusJsonAnswersTheJson) {
  auto server = ControlServer::listen(path_);
  ASSERT_TRUE(server);
  const auto answer = serveWhile(**server, [&] { return request(path_, "status json"); });
  ASSERT_TRUE(answer) << answer.error().message;
  EXPECT_EQ(*answer, formatStatusJson(sample()));
}

TEST_F(ControlSocket, SweepDeliversTheHeavyFlag) {
  auto server = ControlServer::listen(path_);
  ASSERT_TRUE(server);
  const auto heavy = serveWhile(**server, [&] { return request(path_, "sweep heavy"); });
  const auto light = serveWhile(**server, [&] { return request(path_, "sweep"); });
  ASSERT_TRUE(heavy && light);
  EXPECT_EQ(*heavy, "ok: heavy sweep requested\n");
  EXPECT_EQ(*light, "ok: light sweep requested\n");
  EXPECT_EQ(sweeps_, (std::vector<SweepAsk>{SweepAsk::Heavy, SweepAsk::Light}));
}

TEST_F(ControlSocket, SweepRebalanceAsksForFreshRoutes) {
  auto server = ControlServer::listen(path_);
  ASSERT_TRUE(server);
  const auto answer = serveWhile(**server, [&] { return request(path_, "sweep rebalance"); });
  ASSERT_TRUE(answer);
  EXPECT_EQ(*answer, "ok: heavy sweep with fresh routes (rebalance) requested\n");
  EXPECT_EQ(sweeps_, (std::vector<SweepAsk>{SweepAsk::Rebalance}));
}

TEST_F(ControlSocket, SweepReadmitHandsTheLinkToItsHandlerAndAnswersWhatItSays) {
  auto server = ControlServer::listen(path_);
  ASSERT_TRUE(server);
  const auto none = serveWhile(**server, [&] { return request(path_, "sweep readmit 0x1/2"); });
  ASSERT_TRUE(none);
  EXPECT_EQ(*none, "error: this daemon does not isolate links\n");
  std::string asked;
  (*server)->onReadmit([&](std::string_view link) {
    asked = link;
    return std::string("ok: back\n");
  });
  const auto answer =
      serveWhile(**server, [&] { return request(path_, "sweep readmit  \"s1\"[5] "); });
  ASSERT_TRUE(answer);
  EXPECT_EQ(*answer, "ok: back\n");
  EXPECT_EQ(asked, "\"s1\"[5]");
  EXPECT_TRUE(sweeps_.empty());
}

TEST_F(ControlSocket, LogLevelHandsTheLevelToItsHandlerAndAnswersWhatItSays) {
  auto server = ControlServer::listen(path_);
  ASSERT_TRUE(server);
  const auto none = serveWhile(**server, [&] { return request(path_, "log-level debug"); });
  ASSERT_TRUE(none);
  EXPECT_EQ(*none, "error: this daemon does not change its log level\n");
  std::string asked;
  (*server)->onLogLevel([&](std::string_view level) {
    asked = level;
    return std::string("ok: log level trace\n");
  });
  const auto answer = serveWhile(**server, [&] { return request(path_, "log-level  trace "); });
  ASSERT_TRUE(answer);
  EXPECT_EQ(*answer, "ok: log level trace\n");
  EXPECT_EQ(asked, "trace");
  EXPECT_TRUE(sweeps_.empty());
}

TEST_F(ControlSocket, KeysRotateGoesToItsHandlerAndOtherKeysRequestsAreErrors) {
  auto server = ControlServer::listen(path_);
  ASSERT_TRUE(server);
  const auto none = serveWhile(**server, [&] { return request(path_, "keys rotate"); });
  ASSERT_TRUE(none);
  EXPECT_EQ(*none, "error: this daemon does not rotate M_Keys\n");
  unsigned asked = 0;
  (*server)->onKeysRotate([&] {
    ++asked;
    return std::string("ok: M_Key rotation started at 2026-12-05T14:00:00Z\n");
  });
  const auto answer = serveWhile(**server, [&] { return request(path_, "keys rotate"); });
  ASSERT_TRUE(answer);
  EXPECT_EQ(*answer, "ok: M_Key rotation started at 2026-12-05T14:00:00Z\n");
  const auto other = serveWhile(**server, [&] { return request(path_, "keys show"); });
  ASSERT_TRUE(other);
  EXPECT_EQ(*other, "error: unknown keys request 'keys show' (expected keys rotate)\n");
  EXPECT_EQ(asked, 1u);
  EXPECT_TRUE(sweeps_.empty());
}

TEST_F(ControlSocket, UnknownRequestIsAnsweredWithAnError) {
  auto server = ControlServer::listen(path_);
  ASSERT_TRUE(server);
  const auto answer = serveWhile(**server, [&] { return request(path_, "reboot"); });
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->rfind("error: unknown request 'reboot'", 0), 0u) << *answer;
  EXPECT_TRUE(sweeps_.empty());
}

TEST_F(ControlSocket, AnOverlongRequestIsRefusedNotBuffered) {
  auto server = ControlServer::listen(path_);
  ASSERT_TRUE(server);
  const std::string junk(ControlServer::kMaxRequestBytes * 4, 'x');
  const auto answer = serveWhile(**server, [&] { return request(path_, junk); });
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->rfind("error: request longer than", 0), 0u) << *answer;
}

TEST_F(ControlSocket, AStaleSocketFileIsReplaced) {
  {
    auto first = ControlServer::listen(path_);
    ASSERT_TRUE(first);
  }
  // A daemon killed by SIGKILL leaves its socket file behind: bind one
  // without listening on it, as nobody will answer there.
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::strncpy(a.sun_path, path_.c_str(), sizeof(a.sun_path) - 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ::close(fd);
  ASSERT_TRUE(fs::is_socket(path_));

  auto server = ControlServer::listen(path_);
  ASSERT_TRUE(server) << server.error().message;
  const auto answer = serveWhile(**server, [&] { return request(path_, "status"); });
  EXPECT_TRUE(answer);
}

TEST_F(ControlSocket, ASecondServerOnALivePathIsRefused) {
  auto first = ControlServer::listen(path_);
  ASSERT_TRUE(first);
  const auto second = ControlServer::listen(path_);
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().message, path_.string() + ": another ibsm daemon is listening there");
  // The refused one must leave the live daemon's socket in place.
  const auto answer = serveWhile(**first, [&] { return request(path_, "status"); });
  EXPECT_TRUE(answer);
}

TEST_F(ControlSocket, ARegularFileInTheWayIsNotDeleted) {
  fs::create_directories(path_.parent_path());
  std::ofstream(path_) << "operator data\n";
  const auto server = ControlServer::listen(path_);
  ASSERT_FALSE(server);
  EXPECT_NE(server.error().message.find("is not a socket"), std::string::npos);
  EXPECT_TRUE(fs::is_regular_file(path_));
}

TEST_F(ControlSocket, TheSocketFileGoesWithTheServer) {
  {
    auto server = ControlServer::listen(path_);
    ASSERT_TRUE(server);
  }
  EXPECT_FALSE(fs::exists(path_));
}

TEST_F(ControlSocket, ASilentClientNeitherBlocksServeNorOthersAndIsDroppedAtItsDeadline) {
  auto server = ControlServer::listen(
      path_, {.readGroup = {}, .readGroupName = {}, .requestDeadline = kShortDeadline});
  ASSERT_TRUE(server);
  const int silent = connectRaw();

  const auto start = std::chrono::steady_clock::now();
  (*server)->serve([&] { return sample(); }, [](SweepAsk) {});
  EXPECT_LT(std::chrono::steady_clock::now() - start, 50ms);

  // Another operator is answered while the silent one holds its connection.
  const auto answer = serveWhile(**server, [&] { return request(path_, "status"); });
  EXPECT_TRUE(answer);

  // Past the deadline the server closes the silent connection: it reads EOF.
  std::this_thread::sleep_for(kShortDeadline + 50ms);
  (*server)->serve([&] { return sample(); }, [](SweepAsk) {});
  char c;
  EXPECT_EQ(::recv(silent, &c, 1, MSG_DONTWAIT), 0);
  ::close(silent);
  EXPECT_EQ((*server)->counts().timedOut, 1u);
  EXPECT_EQ((*server)->counts().requests, 1u);
}

TEST_F(ControlSocket, ABurstOfClientsBeyondTheLimitIsAnsweredNotRefused) {
  auto server = ControlServer::listen(path_);
  ASSERT_TRUE(server);
  const auto answers = serveWhile(**server, [&] {
    std::vector<std::future<Result<std::string>>> asks;
    for (std::size_t i = 0; i < 3 * ControlServer::kMaxPendingClients; ++i)
      asks.push_back(std::async(std::launch::async, [&] { return request(path_, "status"); }));
    std::vector<Result<std::string>> out;
    for (auto& a : asks) out.push_back(a.get());
    return out;
  });
  for (const auto& a : answers) {
    ASSERT_TRUE(a) << a.error().message;
    EXPECT_EQ(*a, formatStatus(sample()));
  }
}

TEST_F(ControlSocket, NoDaemonIsAClearError) {
  const auto answer = request(path_, "status", 200ms);
  ASSERT_FALSE(answer);
  EXPECT_EQ(answer.error().message,
            "no ibsm daemon listening on " + path_.string() + ": no such file or directory");

  { auto gone = ControlServer::listen(path_); }  // leaves nothing behind
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::strncpy(a.sun_path, path_.c_str(), sizeof(a.sun_path) - 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);  // stale file
  const auto refused = request(path_, "status", 200ms);
  ::close(fd);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message,
            "no ibsm daemon listening on " + path_.string() + ": connection refused");
}

TEST_F(ControlSocket, ADaemonThatNeverAnswersTimesOut) {
  auto server = ControlServer::listen(path_);  // nobody calls serve()
  ASSERT_TRUE(server);
  const auto start = std::chrono::steady_clock::now();
  const auto answer = request(path_, "status", 150ms);
  ASSERT_FALSE(answer);
  EXPECT_GE(std::chrono::steady_clock::now() - start, 150ms);
  EXPECT_NE(answer.error().message.find("did not answer within 150 ms"), std::string::npos);
}

// Attached to the SM's event loop, the server is served from the loop's
// waits -- the daemon's MAD engine waiting for the wire -- and times its
// clients with the loop's timers.
TEST_F(ControlSocket, AttachedToTheLoopItAnswersFromItsWaitsAndDropsASilentClientOnTime) {
  ibsm::testing::PipeTransport wire;
  loop::EventLoop loop;  // outlives the server, which detaches from it
  auto server = ControlServer::listen(
      path_, {.readGroup = {}, .readGroupName = {}, .requestDeadline = kShortDeadline});
  ASSERT_TRUE(server);
  (*server)->attach(
      loop, [&] { return sample(); }, [&](SweepAsk ask) { sweeps_.push_back(ask); });
  const auto waitWhile = [&](auto& pending) {
    const auto giveUp = MadClock::now() + 5s;
    while (pending.wait_for(0ms) != std::future_status::ready && MadClock::now() < giveUp)
      ASSERT_TRUE(loop.receive(wire, MadClock::now() + 50ms));
  };

  const int silent = connectRaw();
  auto status = std::async(std::launch::async, [&] { return request(path_, "status"); });
  waitWhile(status);
  const auto answer = status.get();
  ASSERT_TRUE(answer) << answer.error().message;
  EXPECT_EQ(*answer, formatStatus(sample()));
  auto sweep = std::async(std::launch::async, [&] { return request(path_, "sweep heavy"); });
  waitWhile(sweep);
  EXPECT_EQ(sweep.get().value_or(""), "ok: heavy sweep requested\n");
  EXPECT_EQ(sweeps_, std::vector<SweepAsk>{SweepAsk::Heavy});

  // The silent client is dropped by its timer, with no other event to wake the loop.
  const auto connected = MadClock::now();
  char c;
  while (::recv(silent, &c, 1, MSG_DONTWAIT) != 0 &&
         MadClock::now() - connected < kShortDeadline + 2s)
    ASSERT_TRUE(loop.receive(wire, MadClock::now() + 2s));
  EXPECT_EQ(::recv(silent, &c, 1, MSG_DONTWAIT), 0);
  EXPECT_LT(MadClock::now() - connected, kShortDeadline + 200ms);
  ::close(silent);
}

// The fake fabric's wire: no fd, and waiting for an answer moves its
// simulated clock to the deadline at once, as FakeFabricTransport does.
class SimulatedWire final : public MadTransport {
 public:
  Result<void> send(const MadBuffer&, MadAddress) override { return {}; }
  Result<std::optional<ReceivedMad>> receive(MadClock::time_point deadline) override {
    now_ = std::max(now_, deadline);
    return std::optional<ReceivedMad>{};
  }
  int pollFd() const override { return -1; }
  MadClock::time_point now() const { return now_; }

 private:
  MadClock::time_point now_{MadClock::now()};
};

// A daemon on the fake fabric runs its loop on simulated time, far ahead of
// the real clock (an idle loop jumps to its next timer). A client is a
// process on the real clock: one that takes 50 ms between connecting and
// sending, well within its 300 ms, is answered however far the loop's
// clock has run meanwhile (it was dropped once its deadline passed on the
// loop's clock, within microseconds of real time).
TEST_F(ControlSocket, AttachedToALoopOnSimulatedTimeItTimesClientsOnTheRealClock) {
  SimulatedWire wire;
  loop::EventLoop loop([&wire] { return wire.now(); });
  auto server = ControlServer::listen(
      path_, {.readGroup = {}, .readGroupName = {}, .requestDeadline = kShortDeadline});
  ASSERT_TRUE(server);
  (*server)->attach(
      loop, [&] { return sample(); }, [](SweepAsk) {});

  const int slow = connectRaw();
  auto answer = std::async(std::launch::async, [&] {
    std::this_thread::sleep_for(50ms);
    const std::string line = "status\n";
    (void)!::send(slow, line.data(), line.size(), MSG_NOSIGNAL);
    std::string got;
    char buf[4096];
    for (ssize_t n; (n = ::recv(slow, buf, sizeof buf, 0)) > 0;) got.append(buf, n);
    return got;
  });
  const auto giveUp = std::chrono::steady_clock::now() + 5s;
  while (answer.wait_for(0ms) != std::future_status::ready &&
         std::chrono::steady_clock::now() < giveUp)
    ASSERT_TRUE(loop.receive(wire, loop.now() + 1s));
  EXPECT_EQ(answer.get(), formatStatus(sample()));
  EXPECT_EQ((*server)->counts().timedOut, 0U);
  ::close(slow);
}

// A fabric of `ports` ports, every one read: its JSON runs to megabytes.
health::HealthView manyPorts(std::size_t ports) {
  health::HealthView v = testing::twoUnhealthy();
  const auto port = v.ports.front();
  v.ports.assign(ports, port);
  for (std::size_t i = 0; i < ports; ++i) v.ports[i].port.node = Guid{0x0002c90300100000 + i};
  return v;
}

TEST_F(ControlSocket, HealthAnswersTheFormattedHealthItsPortsAndItsJson) {
  auto server = ControlServer::listen(path_);
  ASSERT_TRUE(server);
  (*server)->provideHealth([] { return testing::twoUnhealthy(); });
  const auto text = serveWhile(**server, [&] { return request(path_, "health"); });
  EXPECT_EQ(text.value_or(""), formatHealth(testing::twoUnhealthy()));
  const auto ports = serveWhile(**server, [&] { return request(path_, "health ports"); });
  EXPECT_EQ(ports.value_or(""), formatHealthPorts(testing::twoUnhealthy()));
  const auto json = serveWhile(**server, [&] { return request(path_, "health json"); });
  EXPECT_EQ(json.value_or(""), formatHealthJson(testing::twoUnhealthy()));
  EXPECT_TRUE(sweeps_.empty());
}

TEST_F(ControlSocket, HealthWithoutAHealthSourceIsAnError) {
  auto server = ControlServer::listen(path_);
  ASSERT_TRUE(server);
  const auto answer = serveWhile(**server, [&] { return request(path_, "health"); });
  EXPECT_EQ(answer.value_or(""), "error: this daemon does not report fabric health\n");
}

TEST_F(ControlSocket, MetricsAnswersThePrometheusTextOfStatusAndHealth) {
  auto server = ControlServer::listen(path_);
  ASSERT_TRUE(server);
  (*server)->provideHealth([] { return testing::twoUnhealthy(); });
  const auto answer = serveWhile(**server, [&] { return request(path_, "metrics"); });
  EXPECT_EQ(answer.value_or(""), formatMetrics(sample(), testing::twoUnhealthy()));
}

// What the two tests below check is that megabytes arrive whole, not how
// fast: formatting them is seconds of CPU under ASan at -O0, and ctest runs
// both at once, so the client waits longer than `ibsm status` does (speed is
// the benchmarks' business).
constexpr auto kLargeAnswerWait = 60s;

// A socket buffer holds a few hundred KiB; the answer for a large fabric
// is megabytes and must arrive whole, sent as the client reads it.
TEST_F(ControlSocket, AnAnswerLargerThanTheSocketBufferArrivesWhole) {
  auto server = ControlServer::listen(path_);
  ASSERT_TRUE(server);
  const health::HealthView big = manyPorts(2000);
  (*server)->provideHealth([&] { return big; });
  const std::string expected = formatHealthJson(big);
  ASSERT_GT(expected.size(), 2u << 20);
  const auto answer =
      serveWhile(**server, [&] { return request(path_, "health json", kLargeAnswerWait); });
  ASSERT_TRUE(answer) << answer.error().message;
  EXPECT_EQ(answer->size(), expected.size());
  EXPECT_EQ(*answer, expected);
}

TEST_F(ControlSocket, AttachedALargeAnswerIsSentFromTheLoopsTimersUntilWhole) {
  ibsm::testing::PipeTransport wire;
  loop::EventLoop loop;
  auto server = ControlServer::listen(path_);
  ASSERT_TRUE(server);
  (*server)->attach(
      loop, [&] { return sample(); }, [&](SweepAsk ask) { sweeps_.push_back(ask); });
  const health::HealthView big = manyPorts(2000);
  (*server)->provideHealth([&] { return big; });
  auto pending = std::async(std::launch::async,
                            [&] { return request(path_, "health json", kLargeAnswerWait); });
  const auto giveUp = MadClock::now() + kLargeAnswerWait;
  while (pending.wait_for(0ms) != std::future_status::ready && MadClock::now() < giveUp)
    ASSERT_TRUE(loop.receive(wire, MadClock::now() + 50ms));
  const auto answer = pending.get();
  ASSERT_TRUE(answer) << answer.error().message;
  EXPECT_EQ(*answer, formatHealthJson(big));
}

}  // namespace
}  // namespace ibsm::sm::control
