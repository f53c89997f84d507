// The breadth-first walk itself: submits SMPs to the engine and, from their
// callbacks, the SMPs the answers call for, recording every answer in
// Observations. It decides nothing about cables (see Assembly.h); it only
// decides where to look next, so one runUntilIdle() drives the whole walk
// with the engine's window full across BFS levels.
//
//   Walk walk(engine, options);
//   walk.start();
//   engine.runUntilIdle();          // every callback has run when it returns,
//   Observations seen = walk.take();  // failed or not (MadEngine.h's lifetime rule)
#pragma once

#include <ibsm/MadEngine.h>

#include <cstdint>
#include <functional>

#include "sm/discovery/Discovery.h"
#include "sm/discovery/Observations.h"

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
  // NodeInfo out of `port` of `node`: what is on the other end of the cable.
  void probe(std::size_t node, std::uint8_t port);
  void failRead(std::string id, std::size_t node, std::uint8_t port, AttributeId attribute,
                const DrPath& path, const SmpReply& reply);

  MadEngine& engine_;
  DiscoveryOptions options_;
  Observations seen_;
};

}  // namespace ibsm::sm::discovery
