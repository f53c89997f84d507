// General MADs (GMPs): the management datagrams other than SMPs, which go
// LID-routed on QP1 (Subnet Administration, class 0x03, is the one ibsm
// serves). Unlike an SMP a GMP answer may be longer than one 256-byte MAD:
// an SA GetTable carries many records, which RMPP splits into segments on
// the wire. This contract keeps that below it: a responder sees one whole
// request and returns one whole answer (MAD header, RMPP header, SA header
// and the full payload, any length); the transport segments it (on a real
// port the kernel does, for an agent registered with RMPP) or, where it
// cannot (ibsim's umad2sim has no RMPP), cuts it to one MAD.
//
// Who is who: the transport (sm/transport) receives GMPs of the classes it
// registered and gives each to the daemon with its GmpAddress; the daemon
// hands an SA GMP to its GmpResponder while it is MASTER and drops it
// (counted) otherwise; the SA (sm/sa) is the responder, answering from the
// SM's last consistent model and never sending anything itself while
// answering. Performance Management GMPs (class 0x04) are answers to the
// counter sweep's own requests: the daemon gives them to its requester
// (sm/health/PerfRequester.h), never to the SA.
#pragma once

#include <ibsm/Error.h>
#include <ibsm/Ids.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

namespace ibsm {

// Management classes and their versions, as the MAD header carries them.
inline constexpr std::uint8_t kSaClass = 0x03;
inline constexpr std::uint8_t kSaClassVersion = 2;

// QP1's well-known Q_Key (IBA 13.5.3.1).
inline constexpr std::uint32_t kQp1QKey = 0x80010000;

// Where a GMP came from, and where its answer goes: the sender's LID, QP
// and Q_Key, the SL and P_Key index it used, and its GRH's source GID when
// it sent one (an answer then carries a GRH back).
struct GmpAddress {
  Lid lid{};
  std::uint32_t qpn{1};
  std::uint32_t qkey{kQp1QKey};
  std::uint8_t sl{0};
  std::uint16_t pkeyIndex{0};
  std::optional<Gid> gid;
  auto operator<=>(const GmpAddress&) const = default;
};

struct ReceivedGmp {
  std::vector<std::uint8_t> mad;  // the whole GMP as received (RMPP reassembled)
  GmpAddress from;
};

// A GMP to send: an answer, or a request the SA originates itself (a
// Report(Notice) to a subscriber, whose ReportResp comes back through the
// port's handler like any GMP).
struct OutgoingGmp {
  std::vector<std::uint8_t> mad;
  GmpAddress to;
};

class GmpResponder {
 public:
  virtual ~GmpResponder() = default;

  // The whole answer to `request` (a response method, TID echoed), or
  // nullopt when nothing is to be sent back (a response or a ReportResp
  // that completes something the responder sent, a MAD it must drop).
  // Never blocks and never sends: it answers from what it already holds.
  [[nodiscard]] virtual std::optional<std::vector<std::uint8_t>> answer(
      std::span<const std::uint8_t> request, const GmpAddress& from) = 0;
};

// The GMP side of a port: what the daemon needs of the transport to serve
// the SA (sm/transport/UmadTransport.h implements it beside MadTransport).
// GMPs are never handed to the MAD engine, which knows only SMPs: the
// transport gives each to the handler from inside its receive(), on the
// thread that waits for the wire -- so they are served between the MADs of
// a sweep as well as between sweeps.
class GmpPort {
 public:
  using Handler = std::function<void(const ReceivedGmp&)>;
  virtual ~GmpPort() = default;

  // Who takes the GMPs received from now on; an empty handler drops them.
  // The handler may call sendGmp().
  virtual void onGmp(Handler handler) = 0;
  // Called inside receive() whenever every GMP that had arrived has been
  // handed to the handler: a handler that queues them (the SA's fair queue)
  // answers some from here and returns true while it holds more, and the
  // port then reads what came meanwhile and calls it again rather than wait.
  // So reading never waits behind answering, and what is queued is served
  // in turns between reads.
  using Drained = std::function<bool()>;
  virtual void onGmpsDrained(Drained drained) = 0;
  // Sends one whole answer (any length: segmented or cut, see the top of
  // this file) LID-routed to `to`'s QP, with a GRH when `to` has a GID; or
  // a request (method without the response bit: a Report), whose response
  // the port then delivers to the handler (the kernel delivers a response
  // only to the agent that sent the request, and only while it waits).
  [[nodiscard]] virtual Result<void> sendGmp(std::span<const std::uint8_t> mad,
                                             const GmpAddress& to) = 0;
};

}  // namespace ibsm
