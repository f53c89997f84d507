// The `path` control request survives the socket whole: node names with
// spaces, an MGID, the SL; a malformed line is refused with what was wrong.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sm/control/PathRequest.h"

namespace ibsm::sm::control {
namespace {

using ::testing::HasSubstr;

TEST(PathRequest, ALineDecodesToTheRequestEncoded) {
  const PathRequest unicast{
      .json = true, .query = {.sl = 3}, .mgid = {}, .from = "host mlx5_0", .to = "17"};
  EXPECT_EQ(decodePathRequest(encodePathRequest(unicast)).value(), unicast);
  const PathRequest tree{
      .json = false, .query = {}, .mgid = "ff12:401b:ffff::ffff:ffff", .from = "h0", .to = ""};
  EXPECT_EQ(decodePathRequest(encodePathRequest(tree)).value(), tree);
  EXPECT_TRUE(encodePathRequest(tree).starts_with(kPathRequest));
}

// What a PathRecord query names for the SA's QoS match travels whole;
// nothing named stays nothing (the SL the level gives, not SL 0).
TEST(PathRequest, ThePathRecordQueryFieldsSurviveTheLine) {
  const PathRequest asked{
      .json = false,
      .query = {.sl = 2, .serviceId = 0x1000000000001234ULL, .pkey = 0x8001, .qosClass = 200},
      .mgid = {},
      .from = "h0",
      .to = "h1"};
  EXPECT_EQ(decodePathRequest(encodePathRequest(asked)).value(), asked);
  const PathRequest none{.json = false, .query = {}, .mgid = {}, .from = "h0", .to = "h1"};
  const auto back = decodePathRequest(encodePathRequest(none)).value();
  EXPECT_FALSE(back.query.sl.has_value());
  EXPECT_EQ(back, none);
  // A line of the six fields before the query's: nothing named.
  EXPECT_EQ(decodePathRequest("path\ttext\t1\t-\th0\th1").value().query,
            (analysis::PathSlQuery{.sl = 1}));
}

TEST(PathRequest, AMalformedLineSaysWhatWasExpected) {
  EXPECT_THAT(decodePathRequest("path h0 h1").error().message, HasSubstr("expected 'path<TAB>"));
  EXPECT_THAT(decodePathRequest("path\ttext\t16\t-\th0\th1").error().message,
              HasSubstr("SL from 0 to 15"));
  EXPECT_THAT(decodePathRequest("path\ttext\t0\t-\th0\t-").error().message,
              HasSubstr("expected TO"));
  EXPECT_THAT(decodePathRequest("path\ttext\t-\t-\th0\th1\t0x10000\t-\t-").error().message,
              HasSubstr("expected a PKey"));
  EXPECT_THAT(decodePathRequest("path\ttext\t-\t-\th0\th1\t-\t-\t256").error().message,
              HasSubstr("QoS class"));
  EXPECT_THAT(decodePathRequest("path\ttext\t-\t-\th0\th1\t-\tfoo\t-").error().message,
              HasSubstr("ServiceID"));
}

}  // namespace
}  // namespace ibsm::sm::control
