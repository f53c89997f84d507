// What the daemon's receiving side does with the SMPs of SmpFuzz's seed
// corpus, and with a few malformed ones: the rig (SmpRig.h) wires the MAD
// engine, the SmInfoAgent, the state machine and the SA's Notifier as
// SmDaemon does, so these are the daemon's answers -- and they show that
// the rig the fuzzer runs does reach the code it claims to fuzz.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "tests/fuzz/SmpRig.h"
#include "tests/fuzz/SmpSeeds.h"

namespace ibsm::fuzz {
namespace {

RigOutcome runSeed(const std::string& name) {
  for (const SmpSeed& seed : smpSeeds())
    if (seed.name == name) return runSmpInput(seed.bytes);
  ADD_FAILURE() << "no seed " << name;
  return {};
}

std::vector<std::uint8_t> withSmp(std::uint8_t setup, const Smp& smp) {
  const MadBuffer mad = encodeSmp(smp);
  std::vector<std::uint8_t> in(1 + kMadSize);
  in[0] = setup;
  std::ranges::copy(mad, in.begin() + 1);
  return in;
}

TEST(SmpRig, EveryInputOfTheCorpusKeepsThePromises) {
  std::size_t inputs = 0;
  for (const auto& file : std::filesystem::directory_iterator(IBSM_SMP_CORPUS)) {
    std::ifstream in(file.path(), std::ios::binary);
    const std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(in),
                                          std::istreambuf_iterator<char>()};
    const RigOutcome out = runSmpInput(bytes);
    EXPECT_TRUE(out.violations.empty())
        << file.path().filename() << ": " << ::testing::PrintToString(out.violations);
    ++inputs;
  }
  EXPECT_GE(inputs, smpSeeds().size());
}

TEST(SmpRig, AGetSmInfoIsAnsweredOnceWithOurSmInfo) {
  const RigOutcome out = runSeed("get-sminfo");
  EXPECT_EQ(out.answers, 1U);
  EXPECT_EQ(out.refusals, 0U);
  ASSERT_EQ(out.smInfoAnswers.size(), 1U);
  EXPECT_EQ(out.smInfoAnswers[0].guid, kOurGuid);
  EXPECT_EQ(out.smInfoAnswers[0].smState, SmState::Master);
  EXPECT_EQ(out.smInfoAnswers[0].smKey, kSmKey);
}

TEST(SmpRig, ADirectedGetSmInfoIsAnsweredAlongItsReturnPath) {
  const RigOutcome out = runSeed("get-sminfo-directed");
  EXPECT_TRUE(out.violations.empty());
  ASSERT_EQ(out.smInfoAnswers.size(), 1U);
  EXPECT_EQ(out.smInfoAnswers[0].smState, SmState::Standby);
}

TEST(SmpRig, AProtectedPortHidesTheSmKeyFromAGetWithoutItsMKey) {
  const RigOutcome out = runSeed("get-sminfo-protected-port");
  ASSERT_EQ(out.smInfoAnswers.size(), 1U);
  EXPECT_EQ(out.smInfoAnswers[0].smKey, 0U);
}

TEST(SmpRig, TheControlPacketsMoveTheSmAsTheStateMachineSays) {
  const std::pair<const char*, SmState> cases[] = {
      {"set-handover", SmState::Master},        // STANDBY handed the subnet
      {"set-acknowledge", SmState::Standby},    // our HANDOVER acknowledged
      {"set-disable", SmState::NotActive},      // a STANDBY told to keep quiet
      {"set-standby", SmState::Standby},        // a NOTACTIVE SM woken
      {"set-discover", SmState::Discovering}};  // a STANDBY told to look again
  for (const auto& [seed, state] : cases) {
    const RigOutcome out = runSeed(seed);
    EXPECT_EQ(out.setsHandled, 1U) << seed;
    EXPECT_EQ(out.answers, 1U) << seed;
    EXPECT_EQ(out.refusals, 0U) << seed;
    EXPECT_EQ(out.finalState, state) << seed;
  }
}

TEST(SmpRig, AGetAfterAHandoverShowsTheNewMaster) {
  const RigOutcome out = runSeed("handover-then-get");
  ASSERT_EQ(out.smInfoAnswers.size(), 2U);
  EXPECT_EQ(out.smInfoAnswers[1].smState, SmState::Master);
}

TEST(SmpRig, EveryTrapIsRepressedAndForwardedToEverySubscriber) {
  for (const char* seed : {"trap-64", "trap-65", "trap-128", "trap-144", "trap-256-bad-mkey",
                           "trap-257-bad-pkey", "trap-258-bad-qkey", "trap-128-while-sweeping"}) {
    const RigOutcome out = runSeed(seed);
    EXPECT_EQ(out.represses, 1U) << seed;
    EXPECT_EQ(out.answers, 0U) << seed;
    EXPECT_EQ(out.traps, 1U) << seed;
    EXPECT_EQ(out.reports, 3U) << seed << ": one Report per host subscribed";
  }
}

TEST(SmpRig, ASetWithAnotherSmKeyIsNeitherHandledNorAnswered) {
  Smp set = Smp::lidRouted(Method::Set, AttributeId::SmInfo, 3);  // DISABLE
  set.data = encode(SmInfo{.guid = kPeerGuid, .smKey = kSmKey + 1, .smState = SmState::Master});
  const RigOutcome out =
      runSmpInput(withSmp(setupByte(RigPhase::Standby, false, RigSender::Host2), set));
  EXPECT_EQ(out.setsHandled, 0U);
  EXPECT_EQ(out.answers, 0U);
  EXPECT_EQ(out.finalState, SmState::Standby);
}

TEST(SmpRig, AnUnsupportedGetIsRefusedOnce) {
  const Smp get = Smp::lidRouted(Method::Get, AttributeId::PortInfo, 1);
  const RigOutcome out =
      runSmpInput(withSmp(setupByte(RigPhase::MasterIdle, false, RigSender::Host2), get));
  EXPECT_EQ(out.answers, 1U);
  EXPECT_EQ(out.refusals, 1U);
}

TEST(SmpRig, WhatIsNoSmpIsDroppedUnanswered) {
  std::vector<std::uint8_t> sa(1 + kMadSize, 0);
  sa[0] = setupByte(RigPhase::MasterIdle, false, RigSender::Host2);
  sa[1] = 1;     // base version
  sa[2] = 0x03;  // the SA's class, not an SM's
  sa[4] = 0x01;  // Get
  for (const auto& input : {sa, std::vector<std::uint8_t>{}, std::vector<std::uint8_t>{0x12}}) {
    const RigOutcome out = runSmpInput(input);
    EXPECT_TRUE(out.violations.empty());
    EXPECT_EQ(out.answers + out.represses + out.reports, 0U);
  }
}

TEST(SmpRig, MoreMadsThanTheLimitAreNotRead) {
  Smp get = Smp::lidRouted(Method::Get, AttributeId::SmInfo, 0);
  std::vector<std::uint8_t> in(1 + (kMaxMads + 2) * kMadSize);
  in[0] = setupByte(RigPhase::MasterIdle, false, RigSender::Host3);
  for (std::size_t i = 0; i < kMaxMads + 2; ++i) {
    get.header.tid = i + 1;
    std::ranges::copy(encodeSmp(get), in.begin() + 1 + static_cast<std::ptrdiff_t>(i * kMadSize));
  }
  EXPECT_EQ(runSmpInput(in).answers, kMaxMads);
}

}  // namespace
}  // namespace ibsm::fuzz
