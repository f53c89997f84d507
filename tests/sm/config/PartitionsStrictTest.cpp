// partitions.strict: the one key that says how the partitions file is read,
// through the one function every command reads partitions with (`ibsm run`,
// `ibsm partitions`, `ibsm config check`). Default: what OpenSM would read
// past refuses the file; false: it is read past and listed for the warning.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sm/config/ConfigCheck.h"
#include "sm/config/PartitionSources.h"
#include "tests/sm/config/ScratchFiles.h"

namespace ibsm::sm::config {
namespace {

using ::testing::HasSubstr;

class PartitionsStrict : public testing::ScratchFiles {
 protected:
  std::filesystem::path configNaming(const std::string& partitions, const std::string& extra) {
    const auto file = write("p.conf", partitions);
    return write("ibsm.toml",
                 fmt::format("[sm]\npartitions_file = \"{}\"\n{}", file.string(), extra));
  }
  static constexpr const char* kUnknownFlag = "Default=0x7fff, ipoib, mtu=5, fast : ALL=full;\n";
};

TEST_F(PartitionsStrict, TheKeyIsReadAndIsTrueByDefault) {
  EXPECT_TRUE(parseConfig("", "a.toml")->partitions.strict);
  const auto off = parseConfig("[partitions]\nstrict = false\n", "a.toml");
  ASSERT_TRUE(off) << off.error().message;
  EXPECT_FALSE(off->partitions.strict);
  const auto bad = parseConfig("[partitions]\nstrict = \"no\"\n", "a.toml");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "a.toml:2: expected partitions.strict to be true or false");
}

TEST_F(PartitionsStrict, ByDefaultAnItemOpenSmReadsPastRefusesTheFile) {
  auto in = loadConfigInUse(configNaming(kUnknownFlag, ""));
  ASSERT_TRUE(in) << in.error().message;
  const auto read = readPartitionSources(*in, std::nullopt);
  ASSERT_FALSE(read);
  EXPECT_THAT(read.error().message, HasSubstr("p.conf:1: unknown partition flag 'fast'"));
  EXPECT_THAT(read.error().message, HasSubstr("OpenSM would ignore this flag"));
}

TEST_F(PartitionsStrict, NotStrictTheItemIsReadPastAndListed) {
  auto in = loadConfigInUse(configNaming(kUnknownFlag, "[partitions]\nstrict = false\n"));
  ASSERT_TRUE(in) << in.error().message;
  const auto read = readPartitionSources(*in, std::nullopt);
  ASSERT_TRUE(read) << read.error().message;
  ASSERT_EQ(read->partitions.size(), 1u);
  EXPECT_EQ(read->partitions[0].mtu, 5);
  ASSERT_EQ(read->ignored.size(), 1u);
  EXPECT_THAT(read->ignored[0].where, HasSubstr("p.conf:1"));
  // config check lists them too.
  const auto checked = checkConfigFile(*in->file);
  ASSERT_TRUE(checked) << checked.error().message;
  EXPECT_EQ(checked->partitionsIgnored.size(), 1u);
}

TEST_F(PartitionsStrict, NotStrictALineOpenSmCannotParseStillRefusesTheFile) {
  auto in = loadConfigInUse(
      configNaming("Default=0x7fff : ALL;\nbad=0x10 ALL;\n", "[partitions]\nstrict = false\n"));
  ASSERT_TRUE(in) << in.error().message;
  const auto read = readPartitionSources(*in, std::nullopt);
  ASSERT_FALSE(read);
  EXPECT_THAT(read.error().message, HasSubstr("p.conf:2: "));
  EXPECT_THAT(read.error().message, HasSubstr("OpenSM would drop the whole file"));
}

}  // namespace
}  // namespace ibsm::sm::config
