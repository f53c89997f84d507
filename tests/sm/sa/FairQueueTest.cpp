// The SA's fair queue (sm/sa/FairQueue.h): requesters served in turns, one
// request each, so a flooding requester waits behind its own requests only;
// each requester's order kept; memory bounded by the limits, the oldest
// dropped and counted.
#include <gtest/gtest.h>

#include <vector>

#include "sm/sa/FairQueue.h"

namespace ibsm::sm::sa {
namespace {

using Clock = std::chrono::steady_clock;

// A request from LID `lid` (QP 1) whose first byte numbers it.
ReceivedGmp request(std::uint16_t lid, std::uint8_t number, std::uint32_t qpn = 1) {
  ReceivedGmp g;
  g.mad = {number};
  g.from.lid = Lid{lid};
  g.from.qpn = qpn;
  return g;
}

struct Taken {
  std::uint16_t lid;
  std::uint8_t number;
  bool operator==(const Taken&) const = default;
};

std::vector<Taken> drain(FairQueue& q) {
  std::vector<Taken> out;
  while (auto next = q.pop()) out.push_back({next->gmp.from.lid.value, next->gmp.mad[0]});
  return out;
}

TEST(FairQueueTest, AFloodingRequesterCannotStarveAnother) {
  FairQueue q({.perRequester = 100, .total = 1000});
  for (std::uint8_t i = 0; i < 50; ++i) q.push(request(7, i), Clock::now());
  q.push(request(9, 0), Clock::now());  // the victim's one request, after 50 of the flood's
  const auto taken = drain(q);
  ASSERT_EQ(taken.size(), 51U);
  // The victim's request is the second taken: one turn of the flood first.
  EXPECT_EQ(taken[1], (Taken{9, 0}));
}

TEST(FairQueueTest, RequestersTakeTurnsOneRequestEach) {
  FairQueue q;
  for (std::uint8_t i = 0; i < 3; ++i) q.push(request(7, i), Clock::now());
  for (std::uint8_t i = 0; i < 2; ++i) q.push(request(9, i), Clock::now());
  EXPECT_EQ(drain(q), (std::vector<Taken>{{7, 0}, {9, 0}, {7, 1}, {9, 1}, {7, 2}}));
}

TEST(FairQueueTest, TheOrderInsideOneRequesterIsKept) {
  FairQueue q;
  for (std::uint8_t i = 0; i < 10; ++i) q.push(request(7, i), Clock::now());
  const auto taken = drain(q);
  ASSERT_EQ(taken.size(), 10U);
  for (std::uint8_t i = 0; i < 10; ++i) EXPECT_EQ(taken[i].number, i);
}

TEST(FairQueueTest, AFullRequesterQueueDropsItsOldestAndCountsIt) {
  FairQueue q({.perRequester = 4, .total = 100});
  for (std::uint8_t i = 0; i < 10; ++i) q.push(request(7, i), Clock::now());
  EXPECT_EQ(q.size(), 4U);
  EXPECT_EQ(q.counters().droppedRequesterFull, 6U);
  EXPECT_EQ(q.counters().largestEver, 4U);
  EXPECT_EQ(drain(q), (std::vector<Taken>{{7, 6}, {7, 7}, {7, 8}, {7, 9}}));
}

TEST(FairQueueTest, MemoryIsBoundedByTheTotalWhateverTheRequesters) {
  FairQueue q({.perRequester = 8, .total = 32});
  // 1000 requesters of 3 requests each: never more than 32 held.
  for (std::uint16_t lid = 1; lid <= 1000; ++lid) {
    for (std::uint8_t i = 0; i < 3; ++i) {
      q.push(request(lid, i), Clock::now());
      ASSERT_LE(q.size(), 32U);
    }
  }
  EXPECT_EQ(q.counters().queued, 3000U);
  EXPECT_EQ(q.counters().droppedTotalFull, 3000U - 32U);
  EXPECT_LE(q.requesters(), 32U);
}

TEST(FairQueueTest, WithTheTotalFullTheLongestQueuePaysNotTheNewcomer) {
  FairQueue q({.perRequester = 8, .total = 8});
  for (std::uint8_t i = 0; i < 8; ++i) q.push(request(7, i), Clock::now());
  q.push(request(9, 0), Clock::now());
  EXPECT_EQ(q.size(), 8U);
  EXPECT_EQ(q.counters().droppedTotalFull, 1U);
  const auto taken = drain(q);
  EXPECT_EQ(taken[0], (Taken{7, 1}));  // the flood's oldest went
  EXPECT_EQ(taken[1], (Taken{9, 0}));
}

TEST(FairQueueTest, TwoQpsOfOneLidAreTwoRequestersAndAGidNamesOneWhateverItsLid) {
  FairQueue q;
  q.push(request(7, 0, /*qpn=*/1), Clock::now());
  q.push(request(7, 1, /*qpn=*/2), Clock::now());
  EXPECT_EQ(q.requesters(), 2U);
  ReceivedGmp a = request(7, 2), b = request(8, 3);
  a.from.gid = b.from.gid = Gid{0xfe, 0x80};
  q.push(a, Clock::now());
  q.push(b, Clock::now());
  EXPECT_EQ(q.requesters(), 3U);
  EXPECT_EQ(q.largest(), 2U);
}

TEST(FairQueueTest, TheTimeQueuedComesOutWithTheRequest) {
  FairQueue q;
  const auto at = Clock::time_point{} + std::chrono::seconds(5);
  q.push(request(7, 0), at);
  EXPECT_EQ(q.pop()->at, at);
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.requesters(), 0U);
}

TEST(FairQueueTest, TighterLimitsDropWhatWaitsPastThemAtOnceByTheSameRules) {
  // A reload (sa.queue_per_requester, sa.queue_total) bounds memory from the
  // moment it is taken, not from the next push: each requester keeps its
  // newest, then the longest queues pay until the total fits.
  FairQueue q({.perRequester = 16, .total = 100});
  for (std::uint8_t i = 0; i < 10; ++i) q.push(request(7, i), Clock::now());
  for (std::uint8_t i = 0; i < 3; ++i) q.push(request(9, i), Clock::now());
  q.setLimits({.perRequester = 4, .total = 6});
  EXPECT_EQ(q.size(), 6U);
  EXPECT_EQ(q.counters().droppedRequesterFull, 6U) << "LID 7 down to its newest 4";
  EXPECT_EQ(q.counters().droppedTotalFull, 1U) << "then the longest, LID 7, for the total";
  EXPECT_EQ(q.limits(), (FairQueueLimits{.perRequester = 4, .total = 6}));
  EXPECT_EQ(drain(q), (std::vector<Taken>{{7, 7}, {9, 0}, {7, 8}, {9, 1}, {7, 9}, {9, 2}}));
}

TEST(FairQueueTest, LooserLimitsDropNothingAndTakeMoreFromThen) {
  FairQueue q({.perRequester = 2, .total = 100});
  for (std::uint8_t i = 0; i < 2; ++i) q.push(request(7, i), Clock::now());
  q.setLimits({.perRequester = 5, .total = 100});
  for (std::uint8_t i = 2; i < 5; ++i) q.push(request(7, i), Clock::now());
  EXPECT_EQ(q.size(), 5U);
  EXPECT_EQ(q.counters().droppedRequesterFull, 0U);
}

TEST(FairQueueTest, ATotalBelowOneRequestersQueueIsRaisedToIt) {
  // The config refuses it (sa.queue_total below sa.queue_per_requester);
  // a caller that asks anyway gets a queue that can hold one full requester.
  FairQueue q({.perRequester = 8, .total = 2});
  EXPECT_EQ(q.limits().total, 8U);
}

}  // namespace
}  // namespace ibsm::sm::sa
