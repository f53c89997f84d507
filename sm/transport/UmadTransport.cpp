#include "sm/transport/UmadTransport.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <infiniband/umad.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "sm/mad/PerfCounters.h"

namespace ibsm::sm::transport {
namespace {

constexpr int kSmClassVersion = 1;
// The SA agent takes part in RMPP version 1, as OpenSM's does: the kernel
// reassembles segmented requests and segments answers marked RMPP-active.
constexpr int kSaRmppVersion = 1;
// The SA's request methods (IBA 15.2.2): the kernel delivers requests by
// this mask and responses (ReportResp to a Report we sent) by their TID.
constexpr std::uint8_t kSaMethods[] = {0x01 /*Get*/,      0x02 /*Set*/,      0x06 /*Report*/,
                                       0x12 /*GetTable*/, 0x14 /*GetMulti*/, 0x15 /*Delete*/};
// Common MAD header: what a GMP must hold at least to be answered.
constexpr std::size_t kMadHeaderSize = 24;
constexpr std::size_t kMethodByte = 3;
constexpr std::uint8_t kResponseBit = 0x80;
// An answer with a GRH crosses no router inside the subnet; any hop limit
// that reaches the requester will do.
constexpr std::uint8_t kGrhHopLimit = 255;

std::string errnoText(int err) {
  return std::strerror(err < 0 ? -err : err);
}

// The methods we accept as requests; responses reach the agent that sent
// the request without being listed.
void allowMethod(long (&mask)[16 / sizeof(long)], std::uint8_t method) {
  const auto m = static_cast<unsigned>(method);
  constexpr unsigned kBits = 8 * sizeof(long);
  mask[m / kBits] |= 1L << (m % kBits);
}

struct PortLocation {
  std::string caName;
  int portNumber{0};
};

struct PresentPort {
  PortLocation where;
  Guid guid;
};

// Every IB port libibumad shows, as `ibstat -p` would list them.
Result<std::vector<PresentPort>> presentPorts() {
  char cas[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
  const int numCas = umad_get_cas_names(cas, UMAD_MAX_DEVICES);
  if (numCas < 0) return fail(fmt::format("cannot list IB devices: {}", errnoText(numCas)));
  std::vector<PresentPort> out;
  for (int ca = 0; ca < numCas; ++ca) {
    __be64 guids[UMAD_CA_MAX_PORTS] = {};
    const int numPorts = umad_get_ca_portguids(cas[ca], guids, UMAD_CA_MAX_PORTS);
    for (int p = 0; p < numPorts; ++p)
      if (const Guid g{be64toh(guids[p])}; g) out.push_back({{cas[ca], p}, g});
  }
  return out;
}

std::string describe(const std::vector<PresentPort>& ports) {
  if (ports.empty()) return "none";
  std::string out;
  for (const auto& p : ports)
    out += fmt::format("{}{}:{} (GUID {})", out.empty() ? "" : ", ", p.where.caName,
                       p.where.portNumber, p.guid);
  return out;
}

Result<PortLocation> findPortByGuid(Guid guid) {
  auto ports = presentPorts();
  if (!ports) return std::unexpected(ports.error());
  for (const auto& p : *ports)
    if (p.guid == guid) return p.where;
  return fail(fmt::format("no IB port with GUID {} (ports present: {})", guid, describe(*ports)));
}

// A device:port the operator named that cannot be read: say which of the
// two is missing and what exists, rather than libibumad's bare errno.
Error namedPortMissing(const UmadPortName& name, const Error& unreadable) {
  auto ports = presentPorts();
  if (!ports) return unreadable;
  // There but unreadable: libibumad's reason is the one to give.
  if (std::ranges::any_of(*ports, [&](const PresentPort& p) {
        return p.where.caName == name.caName && p.where.portNumber == name.portNumber;
      }))
    return unreadable;
  const bool deviceExists = std::ranges::any_of(
      *ports, [&](const PresentPort& p) { return p.where.caName == name.caName; });
  const std::string missing =
      deviceExists ? fmt::format("no port {} on IB device {}", name.portNumber, name.caName)
                   : fmt::format("no IB device {}", name.caName);
  return Error{fmt::format("{}:{}: {} (ports present: {})", name.caName, name.portNumber, missing,
                           describe(*ports))};
}

Result<UmadPort> readPort(const std::string& caName, int portNumber) {
  umad_port_t p{};
  std::vector<char> name(caName.begin(), caName.end());
  name.push_back('\0');
  const int rc = umad_get_port(caName.empty() ? nullptr : name.data(), portNumber, &p);
  if (rc < 0) {
    return fail(caName.empty() ? fmt::format("no usable IB port: {}", errnoText(rc))
                               : fmt::format("cannot read IB port {}/{}: {}", caName, portNumber,
                                             errnoText(rc)));
  }
  UmadPort port{
      .caName = p.ca_name,
      .portNumber = p.portnum,
      .portGuid = Guid{be64toh(p.port_guid)},
      .lid = Lid{static_cast<std::uint16_t>(p.base_lid)},
      .lmc = static_cast<std::uint8_t>(p.lmc),
      .smLid = Lid{static_cast<std::uint16_t>(p.sm_lid)},
      .state = static_cast<PortState>(p.state),
      .physState = static_cast<std::uint8_t>(p.phys_state),
      .capabilityMask = be32toh(p.capmask),
  };
  umad_release_port(&p);
  return port;
}

// The port the options name (by GUID, by device:port, else the first
// usable one), read.
Result<UmadPort> locatePort(const UmadOptions& options) {
  PortLocation where;
  if (options.portGuid) {
    auto found = findPortByGuid(*options.portGuid);
    if (!found) return std::unexpected(found.error());
    where = *found;
  } else if (options.portName) {
    where = {options.portName->caName, options.portName->portNumber};
  }
  auto port = readPort(where.caName, where.portNumber);
  if (!port && options.portName)
    return std::unexpected(namedPortMissing(*options.portName, port.error()));
  return port;
}

// The SM's agents for LID-routed and directed-route SMPs (Get, Set, Trap).
Result<void> registerSmAgents(int portId, int& lidAgent, int& drAgent,
                              const std::string& portName) {
  long methods[16 / sizeof(long)] = {};
  for (Method m : {Method::Get, Method::Set, Method::Trap})
    allowMethod(methods, static_cast<std::uint8_t>(m));
  lidAgent =
      umad_register(portId, static_cast<int>(MgmtClass::SubnLid), kSmClassVersion, 0, methods);
  drAgent =
      umad_register(portId, static_cast<int>(MgmtClass::SubnDirected), kSmClassVersion, 0, methods);
  if (lidAgent < 0 || drAgent < 0) {
    return fail(fmt::format("cannot register SM agents on port {}: {}", portName,
                            errnoText(std::min(lidAgent, drAgent))));
  }
  return {};
}

Result<void> registerSaAgent(int portId, int& saAgent, const std::string& portName) {
  long saMethods[16 / sizeof(long)] = {};
  for (std::uint8_t m : kSaMethods) allowMethod(saMethods, m);
  saAgent = umad_register(portId, kSaClass, kSaClassVersion, kSaRmppVersion, saMethods);
  if (saAgent < 0) {
    // EBUSY: another SA (an OpenSM) serves this port already.
    return fail(
        fmt::format("cannot register the SA agent on port {}: {}", portName, errnoText(saAgent)));
  }
  return {};
}

// A client only (no methods): the answers to our Gets and Sets reach it by
// TID; requests of other performance managers go to the port's own PMA,
// never here.
Result<void> registerPerfAgent(int portId, int& perfAgent, const std::string& portName) {
  perfAgent = umad_register(portId, kPerfClass, kPerfClassVersion, 0, nullptr);
  if (perfAgent < 0) {
    return fail(fmt::format("cannot register the PerfMgt agent on port {}: {}", portName,
                            errnoText(perfAgent)));
  }
  return {};
}

// The port's issm device held open: the port says IsSM while it is.
Result<void> claimSm(const UmadPort& port, int& issmFd, const std::string& portName) {
  char path[256] = {};
  if (umad_get_issm_path(port.caName.c_str(), port.portNumber, path, sizeof(path)) < 0) {
    return fail(fmt::format("no issm device for port {}", portName));
  }
  issmFd = ::open(path, O_RDWR);
  if (issmFd < 0) {
    // EBUSY: another SM on this host holds the port.
    return fail(
        fmt::format("cannot claim port {} for an SM ({}): {}", portName, path, errnoText(errno)));
  }
  return {};
}

}  // namespace

struct UmadTransport::Handles {
  int portId{-1};
  int lidAgent{-1};
  int drAgent{-1};
  int saAgent{-1};
  int perfAgent{-1};
  int issmFd{-1};

  ~Handles() {
    if (lidAgent >= 0) umad_unregister(portId, lidAgent);
    if (drAgent >= 0) umad_unregister(portId, drAgent);
    if (saAgent >= 0) umad_unregister(portId, saAgent);
    if (perfAgent >= 0) umad_unregister(portId, perfAgent);
    if (portId >= 0) umad_close_port(portId);
    if (issmFd >= 0) ::close(issmFd);  // gives up IsSM
  }
};

Result<std::unique_ptr<UmadTransport>> UmadTransport::open(const UmadOptions& options) {
  if (umad_init() < 0) return fail("cannot initialise libibumad");
  auto port = locatePort(options);
  if (!port) return std::unexpected(port.error());
  const std::string portName =
      fmt::format("{}/{} ({})", port->caName, port->portNumber, port->portGuid);

  auto handles = std::make_unique<Handles>();
  handles->portId = umad_open_port(port->caName.c_str(), port->portNumber);
  if (handles->portId < 0) {
    return fail(fmt::format("cannot open IB port {}: {}", portName, errnoText(handles->portId)));
  }
  // What registered before a failure is unregistered by ~Handles.
  Handles& h = *handles;
  Result<void> ready = registerSmAgents(h.portId, h.lidAgent, h.drAgent, portName);
  if (ready && options.serveSa) ready = registerSaAgent(h.portId, h.saAgent, portName);
  if (ready && options.readCounters) ready = registerPerfAgent(h.portId, h.perfAgent, portName);
  if (ready && options.claimSm) ready = claimSm(*port, h.issmFd, portName);
  if (!ready) return std::unexpected(ready.error());
  return std::unique_ptr<UmadTransport>(
      new UmadTransport(std::move(*port), std::move(handles), options));
}

UmadTransport::UmadTransport(UmadPort port, std::unique_ptr<Handles> handles,
                             const UmadOptions& options)
    : port_(std::move(port)),
      handles_(std::move(handles)),
      responseTimeout_(options.responseTimeout) {
  // umad2sim (LD_PRELOAD) hands out fds from 1024 up that the kernel never
  // opened; it intercepts open, read, write, ioctl and poll, but not fcntl,
  // so the kernel's answer tells a real umad device from the simulator.
  kernelFd_ = ::fcntl(pollFd(), F_GETFD) != -1;
  if (!kernelFd_) gate_ = SimSendGate::attach();
}

UmadTransport::~UmadTransport() {
  if (!kernelFd_ && requestsSent_ > responsesReceived_) settle();
}

void UmadTransport::settle() {
  const auto giveUp = MadClock::now() + kSettleMax;
  while (MadClock::now() < giveUp) {
    auto in = receive(std::min(giveUp, MadClock::now() + kSettleQuiet));
    if (!in || !*in) return;  // quiet (or broken): nothing more is coming
  }
}

Result<UmadPort> UmadTransport::queryPort() const {
  return readPort(port_.caName, port_.portNumber);
}

int UmadTransport::pollFd() const {
  return umad_get_fd(handles_->portId);
}

Result<void> UmadTransport::send(const MadBuffer& mad, MadAddress to) {
  const auto mgmtClass = static_cast<MgmtClass>(mad[1]);
  const int agent = mgmtClass == MgmtClass::SubnDirected ? handles_->drAgent
                    : mgmtClass == MgmtClass::SubnLid    ? handles_->lidAgent
                                                         : -1;
  if (agent < 0) return fail(fmt::format("cannot send MAD of class 0x{:02x}", mad[1]));

  // One buffer kept for every SMP (no allocation per MAD); the umad header
  // is cleared each time so nothing of the last SMP's address remains.
  std::vector<std::uint8_t>& buf = smpSendBuf_;
  buf.resize(umad_size() + kMadSize);
  std::fill_n(buf.begin(), umad_size(), std::uint8_t{0});
  std::memcpy(umad_get_mad(buf.data()), mad.data(), kMadSize);
  umad_set_addr(buf.data(), to.lid.value, 0, 0, 0);  // QP0, SL0

  // Only Get and Set expect a response the kernel must wait for.
  const auto method = static_cast<Method>(mad[3]);
  const bool expectsResponse = method == Method::Get || method == Method::Set;
  const int timeoutMs = expectsResponse ? static_cast<int>(responseTimeout_.count()) : 0;
  if (auto sent = write(agent, buf, static_cast<int>(kMadSize), timeoutMs); !sent)
    return fail(fmt::format("umad_send failed: {}", sent.error().message));
  if (expectsResponse) ++requestsSent_;
  return {};
}

Result<void> UmadTransport::write(int agent, std::vector<std::uint8_t>& buf, int length,
                                  int timeoutMs) {
  const auto keep = [&] {
    gate_.defer(agent, buf, length, timeoutMs);
    ++wire_.sendsDeferred;
    wire_.mostDeferred = std::max<std::uint64_t>(wire_.mostDeferred, gate_.mostHeld());
    return Result<void>{};
  };
  if (gate_.active()) {  // umad2sim only
    // What is kept goes first; behind it, or without room, this is kept too.
    if (gate_.holding()) flushHeld();
    if (gate_.holding() || !gate_.hasRoom()) return keep();
  }
  const int rc = umad_send(handles_->portId, agent, buf.data(), length, timeoutMs, 0);
  if (rc < 0 && gate_.full()) return keep();
  if (rc < 0) return fail(errnoText(rc));
  return {};
}

void UmadTransport::flushHeld() {
  wire_.sendsDropped += gate_.flush(handles_->portId);
}

namespace {
// The SMP in a umad buffer just read, with the LID it came from.
ReceivedMad smpIn(const std::vector<std::uint8_t>& buf) {
  ReceivedMad in;
  std::memcpy(in.mad.data(), umad_get_mad(const_cast<std::uint8_t*>(buf.data())), kMadSize);
  in.from =
      MadAddress::toLid(Lid{ntohs(umad_get_mad_addr(const_cast<std::uint8_t*>(buf.data()))->lid)});
  return in;
}
}  // namespace

Result<std::optional<ReceivedMad>> UmadTransport::receive(MadClock::time_point deadline) {
  if (recvBuf_.size() < umad_size() + kMadSize) recvBuf_.resize(umad_size() + kMadSize);
  std::size_t servedLate = 0;  // GMPs answered after the deadline
  for (;;) {
    if (gate_.holding()) flushHeld();
    // What is queued is read without a poll() per MAD (the fd is non-blocking;
    // under umad2sim a poll() takes the locks its receiver thread needs).
    int length = static_cast<int>(recvBuf_.size() - umad_size());
    const int rc = umad_recv(handles_->portId, recvBuf_.data(), &length, 0);
    if (rc == -EWOULDBLOCK) {
      // Everything that arrived is read: the GMPs' queue gets a turn, and
      // while it holds more, what came meanwhile is read before its next.
      if (gmpDrained_ && gmpDrained_()) {
        if (MadClock::now() >= deadline && ++servedLate >= kGmpBatch)
          return std::optional<ReceivedMad>{};
        continue;
      }
      // Asked not to wait (the engine's drain after each MAD): no zero poll().
      if (deadline <= MadClock::now()) {
        ++wire_.emptyReads;
        return std::optional<ReceivedMad>{};
      }
      ++wire_.polls;
      auto ready = waitReadable(deadline);
      if (!ready) return std::unexpected(ready.error());
      // Woken early to retry kept writes: the deadline still stands.
      if (!*ready && !(gate_.holding() && MadClock::now() < deadline))
        return std::optional<ReceivedMad>{};
      continue;
    }
    if (rc == -ENOSPC) {
      // A reassembled RMPP request longer than the buffer: the kernel keeps
      // it queued and says how long it is; read it again into a bigger one.
      recvBuf_.resize(umad_size() + static_cast<std::size_t>(length));
      continue;
    }
    if (rc == -EINTR || rc == -ETIMEDOUT) continue;
    if (rc < 0) return fail(fmt::format("umad_recv failed: {}", errnoText(rc)));
    // A non-zero status marks one of our requests handed back unanswered
    // (the kernel's response timeout); the engine keeps its own timers.
    if (umad_status(recvBuf_.data()) != 0) continue;

    const auto* mad = static_cast<const std::uint8_t*>(umad_get_mad(recvBuf_.data()));
    if (mad[1] == kSaClass || mad[1] == kPerfClass) {
      if ((mad[kMethodByte] & kResponseBit) != 0) ++responsesReceived_;
      deliverGmp(std::span(mad, static_cast<std::size_t>(std::max(length, 0))));
      // Never the engine's. What is queued is served in one go (a caller
      // that polls with other fds asks with a deadline of now), but a flood
      // of queries must not hold it (its timers, signals, control socket)
      // long past its deadline: at most kGmpBatch more after it.
      if (MadClock::now() >= deadline && ++servedLate >= kGmpBatch)
        return std::optional<ReceivedMad>{};
      continue;
    }
    ++wire_.smpsRead;
    const ReceivedMad in = smpIn(recvBuf_);
    if (isResponse(static_cast<Method>(in.mad[3]))) ++responsesReceived_;
    return std::optional<ReceivedMad>{in};
  }
}

Result<bool> UmadTransport::waitReadable(MadClock::time_point deadline) const {
  for (;;) {
    const auto until =
        gate_.holding() ? std::min(deadline, MadClock::now() + kHeldRetry) : deadline;
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(until - MadClock::now());
    pollfd pfd{.fd = pollFd(), .events = POLLIN, .revents = 0};
    const int ready = ::poll(&pfd, 1, static_cast<int>(std::max<long>(0, left.count())));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return fail(fmt::format("poll on the umad port failed: {}", errnoText(errno)));
    return ready > 0;
  }
}

void UmadTransport::deliverGmp(std::span<const std::uint8_t> mad) {
  ++gmpCounters_.received;
  if (!gmpHandler_) {
    ++gmpCounters_.unhandled;
    return;
  }
  const ib_mad_addr_t* addr = umad_get_mad_addr(recvBuf_.data());
  ReceivedGmp& in = gmpIn_;  // kept: its buffer is reused, no allocation per query
  in.mad.assign(mad.begin(), mad.end());
  in.from.lid = Lid{ntohs(addr->lid)};
  in.from.qpn = ntohl(addr->qpn) & 0xffffffU;
  // umad2sim reports no Q_Key (0); a GMP to QP1 was sent with QP1's.
  in.from.qkey = addr->qkey != 0 ? ntohl(addr->qkey) : kQp1QKey;
  in.from.sl = addr->sl;
  in.from.pkeyIndex = static_cast<std::uint16_t>(umad_get_pkey(recvBuf_.data()));
  in.from.gid.reset();
  if (addr->grh_present != 0) {
    Gid gid{};
    std::memcpy(gid.data(), addr->gid, gid.size());
    in.from.gid = gid;
  }
  // A copy of the handler: it may replace itself.
  const Handler handler = gmpHandler_;
  handler(in);
}

Result<void> UmadTransport::sendGmp(std::span<const std::uint8_t> mad, const GmpAddress& to) {
  if (mad.size() < kMadHeaderSize)
    return fail(
        fmt::format("cannot send a GMP of {} bytes: shorter than a MAD header", mad.size()));
  // The agent of the MAD's class: the kernel matches a response to the
  // agent that sent the request.
  const int agent = mad[1] == kPerfClass ? handles_->perfAgent
                    : mad[1] == kSaClass ? handles_->saAgent
                                         : -1;
  if (agent < 0)
    return fail(fmt::format("cannot send a GMP of class 0x{:02x}: no agent registered", mad[1]));
  std::size_t length = mad.size();
  if (!kernelFd_ && length > kMadSize) {
    length = kMadSize;  // umad2sim has no RMPP: the first MAD's worth
    ++gmpCounters_.cut;
  }
  // Sent at the length the SA encoded (sm/sa/SaMadCodec.cpp: an RMPP answer
  // as long as its payload, which a requester counts records by; any other
  // MAD a whole one), never padded here: a kernel agent registered with RMPP
  // pads the segments it makes.
  // One buffer kept for every answer (no allocation per query); the umad
  // header is cleared each time so no address of the last answer remains.
  std::vector<std::uint8_t>& buf = gmpSendBuf_;
  buf.resize(umad_size() + length);
  std::fill_n(buf.begin(), umad_size(), std::uint8_t{0});
  std::memcpy(umad_get_mad(buf.data()), mad.data(), length);
  umad_set_addr(buf.data(), to.lid.value, static_cast<int>(to.qpn), to.sl,
                static_cast<int>(to.qkey));
  umad_set_pkey(buf.data(), to.pkeyIndex);
  if (to.gid) {
    ib_mad_addr_t grh{};
    grh.hop_limit = kGrhHopLimit;
    std::memcpy(grh.gid, to.gid->data(), to.gid->size());
    umad_set_grh(buf.data(), &grh);
  }
  // A request (a Report, a PerfMgt Get or Set) waits in the kernel for its
  // response, which is delivered only while it does; the sender retries on
  // its own timer.
  const bool request = (mad[kMethodByte] & kResponseBit) == 0;
  const int timeoutMs = request ? static_cast<int>(responseTimeout_.count()) : 0;
  if (auto sent = write(agent, buf, static_cast<int>(length), timeoutMs); !sent)
    return fail(fmt::format("umad_send of a GMP failed: {}", sent.error().message));
  if (request) ++requestsSent_;
  return {};
}

}  // namespace ibsm::sm::transport
