// config::loadConfigInUse: the file every command reads its options from.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "sm/config/ConfigInUse.h"
#include "tests/sm/config/ScratchFiles.h"

namespace ibsm::sm::config {
namespace {

using ::testing::HasSubstr;

class ConfigInUseTest : public testing::ScratchFiles {};

TEST_F(ConfigInUseTest, AnExplicitFileIsReadAndRemembered) {
  const auto file = write("ibsm.toml", "[routing]\nlmc = 1\n");
  const auto in = loadConfigInUse(file);
  ASSERT_TRUE(in) << in.error().message;
  EXPECT_EQ(in->config.routing.lmc, 1);
  EXPECT_EQ(in->file, file);
}

TEST_F(ConfigInUseTest, AnExplicitFileThatIsMissingIsAnError) {
  const auto missing = path("missing.toml");
  const auto in = loadConfigInUse(missing);
  ASSERT_FALSE(in);
  EXPECT_EQ(in.error().message, missing.string() + ": cannot read config file");
}

TEST_F(ConfigInUseTest, AnExplicitFileWithAnUnknownKeyIsRefusedWithItsLine) {
  const auto file = write("ibsm.toml", "[sm]\npriority = 1\nprioirty = 2\n");
  const auto in = loadConfigInUse(file);
  ASSERT_FALSE(in);
  EXPECT_THAT(in.error().message, HasSubstr(file.string() + ":3: unknown key 'sm.prioirty'"));
}

// Operators read the default path in the man page and in --help; both must
// say the path the commands read.
TEST(DefaultConfigPath, IsTheOneTheManPageNames) {
  std::ifstream man(std::string(IBSM_SOURCE_DIR) + "/man/ibsm.8");
  std::ostringstream text;
  text << man.rdbuf();
  EXPECT_THAT(text.str(), HasSubstr(fmt::format("\n.I {}\n", kDefaultConfigPath)));
}

}  // namespace
}  // namespace ibsm::sm::config
