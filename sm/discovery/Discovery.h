// Discovery: the first phase of every sweep. Walks the subnet by directed
// route from the SM's own port and returns what it found as a Fabric the
// routing engines can take as they take a topology file's:
//
//   MadEngine engine(transport, {.window = 32});
//   Discovery discovery(engine, {}, logger);
//   Result<DiscoveredSubnet> subnet = discovery.run();
//   if (!subnet) return subnet.error();      // the SM's own node is silent, or the port died
//   for (const auto& p : subnet->problems) ...  // each also logged at warn
//
// A breadth-first search over directed routes, kept in the MAD engine's
// window from its callbacks: NodeInfo out of every up port of every switch,
// then NodeDescription, SwitchInfo and PortInfo of each new node. A node met
// again (loops, trunks, a CA reached through a second port) is known by its
// node GUID. CAs are leaves: an HCA does not forward SMPs.
//
// A cable enters the Fabric only when both ends were seen and agree: a
// switch (or the SM's own CA) end by a NodeInfo sent out of it, a CA end by
// its PortInfo read through that very cable. A port that is up but whose
// peer did not answer or contradicts it stays unconnected and is listed in
// `problems` and `unconfirmedLinks`, so a link that changes during the
// sweep never leaves half a cable behind.
//
// Log message ids (spdlog):
//   DISC-0101 info   sweep finished: nodes, cables, MADs, time
//   DISC-0201 warn   no answer through an up port (timeout, bad status)
//   DISC-0202 warn   NodeDescription could not be read
//   DISC-0203 warn   PortInfo could not be read
//   DISC-0204 warn   SwitchInfo could not be read
//   DISC-0205 warn   port not followed: the route would exceed 63 hops
//   DISC-0301 warn   the two ends of a cable disagree
//   DISC-0302 warn   a cable seen from one end only (the other end is down)
//   DISC-0303 warn   a GUID answered with two different NodeInfos
//   DISC-0304 warn   a NodeInfo whose LocalPortNum is not one of its ports
//   DISC-0305 warn   a port GUID already used by another port
//   DISC-0001 error  the SM's own node did not answer (run() fails)
//   DISC-0002 error  the transport stopped receiving (run() fails)
//   DISC-0003 info   the MAD engine was cancelled (the SM is stopping; run() fails)
#pragma once

#include <ibsm/MadEngine.h>
#include <spdlog/logger.h>

#include <chrono>
#include <cstdint>
#include <memory>

#include "sm/discovery/DiscoveredSubnet.h"

namespace ibsm::sm::discovery {

struct DiscoveryOptions {
  // Ports farther than this from the SM are not followed (and reported).
  std::uint8_t maxHops{DrPath::kMaxHops};
};

// What the last run() cost, from the engine's counters and clock.
struct DiscoveryCounters {
  std::uint64_t madsSent{0};  // transmissions, retries included
  std::uint64_t retries{0};
  std::uint64_t timeouts{0};   // requests that failed after all retries
  std::uint64_t badStatus{0};  // responses with a non-zero MAD status
  std::size_t nodes{0};
  std::size_t cables{0};
  std::chrono::microseconds elapsed{0};
};

class Discovery {
 public:
  Discovery(MadEngine& engine, DiscoveryOptions options, std::shared_ptr<spdlog::logger> logger);

  // One full sweep. The engine must not be inside runUntilIdle() already.
  [[nodiscard]] Result<DiscoveredSubnet> run();

  const DiscoveryCounters& counters() const { return counters_; }

 private:
  MadEngine& engine_;
  DiscoveryOptions options_;
  std::shared_ptr<spdlog::logger> log_;
  DiscoveryCounters counters_;
};

}  // namespace ibsm::sm::discovery
