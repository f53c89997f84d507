#include "sm/control/ControlClient.h"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "sm/control/SocketUtil.h"

namespace ibsm::sm::control {
namespace {

std::string lowerFirst(std::string s) {
  if (!s.empty() && s[0] >= 'A' && s[0] <= 'Z') s[0] = static_cast<char>(s[0] - 'A' + 'a');
  return s;
}

}  // namespace

Result<std::string> request(const std::filesystem::path& socket, std::string_view line,
                            std::chrono::milliseconds timeout) {
  auto addr = unixAddress(socket);
  if (!addr) return std::unexpected(addr.error());
  FileDescriptor fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (fd.get() < 0)
    return fail(fmt::format("cannot create a socket: {}", lowerFirst(std::strerror(errno))));
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  // A unix connect succeeds or fails at once, except that a full backlog
  // answers EAGAIN: the daemon serves every ~100 ms, so try again until the
  // deadline.
  while (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&*addr), sizeof(*addr)) != 0) {
    if (errno == EINTR) continue;
    if (errno == EAGAIN && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      continue;
    }
    if (errno == EACCES)
      return fail(
          fmt::format("cannot connect to the ibsm daemon on {}: permission denied "
                      "(the socket is for root, the daemon's user and the members of "
                      "sm.control_group)",
                      socket.string()));
    return fail(fmt::format("no ibsm daemon listening on {}: {}", socket.string(),
                            lowerFirst(std::strerror(errno))));
  }
  const std::string out = std::string(line) + "\n";
  if (::send(fd.get(), out.data(), out.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(out.size()))
    return fail(fmt::format("{}: cannot send the request: {}", socket.string(),
                            lowerFirst(std::strerror(errno))));

  std::string answer;
  char buf[4096];
  for (;;) {
    const auto left =
        std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0)
      return fail(fmt::format("the ibsm daemon on {} did not answer within {} ms", socket.string(),
                              timeout.count()));
    pollfd p{fd.get(), POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;  // timeout: the loop reports it
    const ssize_t n = ::recv(fd.get(), buf, sizeof buf, 0);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      // A daemon that refuses an overlong request closes with part of it
      // unread, which resets the connection after its answer arrived.
      if (errno == ECONNRESET && !answer.empty()) break;
      return fail(fmt::format("{}: reading the answer: {}", socket.string(),
                              lowerFirst(std::strerror(errno))));
    }
    answer.append(buf, static_cast<std::size_t>(n));
  }
  if (answer.empty())
    return fail(fmt::format("the ibsm daemon on {} closed the connection without answering",
                            socket.string()));
  return answer;
}

}  // namespace ibsm::sm::control
