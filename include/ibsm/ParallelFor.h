// Pure computation split over threads, with results that do not depend on
// how many: [0, n) is cut into chunks of `grain` indices that workers take in
// turn; the body writes only what its indices own (a column, a row, a slot
// per index), and anything it accumulates goes into the scratch of the
// worker that runs it, merged afterwards in worker order only where the sum
// does not depend on which worker ran which chunk (counts, maxima). So one,
// two or eight threads give byte-identical tables and reports.
//
//   const unsigned n = ibsm::threadCount(options.threads);   // 0: all cores
//   std::vector<Scratch> scratch(n);
//   ibsm::parallelFor(n, lids.size(), 64, [&](std::size_t begin, std::size_t end, unsigned w) {
//     for (std::size_t i = begin; i < end; ++i) column(i, scratch[w]);
//   });
//
// Threads are started per call (std::jthread) rather than kept in a pool:
// the calls are few and coarse (one per routing or analysis stage, each tens
// of milliseconds or more), so starting them costs well under 1% and nothing
// idles between sweeps of the live SM.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace ibsm {

// The threads a `threads` setting means: 0 is every core the process may use.
inline unsigned threadCount(unsigned requested) {
  if (requested != 0) return requested;
  return std::max(1u, std::thread::hardware_concurrency());
}

// Runs body(begin, end, worker) over [0, n) in chunks of `grain` on up to
// `threads` threads (the caller's thread is worker 0); returns when all are
// done. The first exception a body throws is rethrown here after the others
// stop taking chunks.
template <typename Body>
void parallelFor(unsigned threads, std::size_t n, std::size_t grain, Body&& body) {
  grain = std::max<std::size_t>(grain, 1);
  const std::size_t chunks = (n + grain - 1) / grain;
  const unsigned workers =
      static_cast<unsigned>(std::min<std::size_t>(threadCount(threads), chunks));
  if (workers <= 1) {
    if (n > 0) body(std::size_t{0}, n, 0u);
    return;
  }
  std::atomic<std::size_t> nextChunk{0};
  std::exception_ptr failure;
  std::mutex failureMutex;
  auto run = [&](unsigned worker) {
    try {
      for (std::size_t c = nextChunk.fetch_add(1); c < chunks; c = nextChunk.fetch_add(1))
        body(c * grain, std::min(n, (c + 1) * grain), worker);
    } catch (...) {
      const std::lock_guard lock(failureMutex);
      if (!failure) failure = std::current_exception();
      nextChunk.store(chunks);
    }
  };
  {
    std::vector<std::jthread> helpers;
    helpers.reserve(workers - 1);
    for (unsigned w = 1; w < workers; ++w) helpers.emplace_back(run, w);
    run(0);
  }
  if (failure) std::rethrow_exception(failure);
}

}  // namespace ibsm
