// mad.per_node_window (issue 32): SMPs outstanding to one node at most,
// 1 by default, 0 for no limit, and the file:line error an operator sees
// when it is out of range or not an integer.
#include <gtest/gtest.h>

#include "sm/config/Config.h"

namespace ibsm::sm::config {
namespace {

TEST(MadPerNodeWindowKey, DefaultsToOneSmpPerNode) {
  const auto c = parseConfig("", "empty.toml");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->mad.perNodeWindow, 1u);
}

TEST(MadPerNodeWindowKey, ReadsALimitAndZeroForNone) {
  auto c = parseConfig("[mad]\nper_node_window = 4\n", "m.toml");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->mad.perNodeWindow, 4u);
  c = parseConfig("[mad]\nper_node_window = 0\n", "m.toml");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->mad.perNodeWindow, 0u);
}

TEST(MadPerNodeWindowKey, OutOfRangeOrNotAnIntegerIsRefusedWithItsLine) {
  const std::string expected =
      "m.toml:3: expected mad.per_node_window to be an integer from 0 to 1024";
  for (const char* value : {"-1", "1025", "\"two\"", "1.5"}) {
    auto c =
        parseConfig(std::string("[mad]\nwindow = 64\nper_node_window = ") + value + "\n", "m.toml");
    ASSERT_FALSE(c) << value;
    EXPECT_EQ(c.error().message, expected) << value;
  }
}

TEST(MadPerNodeWindowKey, IsListedWithItsDefault) {
  bool found = false;
  for (const OptionSpec& o : optionTable())
    if (o.key == "mad.per_node_window") {
      found = true;
      EXPECT_EQ(o.defaultValue, "1");
    }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace ibsm::sm::config
