// The wire side of a light sweep: SwitchInfo from every switch of the last
// discovery, and for the switches that flag a port change, a second look
// at their ports. Decides with sm/fsm/LightSweep.h's planner; what to do
// about it (reroute or heavy sweep) is MasterSweep::lightSweep()'s call.
// SwitchInfo goes out nearest switches first, one hop count at a time, so a
// lost cable is known before the switches behind it are asked; they are
// then asked by a route around it (on ibsim's k=8 fat tree, Unlink of a
// core cable: 8 ms instead of 1.6 s of timeouts on the old routes).
// A light sweep a Trap 128 asked for names the switches that trapped: they
// are asked first, nearest first, and when one of them shows a cable lost
// (and nothing else), the look ends there, `partial`: the caller reroutes
// at once and then looks at every switch (the rest of a radix-24 tree's
// 720 SwitchInfo round trips no longer come before the first LFT block).
//
//   LightSweeper sweeper(engine, logger);
//   auto seen = sweeper.look(sweep.held().observed());
//   if (seen && seen->quiet()) ...              // one SMP per switch, done
//   else if (seen && seen->onlyLinksLost()) ... // withoutLinks(last, seen->lostPorts)
//
// Log ids: see LOG MESSAGES in ibsm(8).
#pragma once

#include <spdlog/logger.h>

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "sm/discovery/DiscoveredSubnet.h"
#include "sm/fsm/LightSweep.h"
#include "sm/mad/MadEngine.h"

namespace ibsm::sm::manager {

struct LightLook {
  fsm::LightSweepPlan plan;
  std::vector<fsm::PortDelta> deltas;  // stage 2, every switch in plan.reread
  std::vector<PortRef> lostPorts;      // one end of each lost cable, no duplicates
  std::vector<std::string> changes;    // for operators, e.g. "cable lost: ... - ..."
  // A switch in plan.reread whose PortStateChange could not be cleared or
  // whose ports could not all be read: not trusted to be unchanged.
  bool incomplete{false};
  // Ended after the trapping switches (look()'s `first`): the other
  // switches were not asked; plan judges only those that were.
  bool partial{false};
  std::size_t askedFirst{0};  // switches asked before the others (trappers)

  bool quiet() const { return plan.quiet(); }
  // Only cables went down, seen completely: the incremental path handles it.
  bool onlyLinksLost() const;
};

class LightSweeper {
 public:
  LightSweeper(MadEngine& engine, std::shared_ptr<spdlog::logger> logger);

  // `last` must be what the subnet holds as far as the SM knows (the held
  // observation), so LinearFDBTop and port states compare with what the
  // switches should hold.
  // `first`: switches to ask before the others, nearest first (those that
  // sent a Trap 128); the look may end after them (LightLook::partial).
  [[nodiscard]] Result<LightLook> look(const discovery::DiscoveredSubnet& last,
                                       std::span<const NodeId> first = {});

 private:
  MadEngine& engine_;
  std::shared_ptr<spdlog::logger> log_;
};

}  // namespace ibsm::sm::manager
