// A test client's own door to the subnet administrator: one umad port with an
// SA agent (class 0x03, version 2) that sends requests to the SM's LID on QP1
// and receives answers and unsolicited Reports. It is independent of ibsm's
// code on purpose: it judges ibsm's SA (issue 12) the way a host would.
//
//   SaPort port(SaPort::Options{});        // first active port, like the diags
//   SaMad mad = SaMad::request(kGet, kPathRecord, mask);
//   port.send(mad, 1000);                    // to the SM LID the port holds
//   auto answer = port.receive(1000);        // any SA MAD, or nullopt on timeout
//
// On ibsim (umad2sim) a request such as a Report reaches only a client that
// opened the issm device (`Options::issm`), and such a client then receives
// the SMInfo SMPs an SM sends to SM ports: it registers SMP agents as well
// (an unregistered class crashes umad2sim) and answers them as an SM that is
// not active (unanswered, they hold up OpenSM's sweep: ibsim has no timeouts).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace ibsm::test::sa {

inline constexpr std::size_t kMadSize = 256;
inline constexpr std::size_t kSaHeader = 56;  // common MAD header + RMPP + SA header
inline constexpr std::uint32_t kQkey = 0x80010000;

// Big-endian fields of a MAD (or of a record inside one).
struct Bytes {
  std::uint8_t* p;
  void put8(std::size_t at, std::uint8_t v) const { p[at] = v; }
  void put16(std::size_t at, std::uint16_t v) const;
  void put32(std::size_t at, std::uint32_t v) const;
  void put64(std::size_t at, std::uint64_t v) const;
  [[nodiscard]] std::uint8_t get8(std::size_t at) const { return p[at]; }
  [[nodiscard]] std::uint16_t get16(std::size_t at) const;
  [[nodiscard]] std::uint32_t get32(std::size_t at) const;
  [[nodiscard]] std::uint64_t get64(std::size_t at) const;
};

struct SaMad {
  std::array<std::uint8_t, kMadSize> bytes{};
  // Where it came from (a received MAD), for answering a Report.
  std::uint16_t sourceLid = 0;
  std::uint32_t sourceQp = 0;

  // A request of the SA class: Method, AttributeID, ComponentMask, a TID the
  // caller matches answers with (ibsim rewrites its upper 16 bits).
  static SaMad request(std::uint8_t method, std::uint16_t attribute, std::uint64_t mask,
                       std::uint64_t tid);
  [[nodiscard]] Bytes header() { return Bytes{bytes.data()}; }
  [[nodiscard]] Bytes data() { return Bytes{bytes.data() + kSaHeader}; }
  [[nodiscard]] std::uint8_t method() const { return bytes[3]; }
  [[nodiscard]] std::uint8_t mgmtClass() const { return bytes[1]; }
  [[nodiscard]] std::uint16_t status() const;
  [[nodiscard]] std::uint64_t tid() const;
  [[nodiscard]] std::uint16_t attribute() const;
};

// "NO_RECORDS" for SA status 0x0300 and so on (IBA 15.2.1.1).
std::string statusName(std::uint16_t status);

class SaPort {
 public:
  struct Options {
    std::string ca;  // empty: the first active port
    int port = 0;    // 0: the first active port of ca
    bool issm = false;
    // Also take SA Get requests (sa-client echo, the benchmark's stand-in
    // SA); by default only Reports are requests this client serves.
    bool serveGets = false;
  };
  explicit SaPort(const Options& options);  // throws std::runtime_error
  ~SaPort();
  SaPort(const SaPort&) = delete;
  SaPort& operator=(const SaPort&) = delete;

  // To dlid (0: the SM LID) on QP dqp; timeoutMs 0 for an answer of ours.
  void send(SaMad& mad, int timeoutMs, std::uint16_t dlid = 0, std::uint32_t dqp = 1);
  [[nodiscard]] std::optional<SaMad> receive(int timeoutMs);  // SA MADs only

  [[nodiscard]] std::uint16_t lid() const { return lid_; }
  [[nodiscard]] std::uint16_t smLid() const { return smLid_; }
  [[nodiscard]] std::uint64_t gidPrefix() const { return gidPrefix_; }
  [[nodiscard]] std::uint64_t portGuid() const { return portGuid_; }

 private:
  void answerSmInfo(SaMad& smp, std::uint16_t slid);

  int fd_ = -1;
  int smpAgent_ = -1, drSmpAgent_ = -1;
  int issmFd_ = -1;
  int saAgent_ = -1;
  std::uint16_t lid_ = 0, smLid_ = 0;
  std::uint64_t gidPrefix_ = 0, portGuid_ = 0;
};

}  // namespace ibsm::test::sa
