// The PKey cache: which blocks a sweep must read, and what it knows after
// Gets, Sets and failures.
#include <gtest/gtest.h>

#include "PKeyCache.h"

namespace ibsm::sm {
namespace {

const PKeyPortKey kCaPort{Guid{0x100}, 1};
const PKeyPortKey kSwitchPort{Guid{0x200}, 3};

PKeyBlock blockOf(std::uint16_t first) {
  PKeyBlock b;
  b.pkeys[0] = first;
  return b;
}

TEST(PKeyCache, BlockCountsRoundUpToWholeBlocks) {
  EXPECT_EQ(pkeyBlocks(0), 0);
  EXPECT_EQ(pkeyBlocks(8), 1);
  EXPECT_EQ(pkeyBlocks(32), 1);
  EXPECT_EQ(pkeyBlocks(64), 2);
  EXPECT_EQ(pkeyBlocks(65), 3);
}

TEST(PKeyCache, APortSeenForTheFirstTimeHasAllItsBlocksRead) {
  PKeyCache cache;
  EXPECT_EQ(cache.admit(kCaPort, 2, false), (std::vector<std::uint16_t>{0, 1}));
  EXPECT_FALSE(cache.block(kCaPort, 0));
}

TEST(PKeyCache, APortSeenAgainIsNotReadEvenWhereABlockIsUnknown) {
  PKeyCache cache;
  cache.admit(kCaPort, 2, false);
  cache.learned(kCaPort, 0, blockOf(0xffff));
  cache.forget(kCaPort, 0);  // a failed Set: written again, not read
  EXPECT_TRUE(cache.admit(kCaPort, 2, false).empty());
  EXPECT_FALSE(cache.block(kCaPort, 0));
}

TEST(PKeyCache, WhatWasLearnedIsKeptAcrossSweeps) {
  PKeyCache cache;
  cache.admit(kSwitchPort, 1, false);
  cache.learned(kSwitchPort, 0, blockOf(0x8001));
  cache.admit(kSwitchPort, 1, false);
  EXPECT_EQ(cache.block(kSwitchPort, 0), blockOf(0x8001));
  EXPECT_FALSE(cache.block(kCaPort, 0)) << "ports are kept apart";
}

TEST(PKeyCache, AResetPortIsTakenAfreshAndReadAgain) {
  PKeyCache cache;
  cache.admit(kCaPort, 2, false);
  cache.learned(kCaPort, 0, blockOf(0x8001));
  cache.enforcementIgnored(kCaPort);
  EXPECT_EQ(cache.admit(kCaPort, 2, true), (std::vector<std::uint16_t>{0, 1}));
  EXPECT_FALSE(cache.block(kCaPort, 0));
  EXPECT_FALSE(cache.ignoresEnforcement(kCaPort));
}

TEST(PKeyCache, APortReportingAnotherCapacityIsTakenAfresh) {
  PKeyCache cache;
  cache.admit(kCaPort, 1, false);
  cache.learned(kCaPort, 0, blockOf(0x8001));
  EXPECT_EQ(cache.admit(kCaPort, 2, false), (std::vector<std::uint16_t>{0, 1}));
}

}  // namespace
}  // namespace ibsm::sm
