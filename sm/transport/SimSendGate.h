// Writes to ibsim that never block the SM's loop (umad2sim only).
//
// Under umad2sim a write() to the umad fd holds umad2sim's global lock while
// it writes the MAD into one Unix datagram socket to ibsim. That socket is
// connected both ways, so the kernel's queue-length limit does not apply and
// the write blocks only when the socket's send buffer is full: when ibsim
// has not yet read about a send buffer's worth of our requests. ibsim then
// sits in a busy loop retrying its answer into our full receive queue, and
// the receiver thread that would drain that queue waits for the global lock
// the blocked write holds: a deadlock (ibsim spinning, ibsm in
// sock_alloc_send_pskb, "cannot write" at teardown). It takes only a burst
// of sends faster than ibsim answers: a wide window, or timeouts resending
// while ibsim is starved of CPU.
//
// The gate finds that socket (bound to "<IBSIM_SOCKNAME>:in<pid>" in the
// abstract namespace), makes it non-blocking, and writes only while the
// socket's used send buffer (SIOCOUTQ) leaves room; otherwise the write is
// kept, in order, and retried from receive() as ibsim reads. The real
// kernel's umad never blocks a write on a reader; it gets no gate.
//
//   SimSendGate gate = SimSendGate::attach();   // inactive when not under umad2sim
//   if (gate.holding() || !gate.hasRoom()) gate.defer(agent, buf, length, timeoutMs);
//   else umad_send(...);
//   gate.flush(portId);                         // after each drain of reads
#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <vector>

namespace ibsm::sm::transport {

class SimSendGate {
 public:
  // umad2sim's socket in this process, made non-blocking; an inactive gate
  // (everything written at once) when there is none.
  [[nodiscard]] static SimSendGate attach();
  // A gate on `fd` (tests): not made non-blocking here.
  SimSendGate(int fd, int sendBuffer) : fd_(fd), limit_(sendBuffer / 2) {}
  SimSendGate() = default;

  bool active() const { return fd_ >= 0; }
  // Writes wait here, oldest first.
  bool holding() const { return !held_.empty(); }
  // One more datagram fits without blocking. Reads SIOCOUTQ once per
  // budget of writes it allows, not once per write.
  [[nodiscard]] bool hasRoom();
  // After a failed write: the socket is full (the write is to be kept and
  // retried), not broken.
  [[nodiscard]] bool full();
  // Keeps a write (the whole umad buffer) for later.
  void defer(int agent, std::span<const std::uint8_t> umad, int length, int timeoutMs);
  // Writes what is held while there is room. Returns the writes that
  // failed for another reason than a full socket (dropped: the engine's
  // timers resend them).
  std::uint64_t flush(int portId);

  std::uint64_t deferred() const { return deferred_; }  // writes kept at least once
  std::size_t mostHeld() const { return mostHeld_; }

  // A datagram's share of the send buffer: ibsim's request (~290 bytes)
  // in an skb, rounded up generously so the budget never overshoots.
  static constexpr int kDatagramCost{2048};

 private:
  struct Write {
    int agent;
    std::vector<std::uint8_t> umad;
    int length;
    int timeoutMs;
  };
  int fd_{-1};
  int limit_{0};   // bytes of send buffer we let ourselves fill
  int budget_{0};  // writes allowed before SIOCOUTQ is read again
  std::deque<Write> held_;
  std::uint64_t deferred_{0};
  std::size_t mostHeld_{0};
};

}  // namespace ibsm::sm::transport
