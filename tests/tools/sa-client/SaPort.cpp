#include "SaPort.h"

#include <endian.h>
#include <fcntl.h>
#include <infiniband/umad.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>
#include <vector>

namespace ibsm::test::sa {

void Bytes::put16(std::size_t at, std::uint16_t v) const {
  p[at] = static_cast<std::uint8_t>(v >> 8);
  p[at + 1] = static_cast<std::uint8_t>(v);
}
void Bytes::put32(std::size_t at, std::uint32_t v) const {
  put16(at, static_cast<std::uint16_t>(v >> 16));
  put16(at + 2, static_cast<std::uint16_t>(v));
}
void Bytes::put64(std::size_t at, std::uint64_t v) const {
  put32(at, static_cast<std::uint32_t>(v >> 32));
  put32(at + 4, static_cast<std::uint32_t>(v));
}
std::uint16_t Bytes::get16(std::size_t at) const {
  return static_cast<std::uint16_t>(p[at] << 8 | p[at + 1]);
}
std::uint32_t Bytes::get32(std::size_t at) const {
  return std::uint32_t{get16(at)} << 16 | get16(at + 2);
}
std::uint64_t Bytes::get64(std::size_t at) const {
  return std::uint64_t{get32(at)} << 32 | get32(at + 4);
}

SaMad SaMad::request(std::uint8_t method, std::uint16_t attribute, std::uint64_t mask,
                     std::uint64_t tid) {
  SaMad mad;
  Bytes h = mad.header();
  h.put8(0, 1);     // BaseVersion
  h.put8(1, 0x03);  // MgmtClass: SA
  h.put8(2, 2);     // ClassVersion
  h.put8(3, method);
  h.put64(8, tid);
  h.put16(16, attribute);
  h.put64(48, mask);
  return mad;
}

std::uint16_t SaMad::status() const {
  return Bytes{const_cast<std::uint8_t*>(bytes.data())}.get16(4);
}
std::uint64_t SaMad::tid() const {
  return Bytes{const_cast<std::uint8_t*>(bytes.data())}.get64(8);
}
std::uint16_t SaMad::attribute() const {
  return Bytes{const_cast<std::uint8_t*>(bytes.data())}.get16(16);
}

std::string statusName(std::uint16_t status) {
  if (status == 0) return "OK";
  static const char* const kSa[] = {"",
                                    "NO_RESOURCES",
                                    "REQ_INVALID",
                                    "NO_RECORDS",
                                    "TOO_MANY_RECORDS",
                                    "INVALID_GID",
                                    "INSUF_COMPS",
                                    "REQ_DENIED"};
  const unsigned sa = (status >> 8) & 0xff;
  if (sa >= 1 && sa <= 7) return kSa[sa];
  switch ((status >> 2) & 0x7) {
    case 1:
      return "BAD_VERSION";
    case 2:
      return "METHOD_NOT_SUPPORTED";
    case 3:
      return "ATTRIBUTE_NOT_SUPPORTED";
    case 7:
      return "INVALID_FIELD";
    default:
      return "STATUS_" + std::to_string(status);
  }
}

SaPort::SaPort(const Options& options) {
  if (umad_init() < 0) throw std::runtime_error("umad_init failed");
  const char* ca = options.ca.empty() ? nullptr : options.ca.c_str();
  umad_port_t info{};
  if (umad_get_port(ca, options.port, &info) < 0) throw std::runtime_error("no usable IB port");
  lid_ = static_cast<std::uint16_t>(info.base_lid);
  smLid_ = static_cast<std::uint16_t>(info.sm_lid);
  gidPrefix_ = be64toh(info.gid_prefix);
  portGuid_ = be64toh(info.port_guid);
  std::string caName = info.ca_name;
  const int portNum = info.portnum;
  umad_release_port(&info);
  if (lid_ == 0 || smLid_ == 0) throw std::runtime_error("the port has no LID or no SM LID yet");

  fd_ = umad_open_port(caName.c_str(), portNum);
  if (fd_ < 0) throw std::runtime_error("umad_open_port failed");
  // Report (0x06) is the request this client serves (and Get for echo); the
  // rest are answers.
  long methodMask[16 / sizeof(long)] = {};
  methodMask[0] = 1L << 0x06 | (options.serveGets ? 1L << 0x01 : 0);
  saAgent_ = umad_register(fd_, 0x03, 2, 0, methodMask);
  if (saAgent_ < 0) throw std::runtime_error("umad_register of the SA class failed");
  if (options.issm) {
    // SMInfo to an SM port: read and dropped (see the header).
    smpAgent_ = umad_register(fd_, 0x01, 1, 0, nullptr);
    drSmpAgent_ = umad_register(fd_, 0x81, 1, 0, nullptr);
    if (smpAgent_ < 0 || drSmpAgent_ < 0)
      throw std::runtime_error("umad_register of the SMP classes failed");
    // Only now: setting IsSM makes ibsim send a trap (144) to the SM LID,
    // which may be this very port, and umad2sim crashes on a MAD of a class
    // not registered yet.
    char path[256];
    if (umad_get_issm_path(caName.c_str(), portNum, path, sizeof path) < 0 ||
        (issmFd_ = ::open(path, O_RDWR)) < 0)
      throw std::runtime_error("cannot open the issm device");
  }
}

SaPort::~SaPort() {
  if (fd_ >= 0) umad_close_port(fd_);
  if (issmFd_ >= 0) ::close(issmFd_);
}

void SaPort::send(SaMad& mad, int timeoutMs, std::uint16_t dlid, std::uint32_t dqp) {
  std::vector<std::uint8_t> umad(umad_size() + kMadSize);
  std::memcpy(umad_get_mad(umad.data()), mad.bytes.data(), kMadSize);
  umad_set_addr(umad.data(), dlid != 0 ? dlid : smLid_, static_cast<int>(dqp), 0, kQkey);
  // A request waits timeoutMs for its answer (a kernel drops an answer to a
  // send it does not track); an answer (ReportResp) is sent with 0.
  if (umad_send(fd_, saAgent_, umad.data(), kMadSize, timeoutMs, 0) < 0)
    throw std::runtime_error("umad_send failed");
}

std::optional<SaMad> SaPort::receive(int timeoutMs) {
  std::vector<std::uint8_t> umad(umad_size() + kMadSize);
  for (;;) {
    int length = kMadSize;
    if (umad_recv(fd_, umad.data(), &length, timeoutMs) < 0) return std::nullopt;
    if (umad_status(umad.data()) != 0) continue;  // a send of ours that timed out
    SaMad mad;
    std::memcpy(mad.bytes.data(), umad_get_mad(umad.data()),
                std::min<std::size_t>(kMadSize, static_cast<std::size_t>(length)));
    const ib_mad_addr_t* addr = umad_get_mad_addr(umad.data());
    if (mad.mgmtClass() != 0x03) {
      answerSmInfo(mad, be16toh(addr->lid));
      continue;
    }
    mad.sourceLid = be16toh(addr->lid);
    mad.sourceQp = be32toh(addr->qpn);
    return mad;
  }
}

// An SM polls every port with IsSM set; left unanswered, OpenSM's sweep waits
// on it (ibsim has no MAD timeouts). The answer: an SM that is not active.
void SaPort::answerSmInfo(SaMad& smp, std::uint16_t slid) {
  if (smp.method() != 0x01 || smp.attribute() != 0x0020) return;
  SaMad resp = smp;
  resp.bytes[3] = 0x81;  // GetResp
  const bool directed = smp.mgmtClass() == 0x81;
  if (directed) resp.bytes[4] |= 0x80;  // D: returning
  Bytes info{resp.bytes.data() + 64};
  std::memset(info.p, 0, 64);
  info.put64(0, portGuid_);  // SM_Key 0, ActCount 0, priority 0, SMState 0 (NOTACTIVE)
  std::vector<std::uint8_t> umad(umad_size() + kMadSize);
  std::memcpy(umad_get_mad(umad.data()), resp.bytes.data(), kMadSize);
  umad_set_addr(umad.data(), directed ? 0xffff : slid, 0, 0, 0);
  umad_send(fd_, directed ? drSmpAgent_ : smpAgent_, umad.data(), kMadSize, 0, 0);
}

}  // namespace ibsm::test::sa
