// The SM's answers to other SMs and to tools: SubnGet(SMInfo) (so `sminfo`
// names this SM as master) and traps, which are repressed so their senders
// stop repeating them, and which ask for a sweep.
#pragma once

#include <ibsm/MadAttributes.h>
#include <spdlog/logger.h>

#include <memory>

#include "MadEngine.h"

namespace ibsm::sm {

class SmInfoAgent {
 public:
  SmInfoAgent(MadEngine& engine, SmInfo self, std::shared_ptr<spdlog::logger> logger);
  SmInfoAgent(const SmInfoAgent&) = delete;
  SmInfoAgent& operator=(const SmInfoAgent&) = delete;

  void setState(SmState state) { self_.smState = state; }
  // ActCount: IBA has a master count its SMP activity so standbys can see it is alive.
  void countActivity(std::uint32_t smps) { self_.actCount += smps; }
  const SmInfo& self() const { return self_; }

  // True once since the last call when a trap arrived (a port changed state).
  bool takeSweepRequest() { return std::exchange(sweepRequested_, false); }
  // True once since the last call when a Trap 128 (link state change)
  // arrived: a sweep that was under way may have programmed a fabric that no
  // longer exists. Trap 144 (an SM's capabilities changed) does not count.
  bool takeLinkChange() { return std::exchange(linkChanged_, false); }

 private:
  void handle(const IncomingSmp& in);

  MadEngine& engine_;
  SmInfo self_;
  std::shared_ptr<spdlog::logger> log_;
  bool sweepRequested_{false};
  bool linkChanged_{false};
};

}  // namespace ibsm::sm
