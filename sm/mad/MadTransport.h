// The wire, narrowed to what an SM needs: send a 256-byte SMP, receive the
// next one before a deadline, and an fd to poll. Timeouts, retries and
// matching of responses live above this (sm/mad/MadEngine.h), so a fake
// transport for tests only has to move bytes. Implementations:
// sm/transport/UmadTransport.h (libibumad; ibsim through umad2sim) and the
// in-memory tests/sm/support/FakeFabricTransport.h.
//
//   auto port = UmadTransport::open({});                  // first active port
//   (*port)->send(encodeSmp(smp), MadAddress::directed());
//   if (auto in = (*port)->receive(MadClock::now() + 100ms); in && *in) use((*in)->mad);
//
// Under umad2sim the fd is a fake one that only umad2sim's poll() knows;
// poll() it, do not hand it to epoll -- and not together with other fds:
// umad2sim's poll() waits on its fake fd alone when it is among the fds
// (ibsim's umad2sim.c, poll()) and never looks at the others. A transport
// says so with pollsWithOtherFds(), and a program that waits on more than
// the wire (the SM daemon: signals, control socket) gives the MAD engine a
// MadWaiter (sm/loop/EventLoop.h) that polls everything at once on a real
// kernel and alternates short waits otherwise.
#pragma once

#include <ibsm/Error.h>
#include <ibsm/Ids.h>
#include <ibsm/Mad.h>

#include <chrono>
#include <optional>

namespace ibsm {

using MadClock = std::chrono::steady_clock;

// Where an SMP goes, or came from. Directed-route SMPs carry their path in
// the MAD itself and are sent to the permissive LID; SMPs always use QP0.
struct MadAddress {
  Lid lid{kPermissiveLid};

  static MadAddress directed() { return MadAddress{Lid{kPermissiveLid}}; }
  static MadAddress toLid(Lid lid) { return MadAddress{lid}; }
  auto operator<=>(const MadAddress&) const = default;
};

struct ReceivedMad {
  MadBuffer mad{};
  MadAddress from;  // the sender's LID (permissive for directed route)
};

class MadTransport {
 public:
  virtual ~MadTransport() = default;

  // Hands one MAD to the wire. The TID's upper 32 bits belong to the
  // transport (the kernel and umad2sim put their agent ids there), so a
  // response matches its request by the lower 32 bits only.
  [[nodiscard]] virtual Result<void> send(const MadBuffer& mad, MadAddress to) = 0;

  // The next incoming MAD (a response or an unsolicited request), or
  // nullopt once the deadline has passed with nothing to read. An error
  // means the port is unusable, not that one MAD was bad.
  [[nodiscard]] virtual Result<std::optional<ReceivedMad>> receive(
      MadClock::time_point deadline) = 0;

  // Readable when receive() would return a MAD without waiting; for an SM
  // main loop that also polls other fds. -1 if there is no such fd (the
  // in-memory fake: its receive() is the only way to wait, on its clock).
  virtual int pollFd() const = 0;

  // Whether pollFd() may be passed to one poll() together with other fds.
  // True for a kernel fd; false for umad2sim's fake fd, which must be
  // polled alone (see the top of this file).
  virtual bool pollsWithOtherFds() const { return true; }
};

// Waits for the wire on behalf of the MAD engine (MadEngineOptions::waiter)
// in a program that waits on other things too: while the engine waits for
// a MAD, the waiter serves the program's other fds and timers by running
// their handlers on this same thread. sm/loop/EventLoop.h is the one
// implementation; without a waiter the engine calls transport.receive().
class MadWaiter {
 public:
  virtual ~MadWaiter() = default;

  // The next MAD from `transport`, or nullopt when the deadline passed or
  // when some other handler ran first (so the caller looks at its state
  // again: a handler may have cancelled the engine's work). An error means
  // the transport failed, as from MadTransport::receive().
  [[nodiscard]] virtual Result<std::optional<ReceivedMad>> receive(
      MadTransport& transport, MadClock::time_point deadline) = 0;
};

}  // namespace ibsm
