// The seed corpus of SmpFuzz is what the codecs' encoders make today
// (SmpSeeds.h): a codec that changes its bytes changes the seeds, and the
// committed files must follow (`SmpCorpus tests/fuzz/corpus/SmpFuzz`).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "tests/fuzz/SmallSubnet.h"
#include "tests/fuzz/SmpSeeds.h"

namespace ibsm::fuzz {
namespace {

std::vector<std::uint8_t> readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(SmpSeeds, TheCommittedCorpusIsWhatTheEncodersMake) {
  const std::filesystem::path dir = IBSM_SMP_CORPUS;
  std::set<std::string> named;
  for (const SmpSeed& seed : smpSeeds()) {
    named.insert(seed.name);
    EXPECT_EQ(readFile(dir / seed.name), seed.bytes) << seed.name << " differs: run SmpCorpus";
  }
  for (const auto& file : std::filesystem::directory_iterator(dir)) {
    const std::string name = file.path().filename().string();
    if (name.starts_with("regression-")) continue;
    EXPECT_TRUE(named.contains(name)) << name << " is no seed of SmpSeeds.cpp any more";
  }
}

TEST(SmpSeeds, TheLidsTheSeedsNameAreTheFabricsLids) {
  const SubnetPlan plan = smallSubnetOrDie();
  EXPECT_EQ(plan.fabric.port({0, 0}).lid, kSwitchLid);
  EXPECT_EQ(plan.fabric.port({1, 1}).lid, kHost1Lid);
  EXPECT_EQ(plan.fabric.port({2, 1}).lid, kHost2Lid);
  EXPECT_EQ(plan.fabric.port({3, 1}).lid, kHost3Lid);
}

TEST(SmpSeeds, EveryListedSeedIsThere) {
  std::set<std::string> names;
  for (const SmpSeed& seed : smpSeeds()) names.insert(seed.name);
  for (const char* want :
       {"get-sminfo", "set-handover", "set-acknowledge", "set-disable", "set-standby",
        "set-discover", "trap-64", "trap-65", "trap-128", "trap-144", "trap-256-bad-mkey",
        "trap-257-bad-pkey", "trap-258-bad-qkey", "trap-128-wrong-mkey"})
    EXPECT_TRUE(names.contains(want)) << want;
}

}  // namespace
}  // namespace ibsm::fuzz
