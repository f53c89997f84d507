// What the sa-client commands share: their arguments, TIDs, one request and
// its answer, and the process's CPU time. Defined in SaClient.cpp.
#pragma once

#include <cstdint>
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

}  // namespace ibsm::test::sa
