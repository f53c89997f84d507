// Shorthands for the state machine's specs: SMInfo records, the kinds of a
// transition's actions, and printing so failures read as words.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <ostream>
#include <vector>

#include "sm/fsm/SmStateMachine.h"

namespace ibsm::sm::fsm {

inline SmInfo smInfo(std::uint64_t guid, std::uint8_t priority, SmState state,
                     std::uint64_t key = 0) {
  return SmInfo{.guid = Guid{guid}, .smKey = key, .priority = priority, .smState = state};
}

inline std::vector<ActionKind> kinds(const std::vector<Action>& actions) {
  std::vector<ActionKind> out;
  out.reserve(actions.size());
  for (const auto& a : actions) out.push_back(a.kind);
  return out;
}

inline void PrintTo(Phase p, std::ostream* os) {
  *os << name(p);
}
inline void PrintTo(ActionKind k, std::ostream* os) {
  *os << name(k);
}
inline void PrintTo(EventKind k, std::ostream* os) {
  *os << name(k);
}
inline void PrintTo(const Action& a, std::ostream* os) {
  *os << name(a.kind);
  if (a.peer) *os << fmt::format(" {}", a.peer);
  if (a.kind == ActionKind::SetSmState || a.kind == ActionKind::SendAcknowledge ||
      a.kind == ActionKind::SendHandover)
    *os << " state " << static_cast<int>(a.smState);
  if (a.kind == ActionKind::AnswerSet) *os << (a.accepted ? " accepted" : " refused");
  if (a.kind == ActionKind::Replan) *os << " (" << name(a.reason) << ")";
}

}  // namespace ibsm::sm::fsm

namespace ibsm {
inline void PrintTo(SmState s, std::ostream* os) {
  static constexpr const char* kNames[] = {"NOTACTIVE", "DISCOVERING", "STANDBY", "MASTER"};
  *os << kNames[static_cast<int>(s) & 3];
}
}  // namespace ibsm
