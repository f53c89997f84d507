#include "sm/manager/ProcessMemory.h"

#include <malloc.h>
#include <unistd.h>

#include <fstream>

namespace ibsm::sm::manager {

ProcessMemory readProcessMemory() {
  ProcessMemory m;
  const struct mallinfo2 info = mallinfo2();
  m.heapInUse = info.uordblks + info.hblkhd;
  m.heapFree = info.fordblks;
  // statm: size resident shared text lib data dt, in pages.
  std::ifstream statm("/proc/self/statm");
  std::uint64_t size = 0;
  std::uint64_t resident = 0;
  if (statm >> size >> resident)
    m.rssBytes = resident * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  return m;
}

void releaseFreeMemory() {
  malloc_trim(0);
}

}  // namespace ibsm::sm::manager
