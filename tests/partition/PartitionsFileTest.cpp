// partitions.conf as OpenSM's partition-config documentation defines it.
#include <gtest/gtest.h>
#include <ibsm/Partitions.h>

#include <string>

namespace ibsm::partition {
namespace {

using Kind = MemberSpec::Kind;

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

TEST(PartitionsFile, ReadsEveryFlag) {
  const auto c = parseOk(
      "storage=0x8010, ipoib, indx0, mtu=5, rate=16, sl=3, scope=2, scope=5, Q_Key=0x1b, "
      "TClass=4, FlowLabel=0x12, defmember=full : ALL ;\n");
  ASSERT_EQ(c.partitions.size(), 1u);
  const PartitionDef& d = c.partitions[0];
  EXPECT_EQ(d.name, "storage");
  EXPECT_EQ(d.pkey, 0x0010);  // the membership bit belongs to ports, not partitions
  EXPECT_TRUE(d.ipoib);
  EXPECT_TRUE(d.indx0);
  EXPECT_EQ(d.mtu, 5);
  EXPECT_EQ(d.rate, 16);
  EXPECT_EQ(d.sl, 3);
  EXPECT_EQ(d.scopes, (std::vector<std::uint8_t>{2, 5}));
  EXPECT_EQ(d.qkey, 0x1bu);
  EXPECT_EQ(d.tclass, 4);
  EXPECT_EQ(d.flowLabel, 0x12u);
  ASSERT_EQ(d.members.size(), 1u);
  EXPECT_EQ(d.members[0].membership, Membership::Full);  // from defmember
  EXPECT_EQ(d.where, "p.conf:1");
}

TEST(PartitionsFile, ReadsEveryMemberKeywordAndMembership) {
  const auto c = parseOk(
      "a=0x1 : ALL, ALL_CAS=full, ALL_SWITCHES=limited, ALL_ROUTERS=both, SELF=full, "
      "0x0002c903000a1b2c=full, 12345, 0x10=both ;");
  const auto& m = c.partitions.at(0).members;
  ASSERT_EQ(m.size(), 8u);
  EXPECT_EQ(m[0].kind, Kind::All);
  EXPECT_EQ(m[0].membership, Membership::Limited);  // OpenSM's default membership
  EXPECT_EQ(m[1].kind, Kind::AllCas);
  EXPECT_EQ(m[1].membership, Membership::Full);
  EXPECT_EQ(m[2].kind, Kind::AllSwitches);
  EXPECT_EQ(m[3].kind, Kind::AllRouters);
  EXPECT_EQ(m[3].membership, Membership::Both);
  EXPECT_EQ(m[4].kind, Kind::Self);
  EXPECT_EQ(m[5].guid, Guid{0x0002c903000a1b2cULL});
  EXPECT_EQ(m[6].guid, Guid{12345});  // decimal GUIDs are accepted too
  EXPECT_EQ(m[7].membership, Membership::Both);
}

TEST(PartitionsFile, MtuAndRateTakeCodesAndWhatPeopleMean) {
  EXPECT_EQ(parseMtu("4"), 4);
  EXPECT_EQ(parseMtu("4096"), 5);
  EXPECT_EQ(parseMtu("256"), 1);
  EXPECT_EQ(parseMtu("300"), std::nullopt);
  EXPECT_EQ(parseMtu("6"), std::nullopt);
  EXPECT_EQ(parseRate("3"), 3);     // IBTA code: 10 Gb/s
  EXPECT_EQ(parseRate("100"), 16);  // past the codes: Gb/s
  EXPECT_EQ(parseRate("10G"), 3);   // a unit says Gb/s even where a code would fit
  EXPECT_EQ(parseRate("2.5g"), 2);
  EXPECT_EQ(parseRate("56Gb/s"), 12);
  EXPECT_EQ(parseRate("400"), 21);
  EXPECT_EQ(parseRate("99"), std::nullopt);
  EXPECT_EQ(parseRate("1"), std::nullopt);
  const auto c = parseOk("a=0x2, mtu=2048, rate=200 : ;");
  EXPECT_EQ(c.partitions.at(0).mtu, 4);
  EXPECT_EQ(c.partitions.at(0).rate, 17);
}

TEST(PartitionsFile, DefinitionsSpanLinesAndCommentsAreIgnored) {
  const auto c = parseOk(
      "# tenants\n"
      "Default=0x7fff , ipoib:   # the default partition; not ended here\n"
      "   ALL=full,\n"
      "   SELF=full   # a ; inside a comment ends nothing\n"
      ";\n"
      "\n"
      "  compute = 0x20 :\n"
      "  0x100 ,\n"
      "  0x200=full ; other=0x30:ALL_CAS;\n");
  ASSERT_EQ(c.partitions.size(), 3u);
  EXPECT_EQ(c.partitions[0].pkey, 0x7fff);
  EXPECT_EQ(c.partitions[0].members.size(), 2u);
  EXPECT_EQ(c.partitions[0].where, "p.conf:2");
  EXPECT_EQ(c.partitions[0].members[1].where, "p.conf:4");
  EXPECT_EQ(c.partitions[1].name, "compute");
  EXPECT_EQ(c.partitions[1].members[1].where, "p.conf:9");
  EXPECT_EQ(c.partitions[2].name, "other");
}

TEST(PartitionsFile, OnePartitionSplitOverDefinitionsMerges) {
  // OpenSM's ShareIO example: defmember applies to its own definition only.
  const auto c = parseOk(
      "ShareIO = 0x80 , defmember=full : 0x123451, 0x123452;\n"
      "ShareIO = 0x80 : 0x123453, 0x123455=full;\n"
      "ShareIO = 0x80 , ipoib, mtu=4 : ;\n");
  ASSERT_EQ(c.partitions.size(), 1u);
  const auto& m = c.partitions[0].members;
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[0].membership, Membership::Full);
  EXPECT_EQ(m[2].membership, Membership::Limited);
  EXPECT_EQ(m[3].membership, Membership::Full);
  EXPECT_TRUE(c.partitions[0].ipoib);
  EXPECT_EQ(c.partitions[0].mtu, 4);
}

TEST(PartitionsFile, EmptyFileAndEmptyMemberList) {
  EXPECT_TRUE(parseOk("# nothing\n\n").partitions.empty());
  EXPECT_TRUE(parseOk("lonely=0x5 : ;").partitions.at(0).members.empty());
}

TEST(PartitionsFile, BadPKeyNamesLineAndValue) {
  EXPECT_EQ(parseError("\na=0x10000 : ALL;")
                .rfind("p.conf:2: expected a PKey from 0x0001 to 0x7fff (0x8000 bit ignored), not "
                       "'0x10000'; OpenSM would drop the whole file",
                       0),
            0u);
  EXPECT_NE(parseError("a=0x8000 : ALL;").find("p.conf:1: expected a PKey"), std::string::npos);
  EXPECT_NE(parseError("a=0 : ALL;").find("p.conf:1: expected a PKey"), std::string::npos);
  EXPECT_NE(parseError("a=zz : ALL;").find("'zz'"), std::string::npos);
  EXPECT_NE(parseError("a : ALL;").find("p.conf:1: expected Name=PKey"), std::string::npos);
}

TEST(PartitionsFile, DuplicateNameOrPKeyIsAnError) {
  EXPECT_EQ(parseError("a=0x1 : ALL;\nb=0x1 : ALL;"),
            "p.conf:2: duplicate PKey 0x0001: partition 'b' here, 'a' at p.conf:1 (split "
            "definitions of one partition must use the same name)");
  EXPECT_EQ(parseError("a=0x1 : ALL;\n\na=0x2 : ALL;"),
            "p.conf:3: duplicate partition name 'a': p.conf:1 names PKey 0x0001, this names "
            "0x0002");
  // The 0x8000 bit does not make another partition.
  EXPECT_NE(parseError("a=0x1 : ;\nb=0x8001 : ;").find("duplicate PKey 0x0001"), std::string::npos);
  EXPECT_NE(parseError("a=0x1, mtu=4 : ;\na=0x1, mtu=5 : ;")
                .find("p.conf:2: partition 'a' (0x0001) sets mtu differently than at p.conf:1"),
            std::string::npos);
}

TEST(PartitionsFile, UnknownFlagOrKeywordIsAnError) {
  EXPECT_NE(parseError("a=0x1, ipob : ALL;").find("p.conf:1: unknown partition flag 'ipob'"),
            std::string::npos);
  EXPECT_NE(parseError("a=0x1, ipoib=1 : ALL;").find("'ipoib' takes no value"), std::string::npos);
  EXPECT_NE(parseError("a=0x1, defmember=most : ALL;").find("defmember= takes full"),
            std::string::npos);
  EXPECT_NE(parseError("a=0x1, mtu=3000 : ALL;").find("mtu= takes"), std::string::npos);
  EXPECT_NE(parseError("a=0x1, rate=99 : ALL;").find("rate= takes"), std::string::npos);
  EXPECT_NE(parseError("a=0x1, sl=16 : ALL;").find("p.conf:1: sl= takes a number from 0 to 15"),
            std::string::npos);
  EXPECT_NE(parseError("a=0x1,\n sl=x : ALL;").find("p.conf:2: sl= takes"), std::string::npos);
  EXPECT_NE(parseError("a=0x1 :\n ALL_HOSTS;").find("p.conf:2: expected a port GUID"),
            std::string::npos);
  // OpenSM quietly reads an unknown membership as limited; ibsm says so.
  EXPECT_NE(parseError("a=0x1 : 0x10=limi;")
                .find("p.conf:1: membership of '0x10' must be full, limited or both, not 'limi'"),
            std::string::npos);
  EXPECT_NE(parseError("a=0x1 :\n mgid=ff12:401b::1 ALL;").find("p.conf:2: mgid= takes"),
            std::string::npos);
}

TEST(PartitionsFile, BadGuidIsAnError) {
  EXPECT_EQ(parseError("a=0x1 : 0x12,\n 0xfoo=full;")
                .rfind("p.conf:2: expected a port GUID (0x... or decimal) or ALL, ALL_CAS, "
                       "ALL_SWITCHES, ALL_ROUTERS, SELF, not '0xfoo'; OpenSM would drop the whole "
                       "file",
                       0),
            0u);
  EXPECT_NE(parseError("a=0x1 : 0x0;").find("not '0x0'"), std::string::npos);
  EXPECT_NE(parseError("a=0x1 : 0x12345678901234567;").find("expected a port GUID"),
            std::string::npos);
}

TEST(PartitionsFile, BrokenStructureIsAnError) {
  EXPECT_EQ(parseError("a=0x1 : ALL;\nb=0x2 : ALL\n")
                .rfind("p.conf:2: expected ';' to end the definition 'b=0x2 : ALL'; OpenSM would "
                       "read it as if ended",
                       0),
            0u);
  EXPECT_NE(parseError("a=0x1 ALL;").find("p.conf:1: expected 'Name=PKey"), std::string::npos);
  EXPECT_NE(parseError("a=0x1 : ALL,, SELF;").find("p.conf:1: expected a member between ','"),
            std::string::npos);
}

TEST(PartitionsFile, TheShippedExampleReads) {
  auto c = readPartitionsFile(std::string(IBSM_SOURCE_DIR) + "/conf/partitions.conf");
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_EQ(c->partitions.size(), 3u);
  EXPECT_EQ(c->partitions[1].name, "storage");
  EXPECT_EQ(c->partitions[1].members.size(), 3u);
  EXPECT_EQ(c->partitions[2].members.at(2).membership, Membership::Full);
}

TEST(PartitionsFile, UnreadableFileIsNamed) {
  auto c = readPartitionsFile("/nonexistent/partitions.conf");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message, "/nonexistent/partitions.conf: cannot read the partitions file");
}

}  // namespace
}  // namespace ibsm::partition
