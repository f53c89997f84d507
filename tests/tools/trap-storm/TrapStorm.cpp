// trap-storm: a host that babbles traps, to show the SM is no amplifier.
// Sends LID-routed SMP Trap()s (class 0x01, method 0x05, attribute Notice
// 0x0002) to the SM's LID from the port it opens (on ibsim: LD_PRELOAD
// umad2sim with SIM_HOST naming the node), at a rate, for a time:
//
//   trap-storm [--trap N] [--rate PER_S] [--seconds S] [--issuer LID|self]
//              [--producer TYPE] [--type T] [--ca NAME] [--port N]
//
// --trap: 128 (default; LIDADDR in the details = the issuer), 144, 256, 257,
// 258 or any number. --issuer: the Notice's IssuerLID; `self` (default) is
// the port's own LID, any other value makes the trap claim another port
// (a mismatch the SM drops). --producer: ProducerType (default 2, switch,
// for 128; 1, CA, for the others). Reads the TrapRepresses back as they
// come. Prints `key value` lines: sent, send_failed, represses, seconds,
// rate_per_s, lid, sm_lid. Exit 1 when the port has no LID or SM LID, or
// nothing could be sent.
#include <endian.h>
#include <infiniband/umad.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kMadSize = 256;

struct Options {
  std::uint16_t trap{128};
  double rate{2000};
  double seconds{20};
  std::string issuer{"self"};
  int producer{-1};
  int type{-1};
  std::string ca;
  int port{0};
};

void put16(std::uint8_t* p, std::uint16_t v) {
  p[0] = static_cast<std::uint8_t>(v >> 8);
  p[1] = static_cast<std::uint8_t>(v);
}

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "trap-storm: %s\nusage: trap-storm [--trap N] [--rate PER_S] [--seconds S] "
               "[--issuer LID|self] [--producer TYPE] [--type T] [--ca NAME] [--port N]\n",
               why);
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) usage(("missing value for " + a).c_str());
    const char* v = argv[++i];
    if (a == "--trap")
      o.trap = static_cast<std::uint16_t>(std::strtoul(v, nullptr, 0));
    else if (a == "--rate")
      o.rate = std::strtod(v, nullptr);
    else if (a == "--seconds")
      o.seconds = std::strtod(v, nullptr);
    else if (a == "--issuer")
      o.issuer = v;
    else if (a == "--producer")
      o.producer = static_cast<int>(std::strtol(v, nullptr, 0));
    else if (a == "--type")
      o.type = static_cast<int>(std::strtol(v, nullptr, 0));
    else if (a == "--ca")
      o.ca = v;
    else if (a == "--port")
      o.port = static_cast<int>(std::strtol(v, nullptr, 0));
    else
      usage(("unknown option " + a).c_str());
  }
  if (o.rate <= 0 || o.seconds <= 0) usage("--rate and --seconds must be positive");
  return o;
}

// The SMP: MAD header, M_Key 0, the Notice in the data (offset 64):
// IsGeneric|Type, ProducerType, TrapNumber, IssuerLID, toggle|count, details.
void build(std::uint8_t* mad, const Options& o, std::uint16_t issuer, std::uint64_t tid) {
  std::memset(mad, 0, kMadSize);
  mad[0] = 1;     // BaseVersion
  mad[1] = 0x01;  // MgmtClass: LID-routed SMP
  mad[2] = 1;     // ClassVersion
  mad[3] = 0x05;  // Trap()
  for (int b = 0; b < 8; ++b) mad[8 + b] = static_cast<std::uint8_t>(tid >> (56 - 8 * b));
  put16(mad + 16, 0x0002);  // Notice
  std::uint8_t* n = mad + 64;
  const int type = o.type >= 0 ? o.type : (o.trap >= 256 ? 2 : 4);  // security / info
  const int producer = o.producer >= 0 ? o.producer : (o.trap == 128 ? 2 : 1);
  n[0] = static_cast<std::uint8_t>(0x80 | (type & 0x7f));
  n[1] = static_cast<std::uint8_t>(producer >> 16);
  n[2] = static_cast<std::uint8_t>(producer >> 8);
  n[3] = static_cast<std::uint8_t>(producer);
  put16(n + 4, o.trap);
  put16(n + 6, issuer);
  put16(n + 8, static_cast<std::uint16_t>(tid & 0x7fff));
  if (o.trap == 128) put16(n + 10, issuer);  // LIDADDR
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  if (umad_init() < 0) return std::fprintf(stderr, "trap-storm: umad_init failed\n"), 1;
  umad_port_t info{};
  if (umad_get_port(o.ca.empty() ? nullptr : o.ca.c_str(), o.port, &info) < 0)
    return std::fprintf(stderr, "trap-storm: no usable IB port\n"), 1;
  const auto lid = static_cast<std::uint16_t>(info.base_lid);
  const auto smLid = static_cast<std::uint16_t>(info.sm_lid);
  const std::string caName = info.ca_name;
  const int portNum = info.portnum;
  umad_release_port(&info);
  if (lid == 0 || smLid == 0)
    return std::fprintf(stderr, "trap-storm: the port has no LID or no SM LID yet\n"), 1;
  const std::uint16_t issuer =
      o.issuer == "self" ? lid
                         : static_cast<std::uint16_t>(std::strtoul(o.issuer.c_str(), nullptr, 0));

  const int fd = umad_open_port(caName.c_str(), portNum);
  if (fd < 0) return std::fprintf(stderr, "trap-storm: umad_open_port failed\n"), 1;
  // TrapRepress (0x07) is what comes back; register for the class so the
  // answers are ours to read.
  const int agent = umad_register(fd, 0x01, 1, 0, nullptr);
  if (agent < 0) return std::fprintf(stderr, "trap-storm: umad_register failed\n"), 1;

  std::vector<std::uint8_t> out(umad_size() + kMadSize);
  std::vector<std::uint8_t> in(umad_size() + kMadSize);
  std::uint64_t sent = 0, failed = 0, represses = 0;
  const auto gap = std::chrono::duration<double>(1.0 / o.rate);
  const auto start = Clock::now();
  const auto end =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.seconds));
  const auto drain = [&] {
    for (;;) {
      int length = kMadSize;
      if (umad_recv(fd, in.data(), &length, 0) < 0) return;
      const auto* mad = static_cast<const std::uint8_t*>(umad_get_mad(in.data()));
      if (mad[3] == 0x07) ++represses;
    }
  };
  for (std::uint64_t k = 0;; ++k) {
    const auto due =
        start + std::chrono::duration_cast<Clock::duration>(gap * static_cast<double>(k));
    if (due >= end) break;
    drain();
    if (const auto now = Clock::now(); now < due) std::this_thread::sleep_until(due);
    build(static_cast<std::uint8_t*>(umad_get_mad(out.data())), o, issuer, 0x7e0000000000ULL + k);
    umad_set_addr(out.data(), smLid, 0, 0, 0);
    if (umad_send(fd, agent, out.data(), kMadSize, 0, 0) < 0)
      ++failed;
    else
      ++sent;
  }
  const auto settle = Clock::now() + std::chrono::milliseconds(200);
  while (Clock::now() < settle) {
    drain();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf(
      "sent %llu\nsend_failed %llu\nrepresses %llu\nseconds %.3f\nrate_per_s %.0f\n"
      "lid %u\nsm_lid %u\ntrap %u\nissuer %u\n",
      static_cast<unsigned long long>(sent), static_cast<unsigned long long>(failed),
      static_cast<unsigned long long>(represses), seconds,
      static_cast<double>(sent) / std::max(seconds - 0.2, 1e-3), lid, smLid, o.trap, issuer);
  umad_close_port(fd);
  return sent > 0 ? 0 : 1;
}
