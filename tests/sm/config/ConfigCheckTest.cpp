// `ibsm config check`: a config passes only if `ibsm run` would start with
// it, the files it names included; the first problem is named by file and line.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "sm/config/ConfigCheck.h"
#include "tests/sm/config/ScratchFiles.h"

namespace ibsm::sm::config {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

class ConfigCheck : public testing::ScratchFiles {};

TEST_F(ConfigCheck, AConfigAndTheFilesItNamesPass) {
  const auto roots = write("roots.guids", "0x0002c90300000001 spine-1\n0x0002c90300000002\n");
  const auto parts =
      write("p.conf", "Default=0x7fff, ipoib : ALL=full;\nstorage=0x10 : ALL_CAS;\n");
  const auto toml = write("ibsm.toml", fmt::format("[sm]\npriority = 3\npartitions_file = \"{}\"\n"
                                                   "[routing]\nroot_guid_file = \"{}\"\n",
                                                   parts.string(), roots.string()));
  const auto s = checkConfigFile(toml);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->keys, 3u);
  EXPECT_EQ(s->partitions, 2u);
  EXPECT_EQ(s->rootGuids, 2u);
  EXPECT_EQ(s->filesRead, 2u);
}

// The M_Key secret a config names is read as `ibsm run` reads it: a file
// others may read is refused before the daemon is ever started with it.
TEST_F(ConfigCheck, TheMKeySecretFileItNamesIsReadAndItsModeChecked) {
  const auto secret = write("mkey.secret", std::string(64, 'a') + "\n");
  ::chmod(secret.c_str(), 0644);
  const auto toml =
      write("ibsm.toml", fmt::format("[sm]\nm_key_secret_file = \"{}\"\n", secret.string()));
  auto s = checkConfigFile(toml);
  ASSERT_FALSE(s);
  EXPECT_THAT(s.error().message, StartsWith(secret.string() + ": mode 0644"));
  ::chmod(secret.c_str(), 0600);
  s = checkConfigFile(toml);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->filesRead, 1u);
  std::filesystem::remove(secret);
  s = checkConfigFile(toml);
  ASSERT_FALSE(s);
  EXPECT_THAT(s.error().message, StartsWith(secret.string() + ": no such file"));
}

TEST_F(ConfigCheck, AnUnknownKeyNamesTheConfigAndLine) {
  const auto toml = write("ibsm.toml", "[sm]\npriority = 3\npriorty = 7\n");
  const auto s = checkConfigFile(toml);
  ASSERT_FALSE(s);
  EXPECT_THAT(s.error().message, StartsWith(toml.string() + ":3: unknown key 'sm.priorty'"));
}

TEST_F(ConfigCheck, ABadPartitionsFileNamesItsOwnLine) {
  const auto parts = write("p.conf", "Default=0x7fff : ALL;\nbroken=0x10 ALL;\n");
  const auto toml =
      write("ibsm.toml", fmt::format("[sm]\npartitions_file = \"{}\"\n", parts.string()));
  const auto s = checkConfigFile(toml);
  ASSERT_FALSE(s);
  EXPECT_THAT(s.error().message, StartsWith(parts.string() + ":2: "));
}

TEST_F(ConfigCheck, ABadRootGuidListNamesItsOwnLine) {
  const auto roots = write("roots.guids", "0x0002c90300000001\nspine-2\n");
  const auto toml =
      write("ibsm.toml", fmt::format("[routing]\nroot_guid_file = \"{}\"\n", roots.string()));
  const auto s = checkConfigFile(toml);
  ASSERT_FALSE(s);
  EXPECT_THAT(s.error().message, StartsWith(roots.string() + ":2: "));
}

TEST_F(ConfigCheck, AMissingFileItNamesIsAnError) {
  const auto toml = write("ibsm.toml", "[sm]\npartitions_file = \"/nonexistent/p.conf\"\n");
  const auto s = checkConfigFile(toml);
  ASSERT_FALSE(s);
  EXPECT_THAT(s.error().message, HasSubstr("/nonexistent/p.conf"));
}

TEST_F(ConfigCheck, AnEngineIbsmLacksIsNamed) {
  const auto toml = write("ibsm.toml", "[routing]\nengine = [\"dfsssp\"]\n");
  const auto s = checkConfigFile(toml);
  ASSERT_FALSE(s);
  EXPECT_THAT(s.error().message, HasSubstr(toml.string()));
  EXPECT_THAT(s.error().message, HasSubstr("unknown routing engine 'dfsssp'"));
}

TEST_F(ConfigCheck, ABadTomlPartitionTableNamesTheConfigAndLine) {
  const auto toml = write("ibsm.toml", "[sm]\npriority = 1\n\n[[partition]]\nname = \"a\"\n");
  const auto s = checkConfigFile(toml);
  ASSERT_FALSE(s);
  EXPECT_THAT(s.error().message, StartsWith(toml.string() + ":"));
}

}  // namespace
}  // namespace ibsm::sm::config
