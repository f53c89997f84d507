// The requester's queue: first in, first out; a retry put back at the head
// comes out first; order survives the ring wrapping and growing; once it
// has held its high-water mark it allocates no more; an entry taken out
// leaves nothing of itself in its slot.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "sm/mad/RequestRing.h"

namespace ibsm::sm::mad {
namespace {

std::vector<int> drain(RequestRing<int>& q) {
  std::vector<int> out;
  while (!q.empty()) out.push_back(q.take_front());
  return out;
}

TEST(RequestRingTest, TakesOutInTheOrderPutIn) {
  RequestRing<int> q;
  for (int i = 1; i <= 5; ++i) q.push_back(i);
  EXPECT_EQ(q.size(), 5U);
  EXPECT_EQ(drain(q), (std::vector<int>{1, 2, 3, 4, 5}));
  EXPECT_TRUE(q.empty());
}

TEST(RequestRingTest, AnEntryPutBackAtTheHeadComesOutFirst) {
  RequestRing<int> q;
  q.push_back(2);
  q.push_back(3);
  q.push_front(1);
  EXPECT_EQ(q[0], 1);
  EXPECT_EQ(q[2], 3);
  EXPECT_EQ(drain(q), (std::vector<int>{1, 2, 3}));
}

TEST(RequestRingTest, KeepsItsOrderWhenItGrowsWhileWrapped) {
  RequestRing<int> q;
  int next = 0;
  std::vector<int> out;
  // Wrap the ring: take some out, put more in, several times its capacity.
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 10; ++i) q.push_back(next++);
    for (int i = 0; i < 7; ++i) out.push_back(q.take_front());
  }
  // Now grow it while its head is in the middle of the slots.
  for (int i = 0; i < 40; ++i) q.push_back(next++);
  q.push_front(-1);
  const std::vector<int> rest = drain(q);
  ASSERT_EQ(rest.front(), -1);
  out.insert(out.end(), rest.begin() + 1, rest.end());
  std::vector<int> expected(static_cast<std::size_t>(next));
  for (int i = 0; i < next; ++i) expected[static_cast<std::size_t>(i)] = i;
  EXPECT_EQ(out, expected);
}

TEST(RequestRingTest, AllocatesNothingMoreOnceItHasHeldItsHighWaterMark) {
  RequestRing<int> q;
  for (int i = 0; i < 100; ++i) q.push_back(i);
  drain(q);
  const std::size_t capacity = q.capacity();
  EXPECT_GE(capacity, 100U);
  // A requester's steady state: one in, one out, far more than the capacity.
  for (int i = 0; i < 10000; ++i) {
    q.push_back(i);
    if (i % 3 == 0) q.push_front(-i);
    q.take_front();
    if (i % 3 == 0) q.take_front();
  }
  EXPECT_EQ(q.capacity(), capacity);
}

TEST(RequestRingTest, AnEntryTakenOutLeavesNothingOfItselfBehind) {
  RequestRing<std::shared_ptr<int>> q;
  auto held = std::make_shared<int>(7);
  q.push_back(held);
  q.push_back(std::make_shared<int>(8));
  EXPECT_EQ(held.use_count(), 2);
  { auto taken = q.take_front(); }
  EXPECT_EQ(held.use_count(), 1);  // the slot released its copy with the entry
  q.clear();
  EXPECT_TRUE(q.empty());
}

}  // namespace
}  // namespace ibsm::sm::mad
