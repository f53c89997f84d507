// The PKey tables the SM wants the ports to hold: the neutral meeting
// point of the partition planner (which decides them from the config) and
// programming (which writes what differs). Ports not listed are left alone,
// so an SM that manages no partitions never touches a PKey table.
//
//   PKeyTables t;
//   t.ports.push_back({.port = {ca, 1}, .pkeys = {0xffff, 0x8001}});
//   t.ports.push_back({.port = {sw, 3}, .pkeys = {0xffff, 0x8001}, .enforce = true});
//   sortByPort(t);                   // programming looks ports up by PortRef
//   plan.pkeys = std::move(t);
#pragma once

#include <ibsm/Ids.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace ibsm {

struct PortPKeys {
  PortRef port;                      // CA port, switch port 0, or switch external port
  std::vector<std::uint16_t> pkeys;  // the whole table in order, membership bit 0x8000 included
  bool enforce{false};               // switch external port: partition enforcement in+out
};

// Sorted by port, each port at most once (programming checks and refuses
// tables that are not).
struct PKeyTables {
  std::vector<PortPKeys> ports;
};

inline void sortByPort(PKeyTables& tables) {
  std::ranges::sort(tables.ports, {}, &PortPKeys::port);
}

// The entry of `port`, or nullptr when the port is not managed.
inline const PortPKeys* findPort(const PKeyTables& tables, PortRef port) {
  auto it = std::ranges::lower_bound(tables.ports, port, {}, &PortPKeys::port);
  return it != tables.ports.end() && it->port == port ? &*it : nullptr;
}

}  // namespace ibsm
