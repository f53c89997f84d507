// The light sweep's decisions: what to read after asking every switch for
// SwitchInfo, and whether what came back differs from the last fabric. A
// quiet subnet then costs one SMP per switch per sweep interval; only the
// switches that report a change get a second look. Pure: the caller sends
// the SMPs and hands the replies in.
//
//   // Stage 1: SubnGet(SwitchInfo) to every switch of the last fabric.
//   LightSweepPlan plan = planLightSweep(last, replies);
//   if (plan.quiet()) return Event::lightSweepDone(true, false);
//   if (plan.needsHeavy()) return Event::lightSweepDone(true, true);
//   // Stage 2, per switch in plan.reread: first SubnSet(SwitchInfo) with
//   // PortStateChange = 1 (write 1 to clear; read-modify-write the reply),
//   // then SubnGet(PortInfo) of each port in portsToRead(last, plan).
//   auto deltas = comparePorts(last, sw, readings);   // per switch
//   return Event::lightSweepDone(true, !deltas.empty());
//
// IBA 14.2.5.4: a switch sets PortStateChange when one of its ports goes
// Down->Init, Init->Down, Armed->Down or Active->Down through the link state
// machine -- a cable pulled, plugged or retrained -- and not when the SM
// arms or activates a port, so the bit stays clear in a stable subnet.
// Clearing before reading the ports matters: a change after the read sets
// the bit again, where clearing after could lose it.
//
// Not seen this way: links between two non-switch nodes (no switch to set
// the bit), and changes of anything but port state (a switch's tables lost
// in a reboot show as LinearFDBTop differing from what was programmed).
#pragma once

#include <ibsm/Fabric.h>
#include <ibsm/MadAttributes.h>

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace ibsm::sm::fsm {

struct SwitchReply {
  NodeId node{0};                  // the switch in the last fabric
  std::optional<SwitchInfo> info;  // nullopt: no answer after the engine's retries
  // LinearFDBTop as last programmed (the switch table cache knows);
  // nullopt: not known, not checked.
  std::optional<std::uint16_t> programmedFdbTop;
};

struct LightSweepPlan {
  std::vector<NodeId> reread;      // PortStateChange set: clear it, then read every port
  std::vector<NodeId> lostTables;  // LinearFDBTop not what was programmed: reset/rebooted
  std::vector<NodeId> silent;      // no SwitchInfo (or no reply handed in): gone, or path broken
  std::size_t switches{0};         // switches in the last fabric = SMPs of stage 1

  // Nothing to look at: the sweep ends here, one SMP per switch.
  bool quiet() const { return reread.empty() && lostTables.empty() && silent.empty(); }
  // The fabric is no longer what the last heavy sweep saw, whatever the
  // ports say: a switch that does not answer or forgot its tables.
  bool needsHeavy() const { return !lostTables.empty() || !silent.empty(); }
};

// Every switch of `last` is judged; a switch without an entry in `replies`
// counts as silent, so a caller that skipped one cannot hide a change.
// Replies for nodes that are not switches of `last` are ignored.
LightSweepPlan planLightSweep(const Fabric& last, std::span<const SwitchReply> replies);

// Stage 2's reads: ports 1..N of every switch in plan.reread, in order.
std::vector<PortRef> portsToRead(const Fabric& last, const LightSweepPlan& plan);

struct PortReading {
  std::uint8_t port{0};
  std::optional<PortState> state;  // PortInfo:PortState; nullopt: no answer
};

enum class PortChange : std::uint8_t {
  LinkLost,  // was up, now Down: routes through it must move
  LinkNew,   // now Init: a new or retrained link that needs the SM (probe, arm)
  LinkUp,    // was Down, now Armed/Active without us: someone else's doing; look
  Silent,    // the port did not answer
};

struct PortDelta {
  PortRef port;
  PortState before{PortState::Down};
  std::optional<PortState> now;
  PortChange change{PortChange::Silent};
  auto operator<=>(const PortDelta&) const = default;
};

// Compares the port states of switch `sw` read in stage 2 with `last`.
// Only link-level changes count: Init/Armed/Active before and Armed/Active
// now is the same link (the last fabric may hold the state seen before
// programming), while Init now always counts -- in a programmed subnet no
// port waits in Init. Readings for ports the switch does not have are
// ignored; ports without a reading are not judged.
std::vector<PortDelta> comparePorts(const Fabric& last, NodeId sw,
                                    std::span<const PortReading> now);

}  // namespace ibsm::sm::fsm
