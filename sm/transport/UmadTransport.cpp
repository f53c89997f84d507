#include "sm/transport/UmadTransport.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <infiniband/umad.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace ibsm::sm::transport {
namespace {

constexpr int kSmClassVersion = 1;

std::string errnoText(int err) {
  return std::strerror(err < 0 ? -err : err);
}

// The methods we accept as requests; responses reach the agent that sent
// the request without being listed.
void allowMethod(long (&mask)[16 / sizeof(long)], Method method) {
  const auto m = static_cast<unsigned>(method);
  constexpr unsigned kBits = 8 * sizeof(long);
  mask[m / kBits] |= 1L << (m % kBits);
}

struct PortLocation {
  std::string caName;
  int portNumber{0};
};

Result<PortLocation> findPortByGuid(Guid guid) {
  char cas[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
  const int numCas = umad_get_cas_names(cas, UMAD_MAX_DEVICES);
  if (numCas < 0) return fail(fmt::format("cannot list IB devices: {}", errnoText(numCas)));
  std::string seen;
  for (int ca = 0; ca < numCas; ++ca) {
    __be64 guids[UMAD_CA_MAX_PORTS] = {};
    const int numPorts = umad_get_ca_portguids(cas[ca], guids, UMAD_CA_MAX_PORTS);
    for (int p = 0; p < numPorts; ++p) {
      const Guid g{be64toh(guids[p])};
      if (!g) continue;
      if (g == guid) return PortLocation{cas[ca], p};
      seen += fmt::format("{}{}/{}={}", seen.empty() ? "" : ", ", cas[ca], p, g);
    }
  }
  return fail(fmt::format("no IB port with GUID {} (ports present: {})", guid,
                          seen.empty() ? "none" : seen));
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

}  // namespace

struct UmadTransport::Handles {
  int portId{-1};
  int lidAgent{-1};
  int drAgent{-1};
  int issmFd{-1};

  ~Handles() {
    if (lidAgent >= 0) umad_unregister(portId, lidAgent);
    if (drAgent >= 0) umad_unregister(portId, drAgent);
    if (portId >= 0) umad_close_port(portId);
    if (issmFd >= 0) ::close(issmFd);  // gives up IsSM
  }
};

Result<std::unique_ptr<UmadTransport>> UmadTransport::open(const UmadOptions& options) {
  if (umad_init() < 0) return fail("cannot initialise libibumad");

  PortLocation where;
  if (options.portGuid) {
    auto found = findPortByGuid(*options.portGuid);
    if (!found) return std::unexpected(found.error());
    where = *found;
  }
  auto port = readPort(where.caName, where.portNumber);
  if (!port) return std::unexpected(port.error());
  const std::string portName =
      fmt::format("{}/{} ({})", port->caName, port->portNumber, port->portGuid);

  auto handles = std::make_unique<Handles>();
  handles->portId = umad_open_port(port->caName.c_str(), port->portNumber);
  if (handles->portId < 0) {
    return fail(fmt::format("cannot open IB port {}: {}", portName, errnoText(handles->portId)));
  }

  long methods[16 / sizeof(long)] = {};
  for (Method m : {Method::Get, Method::Set, Method::Trap}) allowMethod(methods, m);
  handles->lidAgent = umad_register(handles->portId, static_cast<int>(MgmtClass::SubnLid),
                                    kSmClassVersion, 0, methods);
  handles->drAgent = umad_register(handles->portId, static_cast<int>(MgmtClass::SubnDirected),
                                   kSmClassVersion, 0, methods);
  if (handles->lidAgent < 0 || handles->drAgent < 0) {
    return fail(fmt::format("cannot register SM agents on port {}: {}", portName,
                            errnoText(std::min(handles->lidAgent, handles->drAgent))));
  }

  if (options.claimSm) {
    char path[256] = {};
    if (umad_get_issm_path(port->caName.c_str(), port->portNumber, path, sizeof(path)) < 0) {
      return fail(fmt::format("no issm device for port {}", portName));
    }
    handles->issmFd = ::open(path, O_RDWR);
    if (handles->issmFd < 0) {
      // EBUSY: another SM on this host holds the port.
      return fail(
          fmt::format("cannot claim port {} for an SM ({}): {}", portName, path, errnoText(errno)));
    }
  }
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

  std::vector<std::uint8_t> buf(umad_size() + kMadSize);
  std::memcpy(umad_get_mad(buf.data()), mad.data(), kMadSize);
  umad_set_addr(buf.data(), to.lid.value, 0, 0, 0);  // QP0, SL0

  // Only Get and Set expect a response the kernel must wait for.
  const auto method = static_cast<Method>(mad[3]);
  const bool expectsResponse = method == Method::Get || method == Method::Set;
  const int timeoutMs = expectsResponse ? static_cast<int>(responseTimeout_.count()) : 0;
  const int rc =
      umad_send(handles_->portId, agent, buf.data(), static_cast<int>(kMadSize), timeoutMs, 0);
  if (rc < 0) return fail(fmt::format("umad_send failed: {}", errnoText(rc)));
  if (expectsResponse) ++requestsSent_;
  return {};
}

Result<std::optional<ReceivedMad>> UmadTransport::receive(MadClock::time_point deadline) {
  std::vector<std::uint8_t> buf(umad_size() + kMadSize);
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - MadClock::now());
    pollfd pfd{.fd = pollFd(), .events = POLLIN, .revents = 0};
    const int ready = ::poll(&pfd, 1, static_cast<int>(std::max<long>(0, left.count())));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return fail(fmt::format("poll on the umad port failed: {}", errnoText(errno)));
    if (ready == 0) return std::optional<ReceivedMad>{};

    int length = static_cast<int>(kMadSize);
    const int rc = umad_recv(handles_->portId, buf.data(), &length, 0);
    if (rc == -EWOULDBLOCK || rc == -EINTR || rc == -ETIMEDOUT) continue;
    if (rc < 0) return fail(fmt::format("umad_recv failed: {}", errnoText(rc)));
    // A non-zero status marks one of our requests handed back unanswered
    // (the kernel's response timeout); the engine keeps its own timers.
    if (umad_status(buf.data()) != 0) continue;

    ReceivedMad in;
    std::memcpy(in.mad.data(), umad_get_mad(buf.data()), kMadSize);
    if (isResponse(static_cast<Method>(in.mad[3]))) ++responsesReceived_;
    in.from = MadAddress::toLid(Lid{ntohs(umad_get_mad_addr(buf.data())->lid)});
    return std::optional<ReceivedMad>{in};
  }
}

}  // namespace ibsm::sm::transport
