// Writes SmpFuzz's seed corpus (SmpSeeds.h) into the folder given:
//   build/tests/fuzz/SmpCorpus tests/fuzz/corpus/SmpFuzz
// Files named regression-* there are inputs that once broke the rig's
// promises, kept as found; this program leaves them alone.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "tests/fuzz/SmpSeeds.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: SmpCorpus <folder>\n");
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  const auto seeds = ibsm::fuzz::smpSeeds();
  for (const auto& seed : seeds) {
    std::ofstream out(dir / seed.name, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(seed.bytes.data()),
              static_cast<std::streamsize>(seed.bytes.size()));
    if (!out) {
      std::fprintf(stderr, "SmpCorpus: cannot write %s\n", (dir / seed.name).c_str());
      return 1;
    }
  }
  std::printf("%zu seeds in %s\n", seeds.size(), dir.c_str());
  return 0;
}
