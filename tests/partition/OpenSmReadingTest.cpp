// partitions.conf as OpenSM reads it (opensm/osm_prtn_config.c): it reads
// past an unknown flag, a value it cannot take, an mgid= group it cannot
// create, an unknown membership, an empty member and a missing last ';',
// and drops the whole file for its default partition on a line it cannot
// parse at all. ibsm refuses both by default, saying what OpenSM would have
// done; with partitions.strict = false it reads past what OpenSM reads past,
// listing each item, and still refuses what OpenSM would have dropped.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <ibsm/Partitions.h>

#include <string>

namespace ibsm::partition {
namespace {

using ::testing::HasSubstr;

constexpr PartitionsFileOptions kLenient{.strict = false};

std::string strictError(std::string_view text) {
  auto c = parsePartitionsFile(text, "p.conf");
  EXPECT_FALSE(c.has_value()) << "accepted:\n" << text;
  return c ? std::string{} : c.error().message;
}

PartitionConfig lenient(std::string_view text) {
  auto c = parsePartitionsFile(text, "p.conf", kLenient);
  if (!c) ADD_FAILURE() << c.error().message;
  return c.value_or(PartitionConfig{});
}

// The case: OpenSM takes ", mgid=B" for a flag of group A and
// ignores it, so B is never created, without a word.
constexpr std::string_view kSecondGroupOnALine =
    "Default=0x7fff, ipoib : ALL=full;\n"
    "storage=0x10 : ALL_CAS,\n"
    "  mgid=ff12:601b::1,mtu=4 , mgid=ff12:601b::2;\n";

TEST(OpenSmReading, ASecondGroupOnALineIsRefusedNamingWhatOpenSmWouldDo) {
  EXPECT_THAT(strictError(kSecondGroupOnALine),
              HasSubstr("p.conf:3: a second group 'mgid=ff12:601b::2' after ',' on the line of "
                        "another (one mgid= a line); OpenSM would take it for an unknown flag of "
                        "the first group and ignore it: the group is never created"));
}

TEST(OpenSmReading, NotStrictASecondGroupOnALineIsLostAsInOpenSmButListed) {
  const auto c = lenient(kSecondGroupOnALine);
  ASSERT_EQ(c.partitions.size(), 2u);
  ASSERT_EQ(c.partitions[1].groups.size(), 1u);
  EXPECT_EQ(c.partitions[1].groups[0].mtu, 4);
  ASSERT_EQ(c.ignored.size(), 1u);
  EXPECT_EQ(c.ignored[0].where, "p.conf:3");
  EXPECT_THAT(c.ignored[0].what, HasSubstr("mgid=ff12:601b::2"));
  EXPECT_THAT(c.ignored[0].what, HasSubstr("as OpenSM would"));
}

TEST(OpenSmReading, AnUnknownFlagIsRefusedOrIgnoredAsOpenSmIgnoresIt) {
  constexpr std::string_view text = "a=0x1, ipob, mtu=4 : ALL;";
  EXPECT_THAT(strictError(text), HasSubstr("p.conf:1: unknown partition flag 'ipob'"));
  EXPECT_THAT(strictError(text), HasSubstr("OpenSM would ignore this flag"));
  const auto c = lenient(text);
  ASSERT_EQ(c.partitions.size(), 1u);
  EXPECT_FALSE(c.partitions[0].ipoib);
  EXPECT_EQ(c.partitions[0].mtu, 4);
  ASSERT_EQ(c.ignored.size(), 1u);
  EXPECT_THAT(c.ignored[0].what, HasSubstr("'ipob'"));
}

TEST(OpenSmReading, NotStrictEachItemOpenSmReadsPastIsSkippedAndListed) {
  const auto c = lenient(
      "a=0x1, mtu=3000, ipoib=1, sl=99 : ALL_CAS=fuul, , 0x10=full,\n"
      "  mgid=fe80::1\n"
      "  , SELF;\n"
      "b=0x2, rate=3 : mgid=ff12::5, tclass=x, sl2=1\n");
  ASSERT_EQ(c.partitions.size(), 2u);
  const PartitionDef& a = c.partitions[0];
  EXPECT_FALSE(a.mtu);                                      // skipped
  EXPECT_TRUE(a.ipoib);                                     // value ignored
  EXPECT_FALSE(a.sl);                                       // skipped
  ASSERT_EQ(a.members.size(), 3u);                          // the empty one skipped
  EXPECT_EQ(a.members[0].membership, Membership::Limited);  // fuul: limited
  EXPECT_EQ(a.members[1].membership, Membership::Full);
  EXPECT_TRUE(a.groups.empty());            // fe80::1 is not multicast: not created
  const PartitionDef& b = c.partitions[1];  // its missing ';' read as if there
  EXPECT_EQ(b.rate, 3);
  ASSERT_EQ(b.groups.size(), 1u);
  EXPECT_FALSE(b.groups[0].tclass);
  std::vector<std::string> where;
  for (const auto& i : c.ignored) where.push_back(i.where);
  EXPECT_EQ(where,
            (std::vector<std::string>{"p.conf:1", "p.conf:1", "p.conf:1", "p.conf:1", "p.conf:1",
                                      "p.conf:2", "p.conf:3", "p.conf:4", "p.conf:4", "p.conf:4"}));
}

TEST(OpenSmReading, ALineOpenSmCannotParseIsRefusedEitherWay) {
  for (const std::string_view text :
       {"a=0x1 ALL;", "a=zz : ALL;", "a=0x1, , mtu=4 : ALL;", "a=0x1 : ALL_HOSTS;"}) {
    const std::string strict = strictError(text);
    EXPECT_THAT(strict, HasSubstr("p.conf:1: ")) << text;
    EXPECT_THAT(strict, HasSubstr("OpenSM would drop the whole file and manage only its default "
                                  "partition"))
        << text;
    const auto notStrict = parsePartitionsFile(text, "p.conf", kLenient);
    ASSERT_FALSE(notStrict) << text;
    EXPECT_EQ(notStrict.error().message, strict) << text;
  }
}

TEST(OpenSmReading, ACleanFileListsNothingEitherWay) {
  constexpr std::string_view text = "Default=0x7fff, ipoib : ALL=full;\ns=0x10 : 0x10, SELF=full;";
  const auto strict = parsePartitionsFile(text, "p.conf");
  ASSERT_TRUE(strict) << strict.error().message;
  EXPECT_TRUE(strict->ignored.empty());
  const auto c = lenient(text);
  EXPECT_TRUE(c.ignored.empty());
  ASSERT_EQ(c.partitions.size(), strict->partitions.size());
  for (std::size_t i = 0; i < c.partitions.size(); ++i)
    EXPECT_TRUE(c.partitions[i].sameAs(strict->partitions[i]));
}

}  // namespace
}  // namespace ibsm::partition
