// What a PathRecord Get costs in allocations (issue 32: no allocation per
// query but the answer): the responder decodes each request into a kept
// buffer, finds the paths into a kept vector and encodes their records in
// place, so the answer it returns is its one allocation; the fair queue
// keeps the buffers and queues of requests it served for the next ones.
// Counted by this program's own operator new.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "sm/sa/FairQueue.h"
#include "sm/sa/PathRecords.h"
#include "tests/sm/sa/SaFixture.h"

namespace {
std::atomic<std::size_t> allocations{0};
}  // namespace

void* operator new(std::size_t n) {
  ++allocations;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
// The nothrow form too (std::stable_sort's temporary buffer takes it): left
// to the sanitizer's runtime, its blocks would come back through the delete
// below, an alloc-dealloc mismatch under ASan.
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  ++allocations;
  return std::malloc(n == 0 ? 1 : n);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}

namespace ibsm::sm::sa {
namespace {

using testing::SaFixture;

TEST(SaAllocation, APathRecordGetAllocatesOnlyTheAnswerItReturns) {
  SaFixture sa(FatTreeSpec{.levels = 3, .radix = 8});
  std::vector<std::vector<std::uint8_t>> requests;
  for (std::size_t to = 0; to < sa.hosts.size(); ++to) {
    PathRecord q;
    q.sgid = sa.gidOfHost(0);
    q.dgid = sa.gidOfHost(to);
    requests.push_back(SaFixture::request(saMethod::kGet, saAttr::kPathRecord,
                                          prMask::kSgid | prMask::kDgid, encodeRecord(q)));
  }
  ASSERT_TRUE(sa.responder.answer(requests[1], sa.from));  // the kept buffers grow once
  std::size_t answered = 0;
  const std::size_t before = allocations;
  for (const auto& request : requests) {
    auto reply = sa.responder.answer(request, sa.from);
    answered += reply.has_value() && (*reply)[4] == 0 && (*reply)[5] == 0;  // status OK
  }
  const std::size_t used = allocations - before;
  EXPECT_EQ(answered, requests.size());
  EXPECT_EQ(used, requests.size());
}

TEST(SaAllocation, TheFairQueueReusesWhatItServedForTheNextRequests) {
  FairQueue queue;
  ReceivedGmp gmp;
  gmp.mad.assign(256, 0x5A);
  const auto serve = [&](std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
      gmp.from.lid = Lid{static_cast<std::uint16_t>(1 + i % 3)};  // three requesters in turn
      queue.push(gmp, {});
      if (i % 4 == 3) {
        while (auto next = queue.pop()) queue.recycle(std::move(*next));
      }
    }
  };
  serve(64);  // the spares are made
  const std::size_t before = allocations;
  serve(1000);
  const std::size_t used = allocations - before;
  // Before the spares: a map node, a deque and a buffer per request at
  // least (3000). What is left is the deques' blocks as they move on.
  EXPECT_LT(used, 1000U / 4);
  EXPECT_EQ(queue.counters().queued, 1064U);
}

}  // namespace
}  // namespace ibsm::sm::sa
