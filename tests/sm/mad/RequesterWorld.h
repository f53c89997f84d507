// The fake world the requester's tests run in (RequesterTest,
// RequesterNodeTest): a fake clock, a wire that only records what was sent
// (name, TID, attempt), the completions in order, the timers asked for,
// and a hook for what a callback does next. An Ask names its node by its
// first letter ("a1", "a2": node a), for perNodeWindow.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sm/mad/Requester.h"

namespace ibsm::sm::mad::testing {

using namespace std::chrono_literals;

struct Ask {
  std::string name;
  std::chrono::milliseconds timeout{100ms};
  // How long an attempt holds its place in the window; unset: until its
  // timeout, as without the hook.
  std::optional<std::chrono::milliseconds> holds{};
  unsigned attempts{3};
};

struct Sent {
  std::string name;
  std::uint32_t tid;
  unsigned attempt;
};

struct Ended {
  std::string name;
  Completion<int> how;
};

struct World {
  MadClock::time_point now{};
  std::vector<Sent> sent;
  std::vector<Ended> ended;
  bool refuse{false};
  std::vector<std::optional<MadClock::time_point>> wakes;
  // Called from the complete hook: what a callback does next.
  std::function<void(const Ended&)> then;
  Requester<Ask, int>* requester{nullptr};

  RequesterHooks<Ask, int> hooks() {
    return {.send =
                [this](Ask& a, std::uint32_t tid, unsigned attempt) {
                  if (refuse) return false;
                  sent.push_back({a.name, tid, attempt});
                  return true;
                },
            .timeout = [](const Ask& a, unsigned) { return a.timeout; },
            .holds = [](const Ask& a, unsigned) { return a.holds.value_or(a.timeout); },
            // The node is the name's first letter: "a1" and "a2" go to node a.
            .node = [](const Ask& a) { return static_cast<std::uint64_t>(a.name.at(0)); },
            .attempts = [](const Ask& a) { return a.attempts; },
            .complete =
                [this](Ask& a, Completion<int>&& c) {
                  ended.push_back({a.name, std::move(c)});
                  if (then) then(ended.back());
                },
            .clock = [this] { return now; },
            .retrying = {},
            .wakeAt = [this](std::optional<MadClock::time_point> t) { wakes.push_back(t); }};
  }
  std::uint32_t tidOf(const std::string& name) const {
    for (const Sent& s : sent)
      if (s.name == name) return s.tid;
    ADD_FAILURE() << name << " was never sent";
    return 0;
  }
  std::vector<std::string> sentNames() const {
    std::vector<std::string> out;
    for (const Sent& s : sent) out.push_back(s.name);
    return out;
  }
  std::vector<std::string> endedNames() const {
    std::vector<std::string> out;
    for (const Ended& e : ended) out.push_back(e.name);
    return out;
  }
};

}  // namespace ibsm::sm::mad::testing
