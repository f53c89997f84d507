#include "sm/control/ControlServer.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include "sm/control/HealthFormat.h"
#include "sm/control/Metrics.h"
#include "sm/control/PathRequest.h"
#include "sm/control/SocketUtil.h"

namespace ibsm::sm::control {
namespace {

// A request as a log line may show it: printable ASCII, at most `max` bytes.
std::string printable(std::string_view s, std::size_t max) {
  std::string out(s.substr(0, max));
  for (char& c : out)
    if (c < 0x20 || c > 0x7e) c = '?';
  return out;
}

std::string trim(std::string_view s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return std::string(s);
}

// `health` and `metrics`, or nullopt for another request.
std::optional<std::string> answerHealth(const std::string& request,
                                        const std::function<DaemonStatus()>& status,
                                        const HealthSource& health) {
  if (request == "metrics")
    return formatMetrics(status(), health ? health() : health::HealthView{});
  if (!request.starts_with("health")) return std::nullopt;
  if (!health) return std::string("error: this daemon does not report fabric health\n");
  if (request == "health") return formatHealth(health());
  if (request == "health json") return formatHealthJson(health());
  if (request == "health ports") return formatHealthPorts(health());
  return std::nullopt;
}

// A wake-up is never set in the past: a due client is looked at 1 ms on.
constexpr std::chrono::milliseconds kTimerFloor{1};
constexpr std::string_view kLogLevel = "log-level ";

std::string answerLogLevel(const std::string& request, const LogLevelRequest& logLevel) {
  if (!logLevel) return "error: this daemon does not change its log level\n";
  return logLevel(trim(std::string_view(request).substr(kLogLevel.size())));
}

// "keys rotate" (the only keys request served; "keys" alone is refused
// to the read group like any changing request, then answered here).
std::string answerKeys(const std::string& request, const KeysRotateRequest& rotate) {
  if (request != "keys rotate")
    return fmt::format("error: unknown keys request '{}' (expected keys rotate)\n",
                       request.substr(0, 64));
  if (!rotate) return "error: this daemon does not rotate M_Keys\n";
  return rotate();
}

std::string answer(const std::string& request, const std::function<DaemonStatus()>& status,
                   const SweepRequest& sweep, const ReadmitRequest& readmit,
                   const HealthSource& health) {
  if (constexpr std::string_view kReadmit = "sweep readmit "; request.starts_with(kReadmit)) {
    if (!readmit) return "error: this daemon does not isolate links\n";
    return readmit(trim(std::string_view(request).substr(kReadmit.size())));
  }
  if (request == "status") return formatStatus(status());
  if (request == "status json") return formatStatusJson(status());
  if (auto text = answerHealth(request, status, health)) return *text;
  if (request == "sweep") {
    sweep(SweepAsk::Light);
    return "ok: light sweep requested\n";
  }
  if (request == "sweep heavy") {
    sweep(SweepAsk::Heavy);
    return "ok: heavy sweep requested\n";
  }
  if (request == "sweep rebalance") {
    sweep(SweepAsk::Rebalance);
    return "ok: heavy sweep with fresh routes (rebalance) requested\n";
  }
  return fmt::format(
      "error: unknown request '{}' (expected status, status json, health, health json, health "
      "ports, metrics, draw, sweep, sweep heavy, sweep rebalance, sweep readmit LINK, log-level "
      "LEVEL or keys rotate)\n",
      request.substr(0, 64));
}

// Sends what the socket takes now, never waiting (the SM is single-threaded):
// how many bytes it took, or nullopt when the client is gone.
std::optional<std::size_t> sendSome(int fd, std::string_view text) {
  std::size_t sent = 0;
  while (sent < text.size()) {
    const ssize_t n =
        ::send(fd, text.data() + sent, text.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n < 0) return std::nullopt;
    sent += static_cast<std::size_t>(n);
  }
  return sent;
}

// "dump KIND": megabytes for a large fabric, sent as the client reads it.
std::string answerDump(std::string_view kindName, const DumpSource& dump) {
  const auto kind = parseDumpKind(kindName);
  if (!kind)
    return fmt::format("error: unknown table '{}' (expected lfts, mfts, guid2lid or sl2vl)\n",
                       kindName.substr(0, 64));
  if (!dump) return "error: this daemon does not dump its tables\n";
  auto text = dump(*kind);
  if (!text) return fmt::format("error: {}\n", text.error().message);
  return frameDump(*kind, *text);
}

void sendAll(int fd, std::string_view text) {
  // Error lines are short: the socket buffer takes them whole.
  (void)sendSome(fd, text);
}

// `ibsm sweep` reprograms the fabric: the socket is created 0600 (the umask
// applies to bind's file; the daemon is single-threaded here), and only then
// given the read group and 0660, so no moment finds it more open than meant.
Result<void> bindPrivately(int fd, const sockaddr_un& addr, const std::filesystem::path& path,
                           const ControlOptions& options) {
  const mode_t before = ::umask(0177);
  const int bound = ::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr));
  const int bindErrno = errno;
  ::umask(before);
  if (bound != 0)
    return fail(fmt::format("{}: cannot bind: {}", path.string(), std::strerror(bindErrno)));
  if (!options.readGroup) return {};
  if (::chown(path.c_str(), static_cast<uid_t>(-1), *options.readGroup) != 0 ||
      ::chmod(path.c_str(), 0660) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(path.c_str());
    return fail(fmt::format("{}: cannot give the socket to group {} (sm.control_group): {}",
                            path.string(), options.readGroupName, why));
  }
  return {};
}

// Closing with input unread resets the connection, which can discard an
// answer on its way; take what is already queued (bounded) first.
void drainSome(int fd) {
  char buf[128];
  for (int i = 0; i < 64 && ::recv(fd, buf, sizeof buf, MSG_DONTWAIT) > 0; ++i) {
  }
}

}  // namespace

Result<std::unique_ptr<ControlServer>> ControlServer::listen(const std::filesystem::path& path,
                                                             ControlOptions options) {
  auto addr = unixAddress(path);
  if (!addr) return std::unexpected(addr.error());
  std::error_code ec;
  if (path.has_parent_path()) {
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec)
      return fail(fmt::format("{}: cannot create directory {}: {}", path.string(),
                              path.parent_path().string(), ec.message()));
  }
  const auto st = std::filesystem::symlink_status(path, ec);
  if (std::filesystem::exists(st)) {
    if (!std::filesystem::is_socket(st))
      return fail(fmt::format("{}: exists and is not a socket; not replacing it", path.string()));
    // Non-blocking, so a live daemon with a full backlog (EAGAIN) counts as
    // live instead of stalling this start.
    FileDescriptor probe(::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (probe.get() >= 0 &&
        (::connect(probe.get(), reinterpret_cast<const sockaddr*>(&*addr), sizeof(*addr)) == 0 ||
         errno == EAGAIN))
      return fail(fmt::format("{}: another ibsm daemon is listening there", path.string()));
    // Nobody answers: a socket file left by a daemon that died.
    if (::unlink(path.c_str()) != 0 && errno != ENOENT)
      return fail(
          fmt::format("{}: cannot remove stale socket: {}", path.string(), std::strerror(errno)));
    spdlog::info("SM-0801 control: replaced stale socket {}", path.string());
  }
  FileDescriptor fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (fd.get() < 0)
    return fail(fmt::format("{}: cannot create socket: {}", path.string(), std::strerror(errno)));
  if (auto bound = bindPrivately(fd.get(), *addr, path, options); !bound)
    return std::unexpected(bound.error());
  if (::listen(fd.get(), static_cast<int>(kMaxPendingClients)) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(path.c_str());
    return fail(fmt::format("{}: cannot listen: {}", path.string(), why));
  }
  return std::unique_ptr<ControlServer>(new ControlServer(fd.release(), path, std::move(options)));
}

ControlServer::ControlServer(int fd, std::filesystem::path path, ControlOptions options)
    : fd_(fd),
      path_(std::move(path)),
      options_(std::move(options)),
      policy_{.daemonUid = ::geteuid(),
              .readGroup = options_.readGroup,
              .readGroupName = options_.readGroupName} {}

ControlServer::~ControlServer() {
  if (loop_) {
    loop_->unwatch(fd_);
    for (const auto& c : clients_) {
      loop_->unwatch(c.fd);
      loop_->cancel(c.timer);
    }
  }
  for (const auto& c : clients_) ::close(c.fd);
  ::close(fd_);
  ::unlink(path_.c_str());
}

void ControlServer::acceptPending() {
  // Past the limit, connections wait in the kernel's backlog for a later
  // call rather than being refused: a burst of operators is slowed, not
  // failed, and silent clients cannot take more than kMaxPendingClients fds.
  while (clients_.size() < kMaxPendingClients && acceptOne()) {
  }
}

bool ControlServer::acceptOne() {
  const int c = ::accept4(fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (c < 0) return false;  // EAGAIN: nothing more pending (other errors: try next call)
  auto peer = peerOf(c);
  if (!peer) {
    // Nobody can be served whose rights are unknown.
    ::close(c);
    return true;
  }
  const auto others = std::ranges::count_if(
      clients_, [this](const Client& client) { return !privileged(client.peer, policy_); });
  if (!privileged(*peer, policy_) && static_cast<std::size_t>(others) >= kMaxUnprivilegedClients) {
    ++counts_.busy;
    spdlog::debug(
        "SM-0809 control: turned away uid {} pid {}: {} connections of users other "
        "than root are open",
        peer->uid, peer->pid, others);
    sendAll(c, "error: busy: too many connections of users other than root; try again\n");
    drainSome(c);
    ::close(c);
    return true;
  }
  clients_.push_back({.fd = c,
                      .line = {},
                      .deadline = clock_() + options_.requestDeadline,
                      .timer = 0,
                      .answered = false,
                      .out = {},
                      .sent = 0,
                      .peer = std::move(*peer)});
  return true;
}

bool ControlServer::flush(Client& client) {
  // An offset, not erasing what went: megabytes go out ~200 KiB at a time.
  const auto sent = sendSome(client.fd, std::string_view(client.out).substr(client.sent));
  if (!sent) return true;
  client.sent += *sent;
  if (client.sent == client.out.size()) return true;
  if (clock_() < client.deadline) return false;
  spdlog::debug("SM-0804 control: dropped a client that took no answer within {} ms",
                kAnswerDeadline.count());
  return true;
}

bool ControlServer::progress(Client& client, const std::function<DaemonStatus()>& status,
                             const SweepRequest& sweep) {
  if (client.answered) return flush(client);
  char buf[128];
  bool eof = false;
  for (;;) {
    const ssize_t n = ::recv(client.fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n > 0) {
      client.line.append(buf, static_cast<std::size_t>(n));
      if (client.line.find('\n') != std::string::npos || client.line.size() > kMaxRequestBytes)
        break;
      continue;
    }
    if (n == 0)
      eof = true;
    else if (errno == EINTR)
      continue;
    else if (errno != EAGAIN && errno != EWOULDBLOCK)
      return true;  // reset: drop it
    break;
  }
  const auto nl = client.line.find('\n');
  if (nl == std::string::npos && client.line.size() > kMaxRequestBytes) {
    ++counts_.oversized;
    sendAll(client.fd, fmt::format("error: request longer than {} bytes\n", kMaxRequestBytes));
    drainSome(client.fd);
    return true;
  }
  if (nl == std::string::npos && !eof) {
    if (clock_() < client.deadline) return false;
    ++counts_.timedOut;
    spdlog::debug("SM-0802 control: dropped a client that sent no request within {} ms",
                  options_.requestDeadline.count());
    return true;
  }
  const std::string request = trim(std::string_view(client.line).substr(0, nl));
  if (request.empty()) return true;
  client.out = answerRequest(client, request, status, sweep);
  client.answered = true;
  client.deadline = clock_() + kAnswerDeadline;
  return flush(client);
}

std::string ControlServer::answerRequest(const Client& client, const std::string& request,
                                         const std::function<DaemonStatus()>& status,
                                         const SweepRequest& sweep) {
  ++counts_.requests;
  const RequestRule rule = classifyRequest(request);
  if (auto why = refusal(rule.access, client.peer, policy_)) {
    ++counts_.refused;
    logRefusal(client.peer, rule, *why);
    return fmt::format("error: refused: {}\n", *why);
  }
  if (rule.access == RequestAccess::Changing) {
    ++counts_.changing;
    spdlog::info("SM-0807 control: '{}' asked by uid {} pid {} on {}",
                 printable(request, kMaxRequestBytes), client.peer.uid, client.peer.pid,
                 path_.string());
  }
  // `draw` is megabytes for a large fabric: sent as the client reads it, as
  // every long answer is (flush).
  if (constexpr std::string_view kDump = "dump "; request.starts_with(kDump))
    return answerDump(trim(std::string_view(request).substr(kDump.size())), dump_);
  if (request == "draw") return draw_ ? draw_() : std::string("error: this daemon does not draw\n");
  if (request.starts_with(kPathRequest))
    return paths_ ? paths_(request) : std::string("error: this daemon walks no paths\n");
  if (request.starts_with(kLogLevel)) return answerLogLevel(request, logLevel_);
  if (request == "keys" || request.starts_with("keys ")) return answerKeys(request, keysRotate_);
  return answer(request, status, sweep, readmit_, health_);
}

void ControlServer::logRefusal(const PeerCred& peer, const RequestRule& rule,
                               const std::string& why) {
  // A group member who loops on `ibsm sweep` gets one line a second.
  const auto now = clock_();
  if (lastRefusalLog_ && now - *lastRefusalLog_ < kRefusalLogInterval) {
    ++refusalsUnlogged_;
    return;
  }
  spdlog::warn(
      "SM-0808 control: refused {} to uid {} pid {}: {} ({} more refused before, not "
      "logged)",
      rule.command, peer.uid, peer.pid, why, refusalsUnlogged_);
  lastRefusalLog_ = now;
  refusalsUnlogged_ = 0;
}

void ControlServer::serve(const std::function<DaemonStatus()>& status, const SweepRequest& sweep) {
  acceptPending();
  std::erase_if(clients_, [&](Client& c) {
    if (!progress(c, status, sweep)) return false;
    ::close(c.fd);
    return true;
  });
}

}  // namespace ibsm::sm::control

namespace ibsm::sm::control {

void ControlServer::attach(loop::EventLoop& loop, std::function<DaemonStatus()> status,
                           SweepRequest sweep) {
  loop_ = &loop;
  status_ = std::move(status);
  sweep_ = std::move(sweep);
  loop.watch(fd_, [this] { onListening(); });
}

void ControlServer::onListening() {
  const std::size_t before = clients_.size();
  acceptPending();
  std::vector<int> accepted;
  for (std::size_t i = before; i < clients_.size(); ++i) {
    const int fd = clients_[i].fd;
    accepted.push_back(fd);
    loop_->watch(fd, [this, fd] { onClient(fd); });
    armTimer(clients_[i], clients_[i].deadline - clock_());
  }
  // Full: more connections wait in the backlog, and the listening socket
  // stays readable -- watched, it would wake the loop for nothing.
  if (clients_.size() >= kMaxPendingClients) loop_->unwatch(fd_);
  // A client usually writes its line right after connecting: answer it now
  // rather than at the loop's next look.
  for (int fd : accepted) onClient(fd);
}

void ControlServer::armTimer(Client& client, MadClock::duration after) {
  if (client.timer != 0) loop_->cancel(client.timer);
  const int fd = client.fd;
  client.timer = loop_->at(loop_->now() + std::max(after, MadClock::duration(kTimerFloor)),
                           [this, fd] { onClient(fd); });
}

void ControlServer::onClient(int fd) {
  auto it = std::ranges::find_if(clients_, [fd](const Client& c) { return c.fd == fd; });
  if (it == clients_.end()) return;
  if (!progress(*it, status_, sweep_)) {
    if (!it->answered) {
      // Woken before the deadline (readable, or a loop whose clock runs
      // ahead of the real one): wake again when the rest of it is due.
      armTimer(*it, it->deadline - clock_());
      return;
    }
    // The rest of a long answer: sent again shortly, until the deadline.
    // Only the timer calls back from now on: unread input would otherwise
    // wake the loop again and again.
    loop_->unwatch(fd);
    armTimer(*it, kSendRetry);
    return;
  }
  loop_->unwatch(fd);
  loop_->cancel(it->timer);
  ::close(fd);
  clients_.erase(it);
  loop_->watch(fd_, [this] { onListening(); });
}

}  // namespace ibsm::sm::control
