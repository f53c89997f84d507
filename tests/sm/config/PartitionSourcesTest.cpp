// config::readPartitionSources: the one rule by which `ibsm run` (at start
// and on SIGHUP) and `ibsm partitions` find the partitions to manage. The
// partitions file is --partitions, else sm.partitions_file of the config in
// use; the config's [[partition]] tables are added; naming nothing means
// the default partition is managed as OpenSM manages it then.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sm/config/PartitionSources.h"
#include "tests/sm/config/ScratchFiles.h"

namespace ibsm::sm::config {
namespace {

using ::testing::HasSubstr;

class PartitionSources : public testing::ScratchFiles {
 protected:
  // The config in use, read from a file as the commands read it.
  ConfigInUse configFile(const std::string& toml) const {
    auto in = loadConfigInUse(write("ibsm.toml", toml));
    EXPECT_TRUE(in) << in.error().message;
    return in.value_or(ConfigInUse{});
  }
  static std::vector<std::uint16_t> pkeys(const partition::PartitionConfig& c) {
    std::vector<std::uint16_t> out;
    for (const auto& p : c.partitions) out.push_back(p.pkey);
    return out;
  }
  static constexpr const char* kTomlPartition =
      "[[partition]]\nname = \"storage\"\npkey = 0x0b0b\nmembers = [\"ALL_CAS\"]\n";
};

TEST_F(PartitionSources, NothingNamedMeansTheDefaultPartitionWithIpoibAsOpenSm) {
  const auto none = readPartitionSources(ConfigInUse{}, std::nullopt);
  ASSERT_TRUE(none) << none.error().message;
  ASSERT_EQ(none->partitions.size(), 1U);
  const auto& d = none->partitions[0];
  EXPECT_EQ(d.pkey, 0x7fff);
  EXPECT_TRUE(d.ipoib);
  ASSERT_EQ(d.members.size(), 1U);
  EXPECT_EQ(d.members[0].kind, partition::MemberSpec::Kind::All);
  EXPECT_EQ(d.members[0].membership, partition::Membership::Full);

  const auto configWithoutPartitions = readPartitionSources(configFile("[sm]\npriority = 3\n"), {});
  ASSERT_TRUE(configWithoutPartitions) << configWithoutPartitions.error().message;
  EXPECT_EQ(pkeys(*configWithoutPartitions), std::vector<std::uint16_t>{0x7fff});
}

TEST_F(PartitionSources, TheConfigsPartitionsFileAndItsTablesAreMerged) {
  const auto conf = write("partitions.conf", "mix=0x0a0a : ALL=full ;\n");
  const auto in =
      configFile(fmt::format("{}[sm]\npartitions_file = \"{}\"\n", kTomlPartition, conf.string()));
  const auto p = readPartitionSources(in, std::nullopt);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(pkeys(*p), (std::vector<std::uint16_t>{0x0a0a, 0x0b0b}));
}

TEST_F(PartitionSources, ThePartitionsFlagReplacesTheConfigsPartitionsFile) {
  const auto configured = write("configured.conf", "old=0x0c0c : ALL ;\n");
  const auto given = write("given.conf", "new=0x0d0d : ALL ;\n");
  const auto in = configFile(
      fmt::format("{}[sm]\npartitions_file = \"{}\"\n", kTomlPartition, configured.string()));
  const auto p = readPartitionSources(in, given);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(pkeys(*p), (std::vector<std::uint16_t>{0x0d0d, 0x0b0b}));
}

TEST_F(PartitionSources, TablesAloneAreManaged) {
  const auto p = readPartitionSources(configFile(kTomlPartition), std::nullopt);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(pkeys(*p), std::vector<std::uint16_t>{0x0b0b});
}

TEST_F(PartitionSources, AFileThatDefinesNothingStillManagesTheDefaultPartition) {
  const auto empty = write("empty.conf", "# nothing yet\n");
  const auto p = readPartitionSources(ConfigInUse{}, empty);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_TRUE(p->partitions.empty());
}

TEST_F(PartitionSources, APKeyDefinedDifferentlyInBothIsAnErrorNamingBothPlaces) {
  const auto conf = write("partitions.conf", "storage=0x0b0b : ALL=full ;\n");
  const auto in = configFile(kTomlPartition);
  const auto p = readPartitionSources(in, conf);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().message,
            fmt::format("{}:1: PKey 0x0b0b ('storage') is also defined at {}:1 ('storage'), "
                        "differently; define it in one place",
                        in.file->string(), conf.string()));
}

TEST_F(PartitionSources, APKeyDefinedAlikeInBothIsOnePartition) {
  const auto conf = write("partitions.conf", "storage=0x0b0b : ALL_CAS ;\n");
  const auto p = readPartitionSources(configFile(kTomlPartition), conf);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(pkeys(*p), std::vector<std::uint16_t>{0x0b0b});
}

TEST_F(PartitionSources, ABadOrMissingPartitionsFileIsNamed) {
  const auto bad = write("bad.conf", "good=0x0a0a : ALL ;\nbad=0x1zz : ALL_CAS ;\n");
  const auto p = readPartitionSources(ConfigInUse{}, bad);
  ASSERT_FALSE(p);
  EXPECT_THAT(p.error().message, HasSubstr(bad.string() + ":2"));

  const auto missing = path("missing.conf");
  const auto in = configFile(fmt::format("[sm]\npartitions_file = \"{}\"\n", missing.string()));
  const auto m = readPartitionSources(in, std::nullopt);
  ASSERT_FALSE(m);
  EXPECT_THAT(m.error().message, HasSubstr(missing.string()));
}

}  // namespace
}  // namespace ibsm::sm::config
