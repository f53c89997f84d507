// next() with its memory: the state between events and the actions not yet
// performed, in order. It exists because the SM's loop performs actions that
// block (a sweep runs the MAD engine for seconds) while events keep coming
// from the engine's callbacks: a callback feeds its event at once and gets
// the one thing that cannot wait -- the verdict on a Set(SMInfo) it must
// answer now -- and everything else queues behind the running action. Work
// (a sweep, a poll, a handover) queued but not started is dropped when newer
// work replaces it or the SM stops, so nothing stale runs.
//
//   SmMachine m(ctx);                        // queue: SetSmState, Discover
//   while (auto a = m.take()) perform(*a);   // perform() may feed events itself
//   ... engine callback: if (auto ok = m.feed(Event::smInfoSet(mod, info))) respond(*ok);
#pragma once

#include <deque>
#include <optional>

#include "sm/fsm/SmStateMachine.h"

namespace ibsm::sm::fsm {

class SmMachine {
 public:
  explicit SmMachine(SmContext ctx);

  // Applies one event. For a Set(SMInfo): whether to accept it (answer with
  // status 0) or refuse it (an error status); nullopt when it must not be
  // answered at all (wrong SM_Key, or stopped). nullopt for other events.
  std::optional<bool> feed(const Event& event);

  // The next action to perform, in order; nullopt when none is pending.
  std::optional<Action> take();
  // The action take() would return next, left in place.
  std::optional<Action> peek() const;
  bool idle() const { return pending_.empty(); }

  // After ReloadConfig: new priority, key or retry count apply from the next event.
  void setContext(const SmContext& ctx) { ctx_ = ctx; }
  const SmContext& context() const { return ctx_; }
  const State& state() const { return state_; }

 private:
  SmContext ctx_;
  State state_;
  std::deque<Action> pending_;
};

}  // namespace ibsm::sm::fsm
