// The [qos] keys: opensm.conf's qos_* options in their own value syntax, the
// per-type keys unset (0, -1, "") leaving the general ones, and a bad value
// refused with file:line, the key and what was expected.
#include <gtest/gtest.h>

#include "sm/config/Config.h"

namespace ibsm::sm::config {
namespace {

TEST(QosConfig, OffByDefaultWithOpenSmsTables) {
  const auto c = parseConfig("", "empty.toml");
  ASSERT_TRUE(c);
  EXPECT_FALSE(c->qosOptions.enabled);
  const auto swe = c->qosOptions.tablesFor(qos::QosPortType::SwitchExternal);
  EXPECT_EQ(swe.high[0], (qos::VlWeight{0, 4}));
  EXPECT_EQ(swe.low[14], (qos::VlWeight{14, 4}));
  EXPECT_EQ(swe.sl2vl[15], 7);
  EXPECT_EQ(swe.highLimit, 0);
}

TEST(QosConfig, ReadsTheGeneralAndPerTypeKeys) {
  const auto c = parseConfig(
      "[qos]\nenabled = true\nhigh_limit = 255\nvlarb_low = \"0:32,1:32\"\n"
      "ca_sl2vl = \"0,0,0,0,1,1,1,1,2,2,2,2,3,3,3,15\"\nswe_high_limit = 4\n"
      "rtr_vlarb_high = \"\"\nsw0_max_vls = 0\n",
      "q.toml");
  ASSERT_TRUE(c) << c.error().message;
  const auto& o = c->qosOptions;
  EXPECT_TRUE(o.enabled);
  EXPECT_EQ(o.all.highLimit, 255);
  EXPECT_EQ(o.all.vlarbLow, (std::vector<qos::VlWeight>{{0, 32}, {1, 32}}));
  EXPECT_EQ(o.ca.sl2vl->at(15), 15);
  EXPECT_EQ(o.swe.highLimit, 4);
  EXPECT_FALSE(o.rtr.vlarbHigh);
  EXPECT_FALSE(o.sw0.maxVls);
  EXPECT_EQ(o.tablesFor(qos::QosPortType::Router).highLimit, 255);
  EXPECT_EQ(o.tablesFor(qos::QosPortType::SwitchExternal).highLimit, 4);
}

TEST(QosConfig, ABadValueNamesTheLineTheKeyAndWhatWasExpected) {
  const auto vlarb = parseConfig("[qos]\nenabled = true\nswe_vlarb_low = \"0:4,15:4\"\n", "q.toml");
  ASSERT_FALSE(vlarb);
  EXPECT_NE(vlarb.error().message.find("q.toml:3"), std::string::npos) << vlarb.error().message;
  EXPECT_NE(vlarb.error().message.find("qos.swe_vlarb_low: expected up to 64 VL:weight pairs"),
            std::string::npos)
      << vlarb.error().message;
  const auto sl2vl = parseConfig("[qos]\nsl2vl = \"0,1,2\"\n", "q.toml");
  ASSERT_FALSE(sl2vl);
  EXPECT_NE(sl2vl.error().message.find("qos.sl2vl: expected 16 VLs"), std::string::npos);
  // The general tables have no "unset".
  EXPECT_FALSE(parseConfig("[qos]\nvlarb_high = \"\"\n", "q.toml"));
  EXPECT_FALSE(parseConfig("[qos]\nmax_vls = 0\n", "q.toml"));
  EXPECT_FALSE(parseConfig("[qos]\nca_high_limit = 256\n", "q.toml"));
}

}  // namespace
}  // namespace ibsm::sm::config
