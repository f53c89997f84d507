// Counts the MADs a subnet manager sends, the same way for any SM that talks
// through libibumad: an LD_PRELOAD library that wraps umad_send()/umad_recv()
// and, when the process exits, writes a histogram by method and attribute.
// It is how scripts/bench-bringup.sh compares ibsm's and OpenSM's SMP counts
// on ibsim (OpenSM logs no MAD total of its own):
//
//   MADCOUNT_OUT=/tmp/opensm.mads LD_PRELOAD=madcount.so:libumad2sim.so opensm -o ...
//   cat /tmp/opensm.mads     # "requests 137522", "Set LinearForwardingTable 47520", ...
//
// Every umad_send() is one MAD on the wire (retries by the SM included; the
// kernel-side retries a umad_send() may ask for do not exist under umad2sim,
// which both SMs use). Responses the SM sends (GetResp to SMInfo queries,
// TrapRepress) are counted apart from requests.
//
// With MADCOUNT_TRACE=FILE it also appends one line per MAD sent,
// "EPOCH_NS METHOD ATTRIBUTE" in hex ("1764745200123456789 0x02 0x0019"), so
// a benchmark can count the MADs of any time window of a long-running SM
// (a light-sweep interval, the reroute after a link loss: scripts/bench-sm.sh).
// Each line is one write(2) to an O_APPEND file, not buffered: a master killed
// with SIGKILL to test failover has written every line it sent. With
// MADCOUNT_TRACE_RECV=1 the MADs umad_recv() hands the SM are traced too, as
// "EPOCH_NS METHOD ATTRIBUTE r" (method 0x81 for a GetResp), so a timeline
// (scripts/bringup-timeline.sh) can count the SMPs in flight at any moment.
//
// The counters are process-wide by nature (an interposed C function has no
// object to hang them on), hence the file-level state.
#include <dlfcn.h>
#include <fcntl.h>
#include <infiniband/umad.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace {

constexpr std::size_t kAttributes = 0x40;  // SMP attributes used in bring-up are all below 0x40
constexpr std::size_t kOtherAttribute = kAttributes;

enum MethodSlot : std::size_t { kGet, kSet, kResponse, kOtherMethod, kMethodSlots };

struct Counters {
  std::array<std::array<std::atomic<std::uint64_t>, kAttributes + 1>, kMethodSlots> sent{};
  std::atomic<std::uint64_t> received{0};
};

Counters& counters() {
  static Counters c;
  return c;
}

MethodSlot slotOf(std::uint8_t method) {
  switch (method) {
    case 0x01:
      return kGet;
    case 0x02:
      return kSet;
    case 0x81:  // GetResp
    case 0x07:  // TrapRepress
      return kResponse;
    default:
      return kOtherMethod;
  }
}

const char* attributeName(std::size_t id) {
  switch (id) {
    case 0x02:
      return "Notice";
    case 0x10:
      return "NodeDescription";
    case 0x11:
      return "NodeInfo";
    case 0x12:
      return "SwitchInfo";
    case 0x14:
      return "GUIDInfo";
    case 0x15:
      return "PortInfo";
    case 0x16:
      return "P_KeyTable";
    case 0x17:
      return "SLtoVLMappingTable";
    case 0x18:
      return "VLArbitrationTable";
    case 0x19:
      return "LinearForwardingTable";
    case 0x1b:
      return "MulticastForwardingTable";
    case 0x20:
      return "SMInfo";
    default:
      return nullptr;
  }
}

// The MADCOUNT_TRACE file, opened on first use; -1 when not asked for.
int traceFd() {
  static const int fd = [] {
    const char* path = std::getenv("MADCOUNT_TRACE");
    return path == nullptr ? -1 : open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  }();
  return fd;
}

bool traceReceived() {
  static const bool on = [] {
    const char* v = std::getenv("MADCOUNT_TRACE_RECV");
    return v != nullptr && v[0] == '1';
  }();
  return on;
}

// `suffix`: "" for a MAD sent, " r" for one received.
void trace(std::uint8_t method, std::size_t attr, const char* suffix = "") {
  const int fd = traceFd();
  if (fd < 0) return;
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  char line[64];
  const int n =
      std::snprintf(line, sizeof line, "%lld%09ld 0x%02x 0x%04zx%s\n",
                    static_cast<long long>(now.tv_sec), now.tv_nsec, method, attr, suffix);
  // A line that cannot be written is lost; the SM under test must not notice.
  if (n > 0 && write(fd, line, static_cast<std::size_t>(n)) < 0) return;
}

void record(const void* umad) {
  const auto* mad = static_cast<const std::uint8_t*>(umad_get_mad(const_cast<void*>(umad)));
  const std::size_t attr = (std::size_t{mad[16]} << 8) | mad[17];
  counters().sent[slotOf(mad[3])][attr < kAttributes ? attr : kOtherAttribute].fetch_add(
      1, std::memory_order_relaxed);
  trace(mad[3], attr);
}

template <typename Fn>
Fn next(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}

__attribute__((destructor)) void writeCounts() {
  const char* path = std::getenv("MADCOUNT_OUT");
  if (path == nullptr) return;
  FILE* out = std::fopen(path, "w");
  if (out == nullptr) return;
  static constexpr std::array<const char*, kMethodSlots> kMethodNames{"Get", "Set", "Response",
                                                                      "Other"};
  std::uint64_t requests = 0;
  std::uint64_t responses = 0;
  for (std::size_t m = 0; m < kMethodSlots; ++m) {
    for (std::size_t a = 0; a <= kAttributes; ++a) {
      const std::uint64_t n = counters().sent[m][a].load();
      if (n == 0) continue;
      (m == kResponse ? responses : requests) += n;
      const char* name = a == kOtherAttribute ? "other" : attributeName(a);
      if (name != nullptr) {
        std::fprintf(out, "%s %s %llu\n", kMethodNames[m], name,
                     static_cast<unsigned long long>(n));
      } else {
        std::fprintf(out, "%s 0x%02zx %llu\n", kMethodNames[m], a,
                     static_cast<unsigned long long>(n));
      }
    }
  }
  std::fprintf(out, "requests %llu\nresponses %llu\nreceived %llu\n",
               static_cast<unsigned long long>(requests),
               static_cast<unsigned long long>(responses),
               static_cast<unsigned long long>(counters().received.load()));
  std::fclose(out);
}

}  // namespace

extern "C" {

int umad_send(int portid, int agentid, void* umad, int length, int timeout_ms, int retries) {
  using Send = int (*)(int, int, void*, int, int, int);
  static const Send real = next<Send>("umad_send");
  const int rc = real(portid, agentid, umad, length, timeout_ms, retries);
  if (rc == 0) record(umad);
  return rc;
}

int umad_recv(int portid, void* umad, int* length, int timeout_ms) {
  using Recv = int (*)(int, void*, int*, int);
  static const Recv real = next<Recv>("umad_recv");
  const int rc = real(portid, umad, length, timeout_ms);
  if (rc < 0) return rc;
  counters().received.fetch_add(1, std::memory_order_relaxed);
  if (traceReceived()) {
    const auto* mad = static_cast<const std::uint8_t*>(umad_get_mad(umad));
    trace(mad[3], (std::size_t{mad[16]} << 8) | mad[17], " r");
  }
  return rc;
}

}  // extern "C"
