// Multicast groups in partitions.conf (OpenSM's doc/partition-config.txt):
// `mgid=` lines read with file:line errors, and the groups the partitions
// pre-create (each ipoib partition's broadcast group, then mgid= groups).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <ibsm/Partitions.h>

#include <string>

namespace ibsm::partition {
namespace {

using ::testing::HasSubstr;

PartitionConfig parseOk(std::string_view text) {
  auto c = parsePartitionsFile(text, "p.conf");
  if (!c) ADD_FAILURE() << c.error().message;
  return c.value_or(PartitionConfig{});
}

std::string parseError(std::string_view text) {
  auto c = parsePartitionsFile(text, "p.conf");
  EXPECT_FALSE(c.has_value()) << "accepted:\n" << text;
  return c ? std::string{} : c.error().message;
}

Gid gid(std::initializer_list<std::uint8_t> head, std::initializer_list<std::uint8_t> tail) {
  Gid g{};
  std::ranges::copy(head, g.begin());
  std::ranges::copy(tail, g.end() - static_cast<std::ptrdiff_t>(tail.size()));
  return g;
}

// The example of OpenSM's partition-config.txt, verbatim.
constexpr std::string_view kOpenSmExample =
    " # multicast groups added to default\n"
    " Default=0x7fff,ipoib:\n"
    "        mgid=ff12:401b::0707,sl=1 # random IPv4 group\n"
    "        mgid=ff12:601b::16    # MLDv2-capable routers\n"
    "        mgid=ff12:401b::16    # IGMP\n"
    "        mgid=ff12:601b::2     # All routers\n"
    "        mgid=ff12::1,sl=1,Q_Key=0xDEADBEEF,rate=3,mtu=2 # random group\n"
    "        ALL=full;\n";

TEST(McGroupLines, ReadOpenSmsExampleWithItsFlagsAndMembers) {
  const auto c = parseOk(kOpenSmExample);
  ASSERT_EQ(c.partitions.size(), 1U);
  const PartitionDef& d = c.partitions[0];
  ASSERT_EQ(d.groups.size(), 5U);
  EXPECT_EQ(d.groups[0].mgid, gid({0xff, 0x12, 0x40, 0x1b}, {0x07, 0x07}));
  EXPECT_EQ(d.groups[0].sl, 1);
  EXPECT_EQ(d.groups[0].where, "p.conf:3");
  EXPECT_EQ(d.groups[4].qkey, 0xDEADBEEFU);
  EXPECT_EQ(d.groups[4].mtu, 2);
  EXPECT_EQ(d.groups[4].rate, 3);
  ASSERT_EQ(d.members.size(), 1U);
  EXPECT_EQ(d.members[0].kind, MemberSpec::Kind::All);
}

TEST(McGroupLines, AGroupTakesTheRestOfItsLineOnly) {
  const auto c = parseOk("a=0x1 : 0x10=full, mgid=ff15::1, scope=2, scope=8\n 0x11 ;");
  ASSERT_EQ(c.partitions[0].groups.size(), 1U);
  EXPECT_EQ(c.partitions[0].groups[0].scopes, (std::vector<std::uint8_t>{2, 8}));
  EXPECT_EQ(c.partitions[0].members.size(), 2U);
}

TEST(McGroupLines, BadValuesNameFileAndLine) {
  EXPECT_THAT(parseError("a=0x1 :\n mgid=fe80::1 ;"),
              HasSubstr("p.conf:2: mgid= takes a multicast GID"));
  EXPECT_THAT(parseError("a=0x1 :\n\n mgid=ff12::1, mtu=3000 ;"),
              HasSubstr("p.conf:3: mtu= takes"));
  EXPECT_THAT(parseError("a=0x1 : mgid=ff12::1, sl=16 ;"), HasSubstr("p.conf:1: sl= takes"));
  EXPECT_THAT(parseError("a=0x1 : mgid=ff12::1, ipoib ;"),
              HasSubstr("p.conf:1: unknown mgid= flag 'ipoib'"));
  EXPECT_THAT(parseError("a=0x1 : mgid=ff12::1\n , ALL ;"),
              HasSubstr("p.conf:2: expected a member"));
}

TEST(MulticastGroups, AnIpoibPartitionGetsItsBroadcastGroupWithOpenSmsDefaults) {
  const auto groups = multicastGroups(parseOk("Default=0x7fff, ipoib : ALL=full;"));
  ASSERT_TRUE(groups);
  ASSERT_EQ(groups->size(), 1U);
  const McGroupSpec& g = (*groups)[0];
  EXPECT_EQ(g.mgid, ipoibBroadcastMgid(0x7fff));
  EXPECT_EQ(g.params.pkey, 0xffff);
  EXPECT_EQ(g.params.qkey, 0x0b1bU);
  EXPECT_EQ(g.params.mtu, 4);
  EXPECT_EQ(g.params.rate, 3);
  EXPECT_EQ(g.params.sl, 0);
  EXPECT_EQ(g.params.scope, mcScope::kLinkLocal);
  EXPECT_EQ(g.where, "p.conf:1");
}

TEST(MulticastGroups, OneBroadcastGroupPerScopeWithThePartitionsFlags) {
  const auto groups = multicastGroups(
      parseOk("storage=0x0010, ipoib, mtu=4096, rate=100, sl=3, scope=2, scope=5, Q_Key=0x1b, "
              "TClass=4, FlowLabel=0x12 : ALL;\nother=0x20 : ALL;"));
  ASSERT_TRUE(groups);
  ASSERT_EQ(groups->size(), 2U);
  EXPECT_EQ((*groups)[0].mgid, ipoibBroadcastMgid(0x10, 2));
  EXPECT_EQ((*groups)[1].mgid, ipoibBroadcastMgid(0x10, 5));
  const McGroupParams& p = (*groups)[1].params;
  EXPECT_EQ(p.pkey, 0x8010);
  EXPECT_EQ(p.mtu, 5);
  EXPECT_EQ(p.sl, 3);
  EXPECT_EQ(p.scope, 5);
  EXPECT_EQ(p.qkey, 0x1bU);
  EXPECT_EQ(p.tclass, 4);
  EXPECT_EQ(p.flowLabel, 0x12U);
}

TEST(MulticastGroups, MgidGroupsFollowTheBroadcastGroupAsOpenSmMakesThem) {
  const auto groups = multicastGroups(parseOk(kOpenSmExample));
  ASSERT_TRUE(groups) << groups.error().message;
  ASSERT_EQ(groups->size(), 6U);
  // An IP group gets the partition's PKey and the IPoIB Q_Key.
  const McGroupSpec& ip = (*groups)[1];
  EXPECT_EQ(ip.mgid, gid({0xff, 0x12, 0x40, 0x1b, 0xff, 0xff}, {0x07, 0x07}));
  EXPECT_EQ(ip.params.sl, 1);
  EXPECT_EQ(ip.params.qkey, 0x0b1bU);
  // Another group keeps its MGID and its own flags, Q_Key 0 by default.
  const McGroupSpec& other = (*groups)[5];
  EXPECT_EQ(other.mgid, gid({0xff, 0x12}, {0x01}));
  EXPECT_EQ(other.params.qkey, 0xDEADBEEFU);
  EXPECT_EQ(other.params.mtu, 2);
}

TEST(MulticastGroups, AnIpGroupMustMatchItsPartitionsPKeyMtuAndRate) {
  const auto pkey = multicastGroups(parseOk("a=0x1, ipoib : mgid=ff12:401b:8002::7\n ALL;"));
  ASSERT_FALSE(pkey);
  EXPECT_THAT(pkey.error().message, HasSubstr("p.conf:1: IP group's PKey 0x8002"));
  const auto mtu = multicastGroups(parseOk("a=0x1, ipoib : mgid=ff12:401b::7, mtu=5\n ALL;"));
  ASSERT_FALSE(mtu);
  EXPECT_THAT(mtu.error().message, HasSubstr("MTU and rate"));
  EXPECT_TRUE(multicastGroups(parseOk("a=0x1, ipoib : mgid=ff12:401b:8001::7\n ALL;")));
}

TEST(MulticastGroups, APartitionWithoutIpoibPreCreatesOnlyItsMgidGroups) {
  const auto groups = multicastGroups(parseOk("a=0x1 : mgid=ff15::9, scope=8\n ALL;"));
  ASSERT_TRUE(groups);
  ASSERT_EQ(groups->size(), 1U);
  EXPECT_EQ((*groups)[0].mgid, gid({0xff, 0x18}, {0x09}));
  EXPECT_EQ((*groups)[0].params.scope, 8);
  EXPECT_EQ((*groups)[0].params.pkey, 0x8001);
}

}  // namespace
}  // namespace ibsm::partition
