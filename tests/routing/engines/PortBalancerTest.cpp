#include <gtest/gtest.h>

#include <vector>

#include "routing/engines/PortBalancer.h"

namespace ibsm::routing {
namespace {

using Ports = std::vector<std::uint8_t>;

// Ports 1-2 lead to switch 10, 3-4 to switch 11 (trunks), 5 to switch 12.
PortBalancer trunkedSwitch() {
  return PortBalancer({kNoSwitch, 10, 10, 11, 11, 12});
}

TEST(PortBalancer, PicksTheCandidateCarryingFewestLidsOfTheSameKind) {
  auto b = trunkedSwitch();
  b.assign(1, LidKind::Ca);
  b.assign(3, LidKind::Ca);
  b.assign(3, LidKind::Ca);
  EXPECT_EQ(b.pick(Ports{1, 3}, {}, LidKind::Ca), 1);
  EXPECT_EQ(b.pick(Ports{3, 5}, {}, LidKind::Ca), 5);
  EXPECT_EQ(b.count(3, LidKind::Ca), 2u);
  EXPECT_EQ(b.weight(3, LidKind::Ca), 2u);
}

TEST(PortBalancer, WeighsLidsByTheTrafficTheyBring) {
  auto b = trunkedSwitch();
  b.assign(1, LidKind::Ca, 12);  // one LID that 12 hosts send through this switch
  for (int i = 0; i < 3; ++i) b.assign(5, LidKind::Ca, 1);
  EXPECT_EQ(b.pick(Ports{1, 5}, {}, LidKind::Ca), 5);
  // LIDs that bring no traffic are spread by count.
  b.assign(5, LidKind::Ca, 9);
  b.assign(3, LidKind::Ca, 0);
  EXPECT_EQ(b.pick(Ports{1, 3, 5}, {}, LidKind::Ca), 3);
  EXPECT_EQ(b.weight(5, LidKind::Ca), 12u);
  EXPECT_EQ(b.count(5, LidKind::Ca), 4u);
}

TEST(PortBalancer, CountsHostLidsAndSwitchLidsApart) {
  auto b = trunkedSwitch();
  for (int i = 0; i < 5; ++i) b.assign(1, LidKind::Switch);
  b.assign(5, LidKind::Ca);
  // Switch LIDs on port 1 do not make it busier for host LIDs...
  EXPECT_EQ(b.pick(Ports{1, 5}, {}, LidKind::Ca), 1);
  // ...but break a tie between ports equally loaded with host LIDs.
  EXPECT_EQ(b.pick(Ports{1, 3}, {}, LidKind::Ca), 3);
  EXPECT_EQ(b.pick(Ports{1, 5}, {}, LidKind::Switch), 5);
}

TEST(PortBalancer, BreaksTiesTowardTheRemoteSwitchWithFewerLids) {
  auto b = trunkedSwitch();
  b.assign(1, LidKind::Ca);
  // Ports 2, 3 and 4 are all unused; port 2 shares switch 10 with port 1.
  EXPECT_EQ(b.pick(Ports{2, 3, 4}, {}, LidKind::Ca), 3);
  b.assign(3, LidKind::Ca);
  EXPECT_EQ(b.pick(Ports{2, 4}, {}, LidKind::Ca), 2);  // equal everywhere: lowest port
}

TEST(PortBalancer, SendsTheNextLidOfAnLmcRangeToAnotherRemoteSwitchEvenIfBusier) {
  auto b = trunkedSwitch();
  for (int i = 0; i < 3; ++i) b.assign(3, LidKind::Ca);
  b.assign(1, LidKind::Ca);  // the range's first LID went out on port 1
  // Port 2 is idle but leads to the same switch as port 1.
  EXPECT_EQ(b.pick(Ports{1, 2, 3}, Ports{1}, LidKind::Ca), 3);
  // Only switch 10 offered: a port the range has not used yet.
  EXPECT_EQ(b.pick(Ports{1, 2}, Ports{1}, LidKind::Ca), 2);
}

TEST(PortBalancer, ForgetsNothingAcrossManyLids) {
  auto b = trunkedSwitch();
  const Ports all{1, 2, 3, 4, 5};
  std::vector<int> perPort(6, 0);
  for (int i = 0; i < 52; ++i) {
    const auto p = b.pick(all, {}, LidKind::Ca);
    b.assign(p, LidKind::Ca);
    ++perPort[p];
  }
  for (int p = 1; p <= 5; ++p) EXPECT_NEAR(perPort[p], 52 / 5.0, 1.0) << p;
}

}  // namespace
}  // namespace ibsm::routing
