#include "sm/fsm/SmMachine.h"

#include <algorithm>

namespace ibsm::sm::fsm {

SmMachine::SmMachine(SmContext ctx) : ctx_(ctx) {
  auto t = start();
  state_ = t.state;
  pending_.assign(t.actions.begin(), t.actions.end());
}

namespace {

// Sweeps, passes, discovery, polls and handovers: the actions a phase waits on.
bool isWork(ActionKind k) {
  switch (k) {
    case ActionKind::Discover:
    case ActionKind::TakeOver:
    case ActionKind::HeavySweep:
    case ActionKind::LightSweep:
    case ActionKind::Rebalance:
    case ActionKind::Replan:
    case ActionKind::PollMaster:
    case ActionKind::SendHandover:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::optional<bool> SmMachine::feed(const Event& event) {
  auto t = next(ctx_, state_, event);
  state_ = t.state;
  const bool stops =
      std::ranges::any_of(t.actions, [](const Action& a) { return a.kind == ActionKind::Stop; });
  const bool works = std::ranges::any_of(t.actions, [](const Action& a) { return isWork(a.kind); });
  // Leaving: nothing queued is worth doing. New work: the phase now waits
  // for it, so work queued before and not yet started is superseded.
  if (stops) pending_.clear();
  if (works) std::erase_if(pending_, [](const Action& a) { return isWork(a.kind); });

  std::optional<bool> verdict;
  for (auto& a : t.actions) {
    if (a.kind == ActionKind::AnswerSet)
      verdict = a.accepted;  // answered by the caller now, never queued
    else
      pending_.push_back(a);
  }
  return verdict;
}

std::optional<Action> SmMachine::peek() const {
  if (pending_.empty()) return std::nullopt;
  return pending_.front();
}

std::optional<Action> SmMachine::take() {
  if (pending_.empty()) return std::nullopt;
  Action a = pending_.front();
  pending_.pop_front();
  return a;
}

}  // namespace ibsm::sm::fsm
