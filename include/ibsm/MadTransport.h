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
// poll() it, do not hand it to epoll.
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
  // main loop that also polls other fds. -1 if there is no such fd.
  virtual int pollFd() const = 0;
};

}  // namespace ibsm
