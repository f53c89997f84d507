// ibsm::parallelFor, the one way routing and its analysis use threads:
// every index run exactly once whatever the thread count, no call at all
// for nothing to do, no more workers than chunks, and a body's exception
// brought back to the caller once the others have stopped.
#include <gtest/gtest.h>
#include <ibsm/ParallelFor.h>

#include <atomic>
#include <cstddef>
#include <mutex>
#include <set>
#include <stdexcept>
#include <vector>

namespace ibsm {
namespace {

TEST(ParallelFor, RunsEveryIndexOnceOnAnyThreadCount) {
  for (const unsigned threads : {0u, 1u, 2u, 4u, 8u}) {
    std::vector<int> runs(1000, 0);
    parallelFor(threads, runs.size(), 7, [&](std::size_t begin, std::size_t end, unsigned) {
      for (std::size_t i = begin; i < end; ++i) ++runs[i];
    });
    for (std::size_t i = 0; i < runs.size(); ++i)
      ASSERT_EQ(runs[i], 1) << "index " << i << " on " << threads << " threads";
  }
}

TEST(ParallelFor, CallsNoBodyForNothing) {
  int calls = 0;
  parallelFor(4, 0, 16, [&](std::size_t, std::size_t, unsigned) { ++calls; });
  EXPECT_EQ(calls, 0);
}

TEST(ParallelFor, StartsNoMoreWorkersThanChunks) {
  std::mutex m;
  std::set<unsigned> workers;
  std::vector<std::pair<std::size_t, std::size_t>> chunks;
  parallelFor(8, 10, 4, [&](std::size_t begin, std::size_t end, unsigned w) {
    const std::lock_guard lock(m);
    workers.insert(w);
    chunks.emplace_back(begin, end);
  });
  EXPECT_EQ(chunks.size(), 3u);  // [0,4) [4,8) [8,10)
  for (const unsigned w : workers) EXPECT_LT(w, 3u);
  std::size_t covered = 0;
  for (const auto& [b, e] : chunks) {
    EXPECT_LE(e - b, 4u);
    covered += e - b;
  }
  EXPECT_EQ(covered, 10u);
}

TEST(ParallelFor, ZeroGrainIsOneIndexAChunk) {
  std::atomic<int> calls{0};
  parallelFor(2, 5, 0, [&](std::size_t begin, std::size_t end, unsigned) {
    EXPECT_EQ(end - begin, 1u);
    ++calls;
  });
  EXPECT_EQ(calls.load(), 5);
}

TEST(ParallelFor, RethrowsABodysExceptionAndStopsHandingOutChunks) {
  for (const unsigned threads : {1u, 2u, 4u}) {
    std::atomic<int> chunksRun{0};
    EXPECT_THROW(parallelFor(threads, 10000, 1,
                             [&](std::size_t begin, std::size_t end, unsigned) {
                               ++chunksRun;
                               if (begin <= 3 && 3 < end) throw std::runtime_error("bad index");
                             }),
                 std::runtime_error)
        << threads << " threads";
    EXPECT_LT(chunksRun.load(), 10000) << threads << " threads";
  }
}

TEST(ParallelFor, ThreadCountZeroMeansEveryCore) {
  EXPECT_GE(threadCount(0), 1u);
  EXPECT_EQ(threadCount(3), 3u);
}

}  // namespace
}  // namespace ibsm
