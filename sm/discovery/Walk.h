// The breadth-first walk itself: submits SMPs to the engine and, from their
// callbacks, the SMPs the answers call for, recording every answer in
// Observations. It decides nothing about cables (see Assembly.h); it only
// decides where to look next, so one runUntilIdle() drives the whole walk.
//
// Each cable is probed (NodeInfo sent through it) from one end only: a port
// that a probe from the other end already landed on is not probed back,
// since that landing names both ends of the cable (Assembly.h says what the
// unprobed end must still show). To make "already landed" true for every
// cable between two BFS levels, the probes out of nodes `d` hops from the SM
// wait until every read and probe of the levels nearer the SM has been
// answered; reads (NodeDescription, SwitchInfo, PortInfo) never wait, so
// the engine's window stays full across levels. Only cables between two
// nodes at the same distance can still be probed from both ends.
//
// A port whose PortInfo is lost on a route that loses MADs is probed all
// the same when the last sweep (DiscoveryOptions::last) saw it Armed or
// Active with a cable: the probe proves the cable again, and a CA behind
// it, which nothing else leads to, is found (Recall.h).
//
//   Walk walk(engine, options);
//   walk.start();
//   engine.runUntilIdle();          // every callback has run when it returns,
//   Observations seen = walk.take();  // failed or not (MadEngine.h's lifetime rule)
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "sm/discovery/Discovery.h"
#include "sm/discovery/Observations.h"
#include "sm/mad/MadEngine.h"

namespace ibsm::sm::discovery {

class Walk {
 public:
  Walk(MadEngine& engine, const DiscoveryOptions& options);
  Walk(const Walk&) = delete;
  Walk& operator=(const Walk&) = delete;

  // Queues NodeInfo of the SM's own node; the rest follows from callbacks,
  // which hold `this`: run the engine until idle before the Walk goes.
  void start();
  Observations take() { return std::move(seen_); }

 private:
  void ask(SmpRequest request, std::function<void(const SmpReply&)> then);
  void onLocalNode(const SmpReply& reply);
  void onProbe(PortKey from, const DrPath& path, const SmpReply& reply);
  std::size_t addNode(const NodeInfo& info, const DrPath& path);
  void readSwitch(std::size_t node);
  void readDescription(std::size_t node);
  // PortInfo of a CA port through the route that entered it; `follow` only
  // for the SM's own CA, the one CA whose port an SMP may leave by.
  void enterCaPort(std::size_t node, std::uint8_t port, Guid portGuid, const DrPath& path,
                   bool follow);
  void readPortInfo(std::size_t node, std::uint8_t port, const DrPath& path, bool follow);
  // Probes `port` of `node` unless a probe already landed on it; waits
  // (deferred_) while a level nearer the SM is still open.
  void wantProbe(std::size_t node, std::uint8_t port);
  // NodeInfo out of `port` of `node`: what is on the other end of the cable.
  void probe(std::size_t node, std::uint8_t port);
  std::size_t depth(std::size_t node) const { return seen_.nodes[node].path.hopCount(); }
  void open(std::size_t level);
  // One read or probe of `level` answered; sends the deferred probes that
  // no open level holds back any more.
  void close(std::size_t level);
  bool settledBelow(std::size_t level) const;
  void failRead(std::string id, std::size_t node, std::uint8_t port, AttributeId attribute,
                const DrPath& path, const SmpReply& reply);

  MadEngine& engine_;
  DiscoveryOptions options_;
  Observations seen_;
  // By level (hops from the SM): reads that may call for probes, and
  // probes, submitted and not answered yet.
  std::vector<std::size_t> open_;
  std::map<std::size_t, std::vector<std::pair<std::size_t, std::uint8_t>>> deferred_;
  std::set<std::pair<std::size_t, std::uint8_t>> landed_;  // (node, port) a probe entered by
};

}  // namespace ibsm::sm::discovery
