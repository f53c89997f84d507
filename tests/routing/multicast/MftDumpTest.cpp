// The MFT dump in `ibroute -M`'s format: written as ibroute prints, read
// back from it (either form, -b too), and the groups file.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <ibsm/Dumps.h>

#include "tests/routing/engines/ShapeFabrics.h"
#include "tests/routing/multicast/McTestGroups.h"

namespace ibsm {
namespace {

using testing::everyCa;
using ::testing::HasSubstr;
using testing::maskOf;
using testing::nodeNamed;

TEST(MftDump, PrintsEachSwitchAsIbrouteMDoes) {
  testing::FabricBuilder b;
  b.addSwitch("sw", 4);
  b.addHost("h0", "sw", 1);
  b.addHost("h1", "sw", 3);
  const Fabric f = b.build();
  std::vector<SwitchMft> mfts(f.size());
  mfts[nodeNamed(f, "sw")].entries[0xC001] = maskOf({1, 3});
  const std::string expected =
      "Multicast mlids [0xc000-0xc001] of switch Lid 1 guid 0x0000000000200000 (sw):\n"
      "     Ports: 0 1 2 3 4 \n"
      " MLid\n"
      "0xc001        x   x   \n"
      "1 valid mlids dumped \n";
  EXPECT_EQ(formatMftDump(f, mfts), expected);
}

TEST(MftDump, PrintsTheTensLineAboveSwitchesOfMoreThanNinePorts) {
  testing::FabricBuilder b;
  b.addSwitch("big", 12);
  const Fabric f = b.build();
  const std::string text = formatMftDump(f, std::vector<SwitchMft>(f.size()));
  EXPECT_THAT(text, HasSubstr("\n            0                   1     \n"
                              "     Ports: 0 1 2 3 4 5 6 7 8 9 0 1 2 \n"));
  EXPECT_THAT(text, HasSubstr("0 valid mlids dumped \n"));
}

TEST(MftDump, ReadsBackWhatItWrites) {
  const Fabric f = testing::twoLevelFatTree(4, 2, 2);
  const std::vector groups{everyCa(f, 0xC000), everyCa(f, 0xC001)};
  const auto plan = planMulticast(f, groups);
  ASSERT_TRUE(plan);
  const auto dumped = parseMftDump(formatMftDump(f, plan->mfts), "mft.dump");
  ASSERT_TRUE(dumped) << dumped.error().message;
  const auto mfts = mftsByNode(f, *dumped);
  ASSERT_TRUE(mfts) << mfts.error().message;
  for (NodeId id = 0; id < f.size(); ++id)
    EXPECT_EQ((*mfts)[id].entries, plan->mfts[id].entries) << f.node(id).description;
}

// What `ibroute -M LID` printed on ibsim (infiniband-diags 44) for two
// switches, stderr mixed in.
TEST(MftDump, ReadsIbroutesOutputAsCapturedOnIbsim) {
  const std::string text =
      "ibwarn: [25503] sim_connect: attached as client 0 at node \"Switch1\"\n"
      "Multicast mlids [0xc000-0xc3ff] of switch Lid 2 guid 0x0000000000200001 (Switch2):\n"
      "     Ports: 0 1 2 3 4 5 6 7 8 \n"
      " MLid\n"
      "0 valid mlids dumped \n"
      "Multicast mlids [0xc000-0xc3ff] of switch Lid 1 guid 0x0000000000200000 (Switch1):\n"
      "     Ports: 0 1 2 3 4 5 6 7 8 \n"
      " MLid\n"
      "0xc000          x       x   \n"
      "1 valid mlids dumped \n";
  const auto dumped = parseMftDump(text, "ibroute");
  ASSERT_TRUE(dumped) << dumped.error().message;
  ASSERT_EQ(dumped->size(), 2U);
  EXPECT_EQ((*dumped)[0].switchLid, Lid{2});
  EXPECT_EQ((*dumped)[0].description, "Switch2");
  EXPECT_TRUE((*dumped)[0].mft.entries.empty());
  EXPECT_EQ((*dumped)[1].mft.entries.at(0xC000), maskOf({2, 6}));
}

TEST(MftDump, ReadsIbroutesBriefFormAndADrPathHeader) {
  const std::string text =
      "Multicast mlids [0xc000-0xc3ff] of switch DR path slid 0; dlid 0; 0,1 guid "
      "0x0000000000200000 (sw 1):\n"
      " MLid       Port Mask\n"
      "0xc000      001a0001\n"
      "1 valid mlids dumped \n";
  const auto dumped = parseMftDump(text, "brief");
  ASSERT_TRUE(dumped) << dumped.error().message;
  ASSERT_EQ(dumped->size(), 1U);
  EXPECT_EQ((*dumped)[0].description, "sw 1");
  EXPECT_EQ((*dumped)[0].switchLid, Lid{0});
  EXPECT_EQ((*dumped)[0].mft.entries.at(0xC000), maskOf({1, 3, 4, 16}));
}

TEST(MftDump, NamesFileAndLineOfWhatItCannotRead) {
  const std::string header =
      "Multicast mlids [0xc000-0xc001] of switch Lid 1 guid 0x0000000000200000 (sw):\n";
  const auto unicast = parseMftDump("Unicast lids [0x0-0x4] of switch Lid 1 guid 0x1 (x):\n", "u");
  ASSERT_FALSE(unicast);
  EXPECT_THAT(unicast.error().message, HasSubstr("u:1: expected a multicast dump"));
  const auto unicastLid = parseMftDump(header + "0x0004        x\n", "m");
  ASSERT_FALSE(unicastLid);
  EXPECT_THAT(unicastLid.error().message, HasSubstr("m:2:"));
  const auto shifted = parseMftDump(header + "0xc000       x\n", "m");
  ASSERT_FALSE(shifted);
  EXPECT_THAT(shifted.error().message, HasSubstr("m:2: expected 'x' marks"));
  const auto twice = parseMftDump(header + "0xc000      x\n0xc000        x\n", "m");
  ASSERT_FALSE(twice);
  EXPECT_THAT(twice.error().message, HasSubstr("m:3:"));
  EXPECT_FALSE(parseMftDump("0xc000      x\n", "m"));
}

TEST(McGroupsFile, ListsEachGroupWithItsParametersAndMembers) {
  const Fabric f = testing::twoLevelFatTree(1, 1, 2);
  McGroupListing g{.mgid = ipoibBroadcastMgid(0x7fff),
                   .mlid = Lid{0xC000},
                   .params = {},
                   .members = {{testing::portGuidOf(f, "leaf0-h0"), true},
                               {testing::portGuidOf(f, "leaf0-h1"), false}},
                   .where = "partitions.conf:1"};
  const std::string text = formatMcGroups(f, {g});
  EXPECT_THAT(text, HasSubstr("mgid ff12:401b:ffff::ffff:ffff mlid 0xc000 pkey 0xffff qkey "
                              "0x00000b1b mtu 4 rate 3 sl 0 scope 0x2 tclass 0 flow_label "
                              "0x00000 members 2 # partitions.conf:1\n"));
  EXPECT_THAT(text, HasSubstr(" full \"leaf0-h0\"[1]"));
  EXPECT_THAT(text, HasSubstr(" send-only \"leaf0-h1\"[1]"));
}

}  // namespace
}  // namespace ibsm
