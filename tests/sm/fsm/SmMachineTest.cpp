// The state machine with its queue, as the SM's loop uses it: Set(SMInfo)
// verdicts at once, everything else in order, nothing stale performed.
#include <gtest/gtest.h>

#include "sm/fsm/SmMachine.h"
#include "tests/sm/fsm/FsmSpecs.h"

namespace ibsm::sm::fsm {
namespace {

using enum ActionKind;

const SmContext kCtx{.self = smInfo(0x50, 5, SmState::Discovering)};

std::vector<ActionKind> drain(SmMachine& m) {
  std::vector<ActionKind> out;
  while (auto a = m.take()) out.push_back(a->kind);
  return out;
}

TEST(SmMachine, StartsByAnnouncingDiscoveringAndDiscovering) {
  SmMachine m(kCtx);
  EXPECT_EQ(m.state().phase, Phase::Discovering);
  EXPECT_EQ(drain(m), (std::vector{SetSmState, Discover}));
  EXPECT_TRUE(m.idle());
}

TEST(SmMachine, ASetIsAnsweredAtOnceAndTheRestWaitsItsTurn) {
  SmMachine m(kCtx);
  ASSERT_EQ(m.take().value_or(Action{}).kind, SetSmState);
  ASSERT_EQ(m.take().value_or(Action{}).kind,
            Discover);  // the discovery now runs; a master hands over meanwhile
  EXPECT_EQ(m.feed(Event::smInfoSet(sminfo::kHandover, smInfo(0x70, 9, SmState::Master))), true);
  EXPECT_EQ(drain(m), (std::vector{SendAcknowledge, SetSmState, TakeOver}));
}

TEST(SmMachine, OnlyASetGetsAVerdictAndAnUntrustedSetNone) {
  SmContext keyed = kCtx;
  keyed.self.smKey = 0x42;
  SmMachine m(keyed);
  drain(m);
  EXPECT_FALSE(m.feed(Event::pollTimer()).has_value());
  EXPECT_FALSE(
      m.feed(Event::smInfoSet(sminfo::kDisable, smInfo(0x70, 9, SmState::Master))).has_value());
  EXPECT_EQ(m.feed(Event::smInfoSet(sminfo::kAcknowledge, smInfo(0x70, 9, SmState::Master, 0x42))),
            false);
}

TEST(SmMachine, WorkNotYetStartedIsReplacedByNewerWork) {
  SmMachine m(kCtx);
  drain(m);
  m.feed(Event::discoveryDone(true, {}));  // master: TakeOver queued
  // Before the loop gets to it, a master's DISCOVER sends us back to discovering.
  m.feed(Event::smInfoSet(sminfo::kDiscover, smInfo(0x70, 9, SmState::Master)));
  const auto left = drain(m);
  EXPECT_EQ(left, (std::vector{SetSmState, SetSmState, Discover}));
  EXPECT_EQ(m.state().phase, Phase::Discovering);
}

TEST(SmMachine, StopDropsEverythingQueued) {
  SmMachine m(kCtx);
  drain(m);
  m.feed(Event::discoveryDone(true, {}));
  m.feed(Event::stop());
  const auto left = drain(m);
  EXPECT_EQ(left, (std::vector{SetSmState, Stop}));
}

TEST(SmMachine, ANewContextAppliesToTheNextEvent) {
  SmMachine m(kCtx);
  drain(m);
  m.feed(Event::discoveryDone(true, {smInfo(0x70, 9, SmState::Master)}));
  ASSERT_EQ(m.state().phase, Phase::Standby);
  SmContext oneRetry = kCtx;
  oneRetry.pollingRetries = 1;
  m.setContext(oneRetry);
  drain(m);
  m.feed(Event::masterSilent());
  EXPECT_EQ(m.state().phase, Phase::Discovering);
}

}  // namespace
}  // namespace ibsm::sm::fsm
