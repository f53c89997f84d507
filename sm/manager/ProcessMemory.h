// What the daemon process holds in memory, for the status and the soak:
// the resident set as the kernel counts it, and glibc's heap split into
// what is in use and what is free but kept. The two tell a leak (in use
// grows) from allocator retention (free grows, in use flat).
//
//   const ProcessMemory m = readProcessMemory();
//   releaseFreeMemory();   // after a heavy sweep: the free pages go back
#pragma once

#include <cstdint>

namespace ibsm::sm::manager {

struct ProcessMemory {
  std::uint64_t rssBytes{0};  // 0 where /proc/self/statm cannot be read
  // glibc's figures; 0 under another allocator (ASan's, tcmalloc, jemalloc).
  std::uint64_t heapInUse{0};  // allocated and not freed (mallinfo2 uordblks + hblkhd)
  std::uint64_t heapFree{0};   // freed, still held by the allocator (fordblks)
};

ProcessMemory readProcessMemory();

// Returns the allocator's free pages to the kernel (malloc_trim). A heavy
// sweep of a big fabric allocates tens of megabytes for a moment (the walk,
// the plan, the diff); glibc keeps the freed pages, fragmented between
// long-lived blocks, so the RSS would stay at the highest sweep's mark.
void releaseFreeMemory();

}  // namespace ibsm::sm::manager
