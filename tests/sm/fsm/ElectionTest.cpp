// Who becomes master: the IBA rules every SM of a subnet applies alike.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "sm/fsm/Election.h"
#include "tests/sm/fsm/FsmSpecs.h"

namespace ibsm::sm::fsm {
namespace {

using enum SmState;

const SmInfo kSelf = smInfo(0x50, 5, Discovering);

std::optional<Guid> guidOf(const std::optional<SmInfo>& sm) {
  return sm ? std::optional(sm->guid) : std::nullopt;
}

TEST(Rank, HigherPriorityOutranksWhateverTheGuid) {
  EXPECT_TRUE(outranks(smInfo(0x99, 6, Standby), smInfo(0x01, 5, Standby)));
  EXPECT_FALSE(outranks(smInfo(0x01, 5, Standby), smInfo(0x99, 6, Standby)));
}

TEST(Rank, EqualPriorityGoesToTheLowerGuid) {
  EXPECT_TRUE(outranks(smInfo(0x10, 5, Standby), smInfo(0x20, 5, Standby)));
  EXPECT_FALSE(outranks(smInfo(0x20, 5, Standby), smInfo(0x10, 5, Standby)));
}

TEST(Rank, IsATotalOrderSoEverySmAgrees) {
  std::vector<SmInfo> sms;
  for (std::uint64_t g = 1; g <= 6; ++g)
    sms.push_back(smInfo(g * 0x11, static_cast<std::uint8_t>(g % 3), Standby));
  for (const auto& a : sms)
    for (const auto& b : sms) {
      if (a.guid == b.guid) {
        EXPECT_FALSE(outranks(a, b));
        continue;
      }
      EXPECT_NE(outranks(a, b), outranks(b, a)) << a.guid.value << " vs " << b.guid.value;
      for (const auto& c : sms) {
        if (outranks(a, b) && outranks(b, c)) {
          EXPECT_TRUE(outranks(a, c));
        }
      }
    }
}

TEST(Trust, OnlyThoseWhoShowOurKey) {
  EXPECT_TRUE(trusts(0xabc, 0xabc));
  EXPECT_FALSE(trusts(0xabc, 0));  // an SM of another key answers with 0
  EXPECT_FALSE(trusts(0xabc, 0xdef));
}

// Key 0 is compared like any other: an SM keyed 0 that trusted OpenSM's
// default key 1 would follow an OpenSM that ignores it (ERR 2F18).
TEST(Trust, ZeroIsAKeyLikeAnyOtherNotATrustEveryone) {
  EXPECT_TRUE(trusts(0, 0));
  EXPECT_FALSE(trusts(0, kDefaultSmKey));
  EXPECT_FALSE(trusts(kDefaultSmKey, 0));
}

TEST(Trust, TheDefaultKeyIsOpenSmsDefault) {
  EXPECT_EQ(kDefaultSmKey, 1u);
}

TEST(Trust, ControlPacketsNeedOurKeyButAHandoverMayComeUnkeyed) {
  EXPECT_TRUE(trustsControl(0x5, sminfo::kHandover, 0));
  EXPECT_TRUE(trustsControl(0x5, sminfo::kDisable, 0x5));
  EXPECT_FALSE(trustsControl(0x5, sminfo::kDisable, 0));
  EXPECT_FALSE(trustsControl(0, sminfo::kStandby, 0x5));
}

TEST(Elect, AloneWeWin) {
  const auto e = electMaster(kSelf, {});
  EXPECT_TRUE(e.selfWins);
  EXPECT_EQ(e.winner.guid, kSelf.guid);
}

TEST(Elect, TheBestRankedOfUsAndTheOthersWinsWhenNoneIsMaster) {
  const std::vector<SmInfo> others = {smInfo(0x60, 5, Standby), smInfo(0x40, 5, Discovering),
                                      smInfo(0x30, 4, Standby)};
  const auto e = electMaster(kSelf, others);
  EXPECT_FALSE(e.selfWins);
  EXPECT_EQ(e.winner.guid, Guid{0x40});  // same priority as us, lower GUID

  const auto lower = electMaster(kSelf, std::vector{smInfo(0x60, 5, Standby)});
  EXPECT_TRUE(lower.selfWins);
}

TEST(Elect, AnExistingMasterKeepsTheSubnetEvenIfWeOutrankIt) {
  const std::vector<SmInfo> others = {smInfo(0x70, 1, Master), smInfo(0x40, 9, Standby)};
  const auto e = electMaster(kSelf, others);
  EXPECT_FALSE(e.selfWins);
  EXPECT_EQ(e.winner.guid, Guid{0x70});
}

TEST(Elect, OfTwoMastersTheBetterRankedOne) {
  const std::vector<SmInfo> others = {smInfo(0x70, 1, Master), smInfo(0x80, 3, Master)};
  EXPECT_EQ(electMaster(kSelf, others).winner.guid, Guid{0x80});
}

TEST(Elect, NotActiveSmsHaveLeftTheElection) {
  const std::vector<SmInfo> others = {smInfo(0x10, 15, NotActive)};
  EXPECT_TRUE(electMaster(kSelf, others).selfWins);
}

TEST(Elect, OurOwnPortSeenByDiscoveryIsNotARival) {
  const std::vector<SmInfo> others = {smInfo(0x50, 15, Master)};
  EXPECT_TRUE(electMaster(kSelf, others).selfWins);
}

TEST(Elect, WithAnSmKeyAnSmPresentingAnotherKeyIsIgnored) {
  SmInfo self = kSelf;
  self.smKey = 0xbeef;
  const std::vector<SmInfo> others = {smInfo(0x10, 15, Master, 0),
                                      smInfo(0x20, 9, Standby, 0xdead)};
  EXPECT_TRUE(electMaster(self, others).selfWins);
  const std::vector<SmInfo> sameKey = {smInfo(0x10, 15, Master, 0xbeef)};
  EXPECT_FALSE(electMaster(self, sameKey).selfWins);
}

TEST(Elect, TheOrderOfTheRecordsDoesNotMatter) {
  std::vector<SmInfo> others = {smInfo(0x60, 7, Standby), smInfo(0x20, 7, Discovering),
                                smInfo(0x30, 2, Standby), smInfo(0x10, 7, NotActive)};
  std::sort(others.begin(), others.end());
  const Guid first = electMaster(kSelf, others).winner.guid;
  while (std::next_permutation(others.begin(), others.end()))
    EXPECT_EQ(electMaster(kSelf, others).winner.guid, first);
  EXPECT_EQ(first, Guid{0x20});
}

TEST(Handover, NoTargetWhenWeAreTheBest) {
  const std::vector<SmInfo> others = {smInfo(0x60, 5, Standby), smInfo(0x10, 4, Standby)};
  EXPECT_FALSE(handoverTarget(kSelf, others));
}

TEST(Handover, ToTheBestStandbyThatOutranksUs) {
  const std::vector<SmInfo> others = {smInfo(0x60, 7, Standby), smInfo(0x70, 9, Standby),
                                      smInfo(0x10, 4, Standby)};
  EXPECT_EQ(guidOf(handoverTarget(kSelf, others)), Guid{0x70});
}

TEST(Handover, ToABetterMasterWhenTwoMastersMeet) {
  EXPECT_EQ(guidOf(handoverTarget(kSelf, std::vector{smInfo(0x90, 8, Master)})), Guid{0x90});
}

TEST(Handover, NotToAnSmStillDiscoveringNorToADisabledOne) {
  const std::vector<SmInfo> others = {smInfo(0x60, 9, Discovering), smInfo(0x70, 9, NotActive)};
  EXPECT_FALSE(handoverTarget(kSelf, others));
}

TEST(Handover, NotToAnSmOfAnotherKey) {
  SmInfo self = kSelf;
  self.smKey = 0x1;
  EXPECT_FALSE(handoverTarget(self, std::vector{smInfo(0x60, 9, Standby, 0x2)}));
  EXPECT_TRUE(handoverTarget(self, std::vector{smInfo(0x60, 9, Standby, 0x1)}));
}

TEST(Poll, AMasterAnsweringIsAlive) {
  EXPECT_TRUE(pollShowsAlive(kSelf, Guid{0x70}, smInfo(0x70, 1, Master)));
}

TEST(Poll, AnAnswerFromAnotherSmIsNoSignOfLife) {
  EXPECT_FALSE(pollShowsAlive(kSelf, Guid{0x70}, smInfo(0x71, 9, Master)));
}

TEST(Poll, ABetterSmOnItsWayToMasteryIsAliveAWorseOneIsNot) {
  EXPECT_TRUE(pollShowsAlive(kSelf, Guid{0x70}, smInfo(0x70, 9, Discovering)));
  EXPECT_FALSE(pollShowsAlive(kSelf, Guid{0x70}, smInfo(0x70, 1, Discovering)));
}

TEST(Poll, AnSmThatWentStandbyIsNoLongerTheOneToWatch) {
  EXPECT_FALSE(pollShowsAlive(kSelf, Guid{0x70}, smInfo(0x70, 9, Standby)));
  EXPECT_FALSE(pollShowsAlive(kSelf, Guid{0x70}, smInfo(0x70, 1, Standby)));
  EXPECT_FALSE(pollShowsAlive(kSelf, Guid{0x70}, smInfo(0x70, 9, NotActive)));
}

TEST(Poll, WithAnSmKeyAnAnswerWithoutItIsNoSignOfLife) {
  SmInfo self = kSelf;
  self.smKey = 0x77;
  EXPECT_FALSE(pollShowsAlive(self, Guid{0x70}, smInfo(0x70, 1, Master, 0)));
  EXPECT_TRUE(pollShowsAlive(self, Guid{0x70}, smInfo(0x70, 1, Master, 0x77)));
}

}  // namespace
}  // namespace ibsm::sm::fsm
