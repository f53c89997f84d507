// MadTransport over libibumad: the SM's port on real hardware, or an ibsim
// node when the process runs under umad2sim (LD_PRELOAD). One object owns
// one open port with two agents, for the LID-routed (0x01) and the
// directed-route (0x81) SM classes, both registered to receive Get, Set,
// Trap and TrapRepress requests as well as responses to what we send; and,
// as the port's GmpPort (sm/mad/Gmp.h), a third agent for Subnet
// Administration (class 0x03 version 2 on QP1) registered as a server with
// RMPP, so the kernel reassembles long requests and segments long answers;
// and a fourth, a Performance Management client (class 0x04), whose
// answers to the counter sweep's Gets and Sets come back the same way.
// GMPs of both classes go to the GMP handler from inside receive() (the
// daemon tells them apart by class); the MAD engine reading receive() sees
// only SMPs.
//
//   UmadOptions options;
//   options.portGuid = Guid{0x0002c903000e0b71};   // or leave unset: first active port
//   auto port = UmadTransport::open(options);
//   if (!port) return port.error();        // "no IB port with GUID 0x0002c9..."
//   spdlog::info("SM port {} lid {}", (*port)->port().portGuid, (*port)->port().lid);
#pragma once

#include <ibsm/Fabric.h>

#include <chrono>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sm/mad/Gmp.h"
#include "sm/mad/MadTransport.h"
#include "sm/transport/SimSendGate.h"

namespace ibsm::sm::transport {

struct UmadPort {
  std::string caName;  // "mlx5_0", or ibsim's "ibsim0"
  int portNumber{0};
  Guid portGuid;
  Lid lid;
  std::uint8_t lmc{0};
  Lid smLid;
  PortState state{PortState::Down};
  std::uint8_t physState{0};
  std::uint32_t capabilityMask{0};
};

// A port by device and number, as `ibstat` names it: mlx5_0 port 1.
struct UmadPortName {
  std::string caName;
  int portNumber{1};
};

struct UmadOptions {
  // Which port: by GUID, by device and number, or libibumad's choice (the
  // first active IB port). Not both.
  std::optional<Guid> portGuid;
  std::optional<UmadPortName> portName;
  // Open the issm device, which sets PortInfo:IsSM: without it neither
  // traps nor other SMs' SubnGet(SMInfo) are delivered to this port.
  bool claimSm{true};
  // How long the kernel keeps a sent request to match its response. It
  // never retries (the MAD engine does); a response arriving later than
  // this is dropped by the kernel, so keep it at least the engine's timeout.
  std::chrono::milliseconds responseTimeout{1000};
  // Register the SA agent (class 0x03). Without it a GMP for the SA is
  // dropped by a real kernel but kills the process under umad2sim (its
  // receiver dereferences the missing agent), so only tools that never
  // serve a subnet leave it off.
  bool serveSa{true};
  // Register a PerfMgt agent (class 0x04 version 1) as a client, for the
  // counter sweep: a real kernel delivers a response only to the agent that
  // sent the request, and umad2sim dies on a MAD of a class with no agent.
  bool readCounters{true};
};

// What the port did with GMPs, for the daemon's status.
struct GmpWireCounters {
  std::uint64_t received{0};
  std::uint64_t unhandled{0};  // no handler installed: dropped
  std::uint64_t cut{0};        // answers longer than one MAD cut to 256 bytes (umad2sim)
};

// What receive() did, for benchmarks and tests: a poll() is a wait (and
// under umad2sim two locks its receiver thread also takes), an empty read
// the end of a drain that did not wait.
struct UmadWireCounters {
  std::uint64_t smpsRead{0};    // SMPs handed to the caller
  std::uint64_t polls{0};       // waits in poll() after an empty read
  std::uint64_t emptyReads{0};  // empty reads past the deadline: returned without a poll()
  // Under umad2sim: writes kept because its socket to ibsim was full (see
  // SimSendGate.h), and the most kept at once. Always 0 on a real port.
  std::uint64_t sendsDeferred{0};
  std::uint64_t mostDeferred{0};
  std::uint64_t sendsDropped{0};  // kept writes that then failed (the engine resends)
};

class UmadTransport final : public MadTransport, public GmpPort {
 public:
  [[nodiscard]] static Result<std::unique_ptr<UmadTransport>> open(const UmadOptions& options);
  // Under umad2sim, first reads and drops what is still on its way to us
  // (see settle()).
  ~UmadTransport() override;
  UmadTransport(const UmadTransport&) = delete;
  UmadTransport& operator=(const UmadTransport&) = delete;

  [[nodiscard]] Result<void> send(const MadBuffer& mad, MadAddress to) override;
  [[nodiscard]] Result<std::optional<ReceivedMad>> receive(MadClock::time_point deadline) override;
  int pollFd() const override;
  // False under umad2sim (ibsim), whose fd is not a kernel fd and whose
  // poll() ignores every other fd it is given with it.
  bool pollsWithOtherFds() const override { return kernelFd_; }

  // GmpPort: SA requests (RMPP reassembled on a real port) and PerfMgt
  // answers to `handler`.
  void onGmp(Handler handler) override { gmpHandler_ = std::move(handler); }
  void onGmpsDrained(Drained drained) override { gmpDrained_ = std::move(drained); }
  // LID-routed to to.qpn with to.qkey, SL and P_Key index, a GRH back to
  // to.gid when there is one. Longer than 256 bytes: segmented by the
  // kernel (the answer's RMPP header says Active), cut to 256 under
  // umad2sim, which has no RMPP. Sent by the agent of the MAD's class (SA
  // or PerfMgt). A request (a Report, a PerfMgt Get or Set) is sent with
  // the response timeout, so its response reaches the handler.
  [[nodiscard]] Result<void> sendGmp(std::span<const std::uint8_t> mad,
                                     const GmpAddress& to) override;
  const GmpWireCounters& gmpCounters() const { return gmpCounters_; }
  const UmadWireCounters& wireCounters() const { return wire_; }

  // The port as it was when opened.
  const UmadPort& port() const { return port_; }
  // The port as the kernel sees it now (LID and SM LID change once an SM
  // has programmed them).
  [[nodiscard]] Result<UmadPort> queryPort() const;

 private:
  struct Handles;
  UmadTransport(UmadPort port, std::unique_ptr<Handles> handles, const UmadOptions& options);
  // umad2sim's receiver thread dereferences a null pointer when an answer
  // arrives for an agent that is unregistered or closed, killing the
  // process -- which is what answers to requests still in flight would do
  // after the SM stopped in the middle of a sweep (a cancelled engine does
  // not wait for them). So, when requests may still be unanswered, read and
  // drop MADs until none came for kSettleQuiet (at most kSettleMax). A
  // real kernel drops such answers itself; nothing is waited for there.
  void settle();
  // The GMP just read into recvBuf_, to the handler with its sender.
  void deliverGmp(std::span<const std::uint8_t> mad);
  // poll() on the port until it is readable (true) or `deadline` (false);
  // while writes are kept, no longer than kHeldRetry before they are retried.
  [[nodiscard]] Result<bool> waitReadable(MadClock::time_point deadline) const;
  // umad_send of the umad buffer `buf`, or kept by the gate while
  // umad2sim's socket is full (then sent from receive()).
  [[nodiscard]] Result<void> write(int agent, std::vector<std::uint8_t>& buf, int length,
                                   int timeoutMs);
  // The kept writes that fit now, sent.
  void flushHeld();
  // GMPs served past receive()'s deadline before it returns (see there).
  static constexpr std::size_t kGmpBatch{64};
  static constexpr std::chrono::milliseconds kSettleQuiet{20};
  static constexpr std::chrono::milliseconds kSettleMax{200};
  static constexpr std::chrono::milliseconds kHeldRetry{1};

  UmadPort port_;
  std::unique_ptr<Handles> handles_;
  std::chrono::milliseconds responseTimeout_;
  bool kernelFd_{true};
  SimSendGate gate_;                    // inactive on a real port
  std::uint64_t requestsSent_{0};       // Get/Set, Reports: answers expected
  std::uint64_t responsesReceived_{0};  // answers read
  Handler gmpHandler_;
  Drained gmpDrained_;
  GmpWireCounters gmpCounters_;
  UmadWireCounters wire_;
  std::vector<std::uint8_t> recvBuf_;     // grows to the longest RMPP message read
  ReceivedGmp gmpIn_;                     // the GMP being handed on, its buffer reused
  std::vector<std::uint8_t> gmpSendBuf_;  // umad header + the answer being sent
  std::vector<std::uint8_t> smpSendBuf_;  // umad header + the SMP being sent
};

}  // namespace ibsm::sm::transport
