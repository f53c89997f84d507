#include "sm/fsm/Election.h"

namespace ibsm::sm::fsm {
namespace {

// The records that take part at all, from `self`'s point of view.
bool eligible(const SmInfo& self, const SmInfo& other) {
  return other.guid != self.guid && other.smState != SmState::NotActive &&
         trusts(self.smKey, other.smKey);
}

}  // namespace

bool outranks(const SmInfo& a, const SmInfo& b) {
  if (a.priority != b.priority) return a.priority > b.priority;
  return a.guid < b.guid;
}

bool trusts(std::uint64_t ourKey, std::uint64_t presentedKey) {
  return presentedKey == ourKey;
}

bool trustsControl(std::uint64_t ourKey, std::uint32_t modifier, std::uint64_t presentedKey) {
  constexpr std::uint32_t kHandover = 1;  // sminfo::kHandover (SmStateMachine.h)
  return trusts(ourKey, presentedKey) || (modifier == kHandover && presentedKey == 0);
}

Election electMaster(const SmInfo& self, std::span<const SmInfo> others) {
  const SmInfo* bestMaster = nullptr;
  for (const auto& o : others)
    if (eligible(self, o) && o.smState == SmState::Master &&
        (!bestMaster || outranks(o, *bestMaster)))
      bestMaster = &o;
  if (bestMaster) return {*bestMaster, false};

  const SmInfo* best = &self;
  for (const auto& o : others)
    if (eligible(self, o) && outranks(o, *best)) best = &o;
  return {*best, best == &self};
}

std::optional<SmInfo> handoverTarget(const SmInfo& self, std::span<const SmInfo> others) {
  std::optional<SmInfo> best;
  for (const auto& o : others) {
    if (!eligible(self, o)) continue;
    if (o.smState != SmState::Standby && o.smState != SmState::Master) continue;
    if (outranks(o, self) && (!best || outranks(o, *best))) best = o;
  }
  return best;
}

std::optional<SmInfo> rivalMaster(const SmInfo& self, std::span<const SmInfo> others) {
  std::optional<SmInfo> best;
  for (const auto& o : others)
    if (eligible(self, o) && o.smState == SmState::Master && outranks(self, o) &&
        (!best || outranks(o, *best)))
      best = o;
  return best;
}

bool pollShowsAlive(const SmInfo& self, Guid polled, const SmInfo& answer) {
  if (answer.guid != polled || !trusts(self.smKey, answer.smKey)) return false;
  switch (answer.smState) {
    case SmState::Master:
      return true;
    case SmState::Discovering:
      return outranks(answer, self);
    case SmState::Standby:
    case SmState::NotActive:
      return false;
  }
  return false;
}

}  // namespace ibsm::sm::fsm
