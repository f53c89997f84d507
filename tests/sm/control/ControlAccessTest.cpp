// The control socket locked down (issue 29), a real server and client on a
// temporary path: the socket is never more open than 0600 (0660 with
// sm.control_group); changing requests are answered for root and the
// daemon's user only, checked on the kernel's credentials of each
// connection; a client that asks nothing, or too much, is closed and
// counted while others are served. The tests that need another user fork a
// child that becomes nobody:nogroup (root only; skipped otherwise).
#include <grp.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <future>
#include <string>
#include <thread>

#include "sm/control/ControlServer.h"

namespace ibsm::sm::control {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

constexpr uid_t kNobody = 65534;
constexpr gid_t kNogroup = 65534;

class ControlAccess : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/ibsm-access-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    // Another user must be able to reach the socket's directory.
    ::chmod(dir_.c_str(), 0711);
    path_ = dir_ / "run" / "ibsm.sock";
  }
  void TearDown() override { fs::remove_all(dir_); }

  void serveOnce(ControlServer& server) {
    server.serve(
        [] {
          DaemonStatus s;
          s.state = "MASTER";
          return s;
        },
        [&](SweepAsk ask) { sweeps_.push_back(ask); });
  }
  // serve() on this thread until `ask`, on another, is done.
  template <typename F>
  auto serveWhile(ControlServer& server, F ask) {
    auto answer = std::async(std::launch::async, ask);
    while (answer.wait_for(2ms) != std::future_status::ready) serveOnce(server);
    return answer.get();
  }
  // Forks a child that drops to nobody (with `group` as its only group)
  // and sends each request on a connection of its own; the parent serves
  // until the child is done. The answers (or the client's errors), one
  // after another. Forked before any thread runs, as fork() wants.
  std::string askAsNobody(ControlServer& server, gid_t group,
                          const std::vector<std::string>& requests) {
    int out[2];
    EXPECT_EQ(::pipe(out), 0);
    const pid_t child = ::fork();
    if (child == 0) {
      ::close(out[0]);
      if (::setgroups(1, &group) != 0 || ::setgid(group) != 0 || ::setuid(kNobody) != 0) _exit(3);
      for (const auto& r : requests) {
        const auto answer = request(path_, r, 3s);
        const std::string text = answer ? *answer : "client: " + answer.error().message + "\n";
        if (::write(out[1], text.data(), text.size()) < 0) _exit(4);
      }
      _exit(0);
    }
    ::close(out[1]);
    int status = 0;
    while (::waitpid(child, &status, WNOHANG) == 0) {
      serveOnce(server);
      std::this_thread::sleep_for(1ms);
    }
    std::string text;
    char buf[512];
    for (ssize_t n; (n = ::read(out[0], buf, sizeof buf)) > 0;)
      text.append(buf, static_cast<std::size_t>(n));
    ::close(out[0]);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    return text;
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

struct stat statOf(const fs::path& p) {
  struct stat st {};
  EXPECT_EQ(::stat(p.c_str(), &st), 0) << p;
  return st;
}

ControlOptions nogroupReads(std::chrono::milliseconds deadline = 3s) {
  return {.readGroup = kNogroup, .readGroupName = "nogroup", .requestDeadline = deadline};
}

TEST_F(ControlAccess, TheSocketIsTheDaemonUsersAloneWhateverTheUmask) {
  const mode_t before = ::umask(0);
  auto server = ControlServer::listen(path_);
  ::umask(before);
  ASSERT_TRUE(server) << server.error().message;
  const auto st = statOf(path_);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(st.st_uid, ::geteuid());
}

TEST_F(ControlAccess, TheReadGroupGetsTheSocket0660) {
  // Root may give the socket any group; another user one of its own.
  const gid_t group = ::geteuid() == 0 ? kNogroup : ::getegid();
  const mode_t before = ::umask(0);
  auto server = ControlServer::listen(
      path_, {.readGroup = group, .readGroupName = "g", .requestDeadline = 3s});
  ::umask(before);
  ASSERT_TRUE(server) << server.error().message;
  const auto st = statOf(path_);
  EXPECT_EQ(st.st_mode & 07777, 0660u);
  EXPECT_EQ(st.st_gid, group);
}

TEST_F(ControlAccess, ChangingRequestsAreCountedReadOnlyOnesAreNot) {
  auto server = ControlServer::listen(path_);
  ASSERT_TRUE(server);
  EXPECT_TRUE(serveWhile(**server, [&] { return request(path_, "status"); }));
  EXPECT_EQ(serveWhile(**server, [&] { return request(path_, "sweep"); }).value_or(""),
            "ok: light sweep requested\n");
  EXPECT_EQ((*server)->counts().requests, 2u);
  EXPECT_EQ((*server)->counts().changing, 1u);
  EXPECT_EQ((*server)->counts().refused, 0u);
}

TEST_F(ControlAccess, AMegabyteIsRefusedAndClosedAndNeverStallsTheServer) {
  auto server = ControlServer::listen(path_);
  ASSERT_TRUE(server);
  const int fd = connectRaw();
  auto flood = std::async(std::launch::async, [fd] {
    const std::string megabyte(1 << 20, 'x');
    std::size_t sent = 0;
    while (sent < megabyte.size()) {
      const ssize_t n = ::send(fd, megabyte.data() + sent, megabyte.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) break;  // the server closed: the rest is refused
      sent += static_cast<std::size_t>(n);
    }
    std::string answer;
    char buf[256];
    for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;)
      answer.append(buf, static_cast<std::size_t>(n));
    return std::pair{sent, answer};
  });
  auto longest = 0us;
  while (flood.wait_for(1ms) != std::future_status::ready) {
    const auto t0 = std::chrono::steady_clock::now();
    serveOnce(**server);
    longest = std::max(longest, std::chrono::duration_cast<std::chrono::microseconds>(
                                    std::chrono::steady_clock::now() - t0));
  }
  const auto [sent, answer] = flood.get();
  ::close(fd);
  EXPECT_LT(sent, std::size_t{1} << 20);  // closed before the megabyte was taken
  EXPECT_EQ(answer.rfind("error: request longer than", 0), 0u) << answer;
  EXPECT_EQ((*server)->counts().oversized, 1u);
  EXPECT_LT(longest, 50ms);
}

TEST_F(ControlAccess, ASilentClientIsClosedAtTheConfiguredTimeoutWhileStatusAnswersAtOnce) {
  auto server = ControlServer::listen(
      path_, {.readGroup = {}, .readGroupName = {}, .requestDeadline = 200ms});
  ASSERT_TRUE(server);
  const int silent = connectRaw();
  const int slow = connectRaw();
  ASSERT_EQ(::send(slow, "sta", 3, MSG_NOSIGNAL), 3);  // and never the rest
  const auto t0 = std::chrono::steady_clock::now();
  const auto answer = serveWhile(**server, [&] { return request(path_, "status"); });
  EXPECT_TRUE(answer);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 100ms);
  char c;
  EXPECT_LT(::recv(silent, &c, 1, MSG_DONTWAIT), 0);  // still open
  std::this_thread::sleep_for(250ms);
  serveOnce(**server);
  EXPECT_EQ(::recv(silent, &c, 1, MSG_DONTWAIT), 0);  // closed
  EXPECT_EQ(::recv(slow, &c, 1, MSG_DONTWAIT), 0);
  EXPECT_EQ((*server)->counts().timedOut, 2u);
  ::close(silent);
  ::close(slow);
}

TEST_F(ControlAccess, TheReadGroupMayAskStatusButNotSweep) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to become nobody:nogroup";
  auto server = ControlServer::listen(path_, nogroupReads());
  ASSERT_TRUE(server) << server.error().message;
  const std::string answers = askAsNobody(**server, kNogroup, {"status", "sweep heavy"});
  EXPECT_NE(answers.find("state: MASTER"), std::string::npos) << answers;
  EXPECT_NE(answers.find("error: refused: changing requests need root (uid 65534 is in group "
                         "nogroup)\n"),
            std::string::npos)
      << answers;
  EXPECT_TRUE(sweeps_.empty());
  EXPECT_EQ((*server)->counts().refused, 1u);
  EXPECT_EQ((*server)->counts().changing, 0u);
}

TEST_F(ControlAccess, WithoutTheGroupAnotherUserCannotConnect) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to become nobody";
  auto server = ControlServer::listen(path_);
  ASSERT_TRUE(server);
  const gid_t other = 65533;  // not the socket's group
  const std::string answers = askAsNobody(**server, other, {"status"});
  EXPECT_NE(answers.find("client: cannot connect to the ibsm daemon on " + path_.string() +
                         ": permission denied"),
            std::string::npos)
      << answers;
  EXPECT_EQ((*server)->counts().requests, 0u);
}

TEST_F(ControlAccess, ALoosenedSocketStillRefusesOthersOnTheirCredentials) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to become nobody";
  auto server = ControlServer::listen(path_);
  ASSERT_TRUE(server);
  ::chmod(path_.c_str(), 0666);  // behind the daemon's back
  const std::string answers = askAsNobody(**server, 65533, {"status", "sweep"});
  EXPECT_NE(answers.find("error: refused: uid 65534 is not root (no sm.control_group lets "
                         "others read)\n"),
            std::string::npos)
      << answers;
  EXPECT_NE(answers.find("error: refused: changing requests need root (uid 65534)\n"),
            std::string::npos)
      << answers;
  EXPECT_EQ((*server)->counts().refused, 2u);
}

TEST_F(ControlAccess, OtherUsersHoldAtMostTheirShareOfTheSlots) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to become nobody:nogroup";
  auto server = ControlServer::listen(path_, nogroupReads(500ms));
  ASSERT_TRUE(server);
  // The child's silent connections, opened before the server accepts any.
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  if (child == 0) {
    const gid_t g = kNogroup;
    if (::setgroups(1, &g) != 0 || ::setgid(g) != 0 || ::setuid(kNobody) != 0) _exit(3);
    std::vector<int> fds;
    for (std::size_t i = 0; i < ControlServer::kMaxUnprivilegedClients + 2; ++i)
      fds.push_back(connectRaw());
    if (::write(ready[1], "x", 1) != 1) _exit(4);
    std::this_thread::sleep_for(1s);
    _exit(0);
  }
  char x;
  ASSERT_EQ(::read(ready[0], &x, 1), 1);
  serveOnce(**server);
  EXPECT_EQ((*server)->counts().busy, 2u);
  // Root still gets an answer at once.
  EXPECT_TRUE(serveWhile(**server, [&] { return request(path_, "status", 1s); }));
  int status = 0;
  ::waitpid(child, &status, 0);
  ::close(ready[0]);
  ::close(ready[1]);
}

}  // namespace
}  // namespace ibsm::sm::control
