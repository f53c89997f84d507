// GUID lists as OpenSM reads its root_guid_file, cn_guid_file and
// io_guid_file, so an operator's files from OpenSM work unchanged; the
// examples are tests/data/opensm-conf/*.guids, in OpenSM's exact format.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <ibsm/GuidList.h>

#include <fstream>
#include <sstream>

namespace ibsm {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string dataFile(const std::string& name) {
  std::ifstream in(std::string(IBSM_SOURCE_DIR) + "/tests/data/opensm-conf/" + name);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(GuidList, ReadsOpenSmsRootGuidFile) {
  const std::string text = dataFile("roots.guids");
  ASSERT_FALSE(text.empty());
  const auto g = parseGuidList(text, "roots.guids");
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_THAT(*g, ElementsAre(Guid{0x0002c90300000001}, Guid{0x0002c90300000002},
                              Guid{0x0002c90300000003}));
}

TEST(GuidList, ANodeNameAfterTheGuidIsIgnoredAsOpenSmDoes) {
  const auto cn = parseGuidList(dataFile("cn.guids"), "cn.guids");
  ASSERT_TRUE(cn) << cn.error().message;
  EXPECT_THAT(*cn, ElementsAre(Guid{0x0002c90300000101}, Guid{0x0002c90300000102}));
  const auto io = parseGuidList(dataFile("io.guids"), "io.guids");
  ASSERT_TRUE(io) << io.error().message;
  EXPECT_THAT(*io, ElementsAre(Guid{0x0002c90300000201}));
}

TEST(GuidList, CommentsBlankLinesAndCarriageReturnsAreSkipped) {
  const auto g = parseGuidList("# roots\n\n  0x10\t# spine\r\n0x20#x\n", "r");
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_THAT(*g, ElementsAre(Guid{0x10}, Guid{0x20}));
}

TEST(GuidList, ALineWithoutAGuidNamesFileAndLine) {
  const auto g = parseGuidList("0x10\nspine-2 0x20\n", "roots.guids");
  ASSERT_FALSE(g);
  EXPECT_THAT(g.error().message, HasSubstr("roots.guids:2: expected a GUID"));
  EXPECT_FALSE(parseGuidList("0x0\n", "r"));
}

}  // namespace
}  // namespace ibsm
