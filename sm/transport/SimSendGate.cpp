#include "sm/transport/SimSendGate.h"

#include <fcntl.h>
#include <infiniband/umad.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <string>
#include <string_view>

namespace ibsm::sm::transport {
namespace {

// umad2sim hands out its own fds from 1024; its socket to ibsim is a real
// one below them.
constexpr int kLowestSimFd = 1024;

// fd is a datagram socket bound to the abstract name "...:in<pid>" (umad2sim's
// sim_client.c: one socket, both ways, connected to ibsim's "...:out<client>").
bool isSimDataSocket(int fd, std::string_view suffix) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode)) return false;
  int type = 0;
  socklen_t typeLen = sizeof(type);
  if (::getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &typeLen) != 0 || type != SOCK_DGRAM)
    return false;
  sockaddr_un name{};
  socklen_t nameLen = sizeof(name);
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&name), &nameLen) != 0) return false;
  if (name.sun_family != AF_UNIX || nameLen <= offsetof(sockaddr_un, sun_path) + 1) return false;
  if (name.sun_path[0] != '\0') return false;  // not the abstract namespace
  std::string_view bound(name.sun_path + 1, nameLen - offsetof(sockaddr_un, sun_path) - 1);
  // umad2sim binds the name with its terminating NUL.
  while (bound.ends_with('\0')) bound.remove_suffix(1);
  return bound.ends_with(suffix);
}

}  // namespace

SimSendGate SimSendGate::attach() {
  const std::string suffix = ":in" + std::to_string(::getpid());
  for (int fd = 0; fd < kLowestSimFd; ++fd) {
    if (!isSimDataSocket(fd, suffix)) continue;
    int sendBuffer = 0;
    socklen_t len = sizeof(sendBuffer);
    if (::getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sendBuffer, &len) != 0) return {};
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) return {};
    return SimSendGate(fd, sendBuffer);
  }
  return {};
}

bool SimSendGate::hasRoom() {
  if (!active()) return true;
  if (budget_ > 0) {
    --budget_;
    return true;
  }
  int used = 0;
  if (::ioctl(fd_, SIOCOUTQ, &used) != 0) return true;  // cannot tell: non-blocking still guards
  budget_ = std::max(0, (limit_ - used) / kDatagramCost);
  if (budget_ == 0) return false;
  --budget_;
  return true;
}

bool SimSendGate::full() {
  if (!active()) return false;
  budget_ = 0;
  int used = 0;
  if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
  return ::ioctl(fd_, SIOCOUTQ, &used) == 0 && used + kDatagramCost > limit_;
}

void SimSendGate::defer(int agent, std::span<const std::uint8_t> umad, int length, int timeoutMs) {
  held_.push_back({agent, {umad.begin(), umad.end()}, length, timeoutMs});
  ++deferred_;
  mostHeld_ = std::max(mostHeld_, held_.size());
}

std::uint64_t SimSendGate::flush(int portId) {
  std::uint64_t failed = 0;
  while (!held_.empty() && hasRoom()) {
    Write& w = held_.front();
    if (umad_send(portId, w.agent, w.umad.data(), w.length, w.timeoutMs, 0) < 0) {
      if (full()) return failed;  // kept: tried again after the next reads
      ++failed;
    }
    held_.pop_front();
  }
  return failed;
}

}  // namespace ibsm::sm::transport
