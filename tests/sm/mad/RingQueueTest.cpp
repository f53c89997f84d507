// The ring the requester queues its requests in (sm/mad/RingQueue.h):
// first in, first out, a retry put back at the front; no allocation per
// request once it has grown; its storage given back when it empties past
// the slots it keeps.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "sm/mad/RingQueue.h"

namespace ibsm::sm::mad {
namespace {

// Everything the queue holds, front to back, taken out.
std::vector<int> drain(RingQueue<std::unique_ptr<int>>& q) {
  std::vector<int> out;
  while (!q.empty()) {
    out.push_back(*q.front());
    q.pop_front();
  }
  return out;
}

TEST(RingQueue, TakesOutInTheOrderPutInAndAFrontPushFirst) {
  RingQueue<std::unique_ptr<int>> q;  // move-only values: never copied
  q.push_back(std::make_unique<int>(1));
  q.push_back(std::make_unique<int>(2));
  q.push_front(std::make_unique<int>(0));
  EXPECT_EQ(q.size(), 3U);
  EXPECT_EQ(drain(q), (std::vector<int>{0, 1, 2}));
  EXPECT_TRUE(q.empty());
}

TEST(RingQueue, KeepsItsOrderWhenItGrowsWhileWrappedAround) {
  RingQueue<std::unique_ptr<int>> q;
  std::vector<int> expected;
  // Half taken out, so the front has moved into the ring; then filled past
  // its size: the values that wrapped around come out in order.
  for (int i = 0; i < 12; ++i) q.push_back(std::make_unique<int>(i));
  for (int i = 0; i < 8; ++i) q.pop_front();
  for (int i = 8; i < 12; ++i) expected.push_back(i);
  for (int i = 12; i < 60; ++i) {
    q.push_back(std::make_unique<int>(i));
    expected.push_back(i);
  }
  q.push_front(std::make_unique<int>(7));
  expected.insert(expected.begin(), 7);
  EXPECT_EQ(drain(q), expected);
}

TEST(RingQueue, QueueingAgainAfterItGrewAllocatesNothing) {
  RingQueue<std::unique_ptr<int>> q;
  for (int i = 0; i < 100; ++i) q.push_back(std::make_unique<int>(i));
  const std::size_t grown = q.capacity();
  EXPECT_GE(grown, 100U);
  // A request in, one out, many times over (the window's steady state),
  // and emptied now and then: the storage stays what it was.
  for (int round = 0; round < 1000; ++round) {
    q.push_back(std::make_unique<int>(round));
    q.pop_front();
  }
  q.clear();
  for (int i = 0; i < 100; ++i) q.push_back(std::make_unique<int>(i));
  EXPECT_EQ(q.capacity(), grown);
}

TEST(RingQueue, GivesItsStorageBackWhenEmptiedPastWhatItKeeps) {
  RingQueue<std::unique_ptr<int>> q;
  const int many = static_cast<int>(RingQueue<std::unique_ptr<int>>::kKept) + 1;
  for (int i = 0; i < many; ++i) q.push_back(std::make_unique<int>(i));
  EXPECT_GT(q.capacity(), RingQueue<std::unique_ptr<int>>::kKept);
  for (int i = 0; i < many - 1; ++i) q.pop_front();
  EXPECT_GT(q.capacity(), 0U) << "not empty yet: nothing given back";
  q.pop_front();
  EXPECT_EQ(q.capacity(), 0U);
  // And it is usable again.
  q.push_back(std::make_unique<int>(5));
  EXPECT_EQ(drain(q), (std::vector<int>{5}));
}

}  // namespace
}  // namespace ibsm::sm::mad
