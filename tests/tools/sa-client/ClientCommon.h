// What the sa-client commands share: their arguments, TIDs, one request and
// its answer, and the process's CPU time. Defined in SaClient.cpp.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "SaPort.h"

namespace ibsm::test::sa {

struct Args {
  std::map<std::string, std::string> values;
  bool has(const std::string& k) const { return values.contains(k); }
  std::string get(const std::string& k, const std::string& fallback = "") const {
    auto it = values.find(k);
    return it == values.end() ? fallback : it->second;
  }
  std::uint64_t number(const std::string& k, std::uint64_t fallback) const {
    return has(k) ? std::stoull(get(k), nullptr, 0) : fallback;
  }
};

// --stop-file F: a flood stops sending once F exists (looked for every
// 10 ms at most), then drains and prints as at the end of --seconds, so
// that a test ends it when its measurement is over and still reads its
// counts. Without the option it never stops early.
class StopFile {
 public:
  explicit StopFile(const Args& args) : path_(args.get("stop-file")) {}
  bool reached() {
    if (path_.empty() || seen_) return seen_;
    const auto now = std::chrono::steady_clock::now();
    if (now < nextLook_) return false;
    nextLook_ = now + std::chrono::milliseconds(10);
    std::error_code ec;
    seen_ = std::filesystem::exists(path_, ec);
    return seen_;
  }

 private:
  std::string path_;
  bool seen_ = false;
  std::chrono::steady_clock::time_point nextLook_{};
};

std::uint64_t nextTid();
// Whether two TIDs are the same request's (low 32 bits: ibsim rewrites the top).
bool sameTid(std::uint64_t a, std::uint64_t b);
// One request, one answer; nullopt when none came in timeoutMs.
std::optional<SaMad> ask(SaPort& port, SaMad& mad, int timeoutMs);
// User and system time of this process, umad2sim's receiver thread included.
double cpuSeconds();

// sa-client mcast join|leave|get (McCommands.cpp).
int mcast(SaPort& port, const std::string& verb, const Args& args);
// sa-client mcast flood (McFlood.cpp): one port's joins as fast as it can.
int mcastFlood(SaPort& port, const Args& args);
// sa-client pathsls (PathSls.cpp): the SL the SA answers for every pair of LIDs.
int pathSls(SaPort& port, const Args& args);

}  // namespace ibsm::test::sa
