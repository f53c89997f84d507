// What SmpFuzz drives: the daemon's receiving side of SMPs from the fabric,
// wired as SmDaemon wires it -- the MAD engine decodes what the wire gives
// it, the SmInfoAgent answers Get(SMInfo), hands Set(SMInfo) control
// packets to the SM state machine (whose verdict it sends) and represses
// traps, which go to the SA's Notifier (Reports to the subscribers) and to
// the state machine. The wire is a queue of raw 256-byte MADs; time is a
// fake clock. Only entry points are used (the engine's transport, the
// agent's public handlers), so the rig holds while the agent's insides move.
//
// An input is one setup byte, then MADs of 256 bytes (the last one padded
// with zeros), at most kMaxMads:
//   setup bits 0-2: where the SM stands when the MADs arrive (RigPhase)
//   setup bit 3:    our port holds an M_Key (kPortMKey)
//   setup bits 4-5: who sends the MADs (RigSender)
//
// After every MAD the rig checks what the daemon promises the fabric; a
// broken promise is a violation (the fuzz target aborts on one, the unit
// tests expect none):
//   - every SMP sent decodes, answers the MAD just received (same class,
//     TID, attribute, modifier; to its sender), is a GetResp or a
//     TrapRepress, and there is at most one: a stranger gets no amplifier;
//   - a GetResp(SMInfo) with status 0 shows our GUID and our SM_Key or 0;
//   - once the machine's actions are performed, SMInfo says the state the
//     machine's phase shows;
//   - every Report the Notifier sends decodes, is a Report(Notice) of the
//     trap just received, at most one per subscriber.
#pragma once

#include <ibsm/Mad.h>
#include <ibsm/MadAttributes.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ibsm::fuzz {

inline constexpr std::size_t kMaxMads = 8;
// Our SM: the port of host 1; its SM_Key; the M_Key of its port when the
// setup says it holds one; the other SM the phases are made with.
inline constexpr Guid kOurGuid{0x301};
inline constexpr std::uint64_t kSmKey = 0x5EC12E7;
inline constexpr std::uint64_t kPortMKey = 0x4D4B45594D4B4559;
inline constexpr Guid kPeerGuid{0xB};

enum class RigPhase : std::uint8_t {
  Discovering,     // started, discovery running
  Standby,         // polling the master kPeerGuid
  MasterIdle,      // master, between sweeps
  NotActive,       // a standby told DISABLE
  MasterHandover,  // master, HANDOVER sent to a better standby kPeerGuid
  MasterSweeping,  // master, a light sweep running
  MasterWaiting,   // master, a second and worse master kPeerGuid seen
  Stopped,         // SIGTERM
};
inline constexpr std::size_t kRigPhaseCount = 8;

enum class RigSender : std::uint8_t {
  Host2,     // LID-routed, from host 2's LID
  Host3,     // LID-routed, from host 3's LID
  Switch,    // LID-routed, from the switch's LID
  Directed,  // directed route: the permissive LID
};

std::uint8_t setupByte(RigPhase phase, bool portMKey, RigSender sender);

// What one input did.
struct RigOutcome {
  std::size_t answers{0};             // GetResp sent
  std::size_t refusals{0};            // of those, with a non-zero status
  std::size_t represses{0};           // TrapRepress sent
  std::size_t setsHandled{0};         // Set(SMInfo) that reached the state machine
  std::size_t traps{0};               // traps handed on by the agent
  std::size_t reports{0};             // Reports the Notifier sent to subscribers
  std::vector<SmInfo> smInfoAnswers;  // decoded SMInfo of the GetResps, in order
  SmState finalState{SmState::NotActive};
  std::vector<std::string> violations;
};

// One input, on a fresh SM (fresh engine, agent, machine and Notifier; the
// SA's subscriptions -- each host subscribed to every trap -- are made
// once and shared).
RigOutcome runSmpInput(std::span<const std::uint8_t> input);

}  // namespace ibsm::fuzz
