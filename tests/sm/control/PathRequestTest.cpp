// The `path` control request survives the socket whole: node names with
// spaces, an MGID, the SL; a malformed line is refused with what was wrong.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sm/control/PathRequest.h"

namespace ibsm::sm::control {
namespace {

using ::testing::HasSubstr;

TEST(PathRequest, ALineDecodesToTheRequestEncoded) {
  const PathRequest unicast{.json = true, .sl = 3, .mgid = {}, .from = "host mlx5_0", .to = "17"};
  EXPECT_EQ(decodePathRequest(encodePathRequest(unicast)).value(), unicast);
  const PathRequest tree{
      .json = false, .sl = 0, .mgid = "ff12:401b:ffff::ffff:ffff", .from = "h0", .to = ""};
  EXPECT_EQ(decodePathRequest(encodePathRequest(tree)).value(), tree);
  EXPECT_TRUE(encodePathRequest(tree).starts_with(kPathRequest));
}

TEST(PathRequest, AMalformedLineSaysWhatWasExpected) {
  EXPECT_THAT(decodePathRequest("path h0 h1").error().message, HasSubstr("expected 'path<TAB>"));
  EXPECT_THAT(decodePathRequest("path\ttext\t16\t-\th0\th1").error().message,
              HasSubstr("SL from 0 to 15"));
  EXPECT_THAT(decodePathRequest("path\ttext\t0\t-\th0\t-").error().message,
              HasSubstr("expected TO"));
}

}  // namespace
}  // namespace ibsm::sm::control
