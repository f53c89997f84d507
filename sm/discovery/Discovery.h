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
// window from its callbacks: NodeInfo out of every up switch port that no
// probe entered by, then NodeDescription, SwitchInfo and PortInfo of each
// new node. A node met again (loops, trunks, a CA reached through a second
// port) is known by its node GUID. CAs are leaves: an HCA does not forward SMPs.
//
// Each cable is probed from one end only where the walk can tell (Walk.h):
// a switch port a probe already entered by is not probed back. A cable
// enters the Fabric only when both ends were seen and agree: the probing
// end by the NodeInfo it sent landing on the other, the other end (a CA
// port, or a switch port not probed back) by its own PortInfo saying the
// link is up with no other probe landed on it. A port that is up but whose
// peer did not answer or contradicts it stays unconnected and is listed in
// `problems` and `unconfirmedLinks`, so a link that changes during the
// sweep never leaves half a cable behind.
//
// With the last sweep's observation (DiscoveryOptions::last), what it
// confirmed and this sweep's answers vouch for is not lost with an SMP on a
// route that loses MADs (Recall.h): a lossy fabric converges instead of
// finding a few new holes at every sweep.
//
// With the descriptions an earlier discovery read (knownDescriptions: a
// standby's own, kept for its takeover), a node met again by its GUID keeps
// the description read then and no NodeDescription is sent to it: nothing
// routes or comes up by a description, so the takeover's discovery spends
// its SMPs on what does, and the caller reads them after up
// (DiscoveredSubnet::describedFromBefore, Descriptions.h).
//
// Log ids: see LOG MESSAGES in ibsm(8).
#pragma once

#include <spdlog/logger.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "sm/discovery/DiscoveredSubnet.h"
#include "sm/discovery/Recall.h"
#include "sm/mad/MadEngine.h"

namespace ibsm::sm::discovery {

struct DiscoveryOptions {
  // Ports farther than this from the SM are not followed (and reported).
  std::uint8_t maxHops{DrPath::kMaxHops};
  // The last sweep's observation, as programming changed it (not owned;
  // it outlives run()); null: everything is read afresh, nothing recalled.
  const DiscoveredSubnet* last{nullptr};
  // Node GUID -> the NodeDescription an earlier discovery read (not owned;
  // it outlives run()); null: every node's description is read.
  const std::unordered_map<Guid, std::string>* knownDescriptions{nullptr};
};

// What the last run() cost, from the engine's counters and clock.
struct DiscoveryCounters {
  std::uint64_t madsSent{0};  // transmissions, retries included
  std::uint64_t retries{0};
  std::uint64_t timeouts{0};   // requests that failed after all retries
  std::uint64_t badStatus{0};  // responses with a non-zero MAD status
  std::size_t nodes{0};
  std::size_t cables{0};
  std::size_t problems{0};           // lines in DiscoveredSubnet::problems
  RecallCounts recalled{};           // answers lost on lossy routes, taken from the last sweep
  std::size_t descriptionsKnown{0};  // taken from knownDescriptions, not read
  std::chrono::microseconds elapsed{0};
};

class Discovery {
 public:
  Discovery(MadEngine& engine, DiscoveryOptions options, std::shared_ptr<spdlog::logger> logger);

  // One full walk of the subnet. The engine must not be inside runUntilIdle() already.
  [[nodiscard]] Result<DiscoveredSubnet> run();

  const DiscoveryCounters& counters() const { return counters_; }

 private:
  MadEngine& engine_;
  DiscoveryOptions options_;
  std::shared_ptr<spdlog::logger> log_;
  DiscoveryCounters counters_;
};

}  // namespace ibsm::sm::discovery
