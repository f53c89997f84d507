// checkMulticast() on hand-made tables: each kind of wrong table is named.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <ibsm/Multicast.h>

#include "tests/routing/engines/ShapeFabrics.h"
#include "tests/routing/multicast/McTestGroups.h"

namespace ibsm {
namespace {

using ::testing::Contains;
using testing::groupOf;
using ::testing::HasSubstr;
using testing::maskOf;
using testing::nodeNamed;

// 2 leaves x 2 spines, 2 hosts a leaf: leaf ports 1-2 go to spine0-1,
// hosts on 3-4; spine port l+1 goes to leaf l.
class HandTables : public ::testing::Test {
 protected:
  HandTables() : f(testing::twoLevelFatTree(2, 2, 2)), mfts(f.size()) {
    groups = {groupOf(f, 0xC000, {"leaf0-h0", "leaf0-h1", "leaf1-h0", "leaf1-h1"})};
    set("leaf0", {1, 3, 4});
    set("leaf1", {1, 3, 4});
    set("spine0", {1, 2});
  }
  void set(std::string_view sw, std::initializer_list<int> ports, std::uint16_t mlid = 0xC000) {
    mfts[nodeNamed(f, sw)].entries[mlid] = maskOf(ports);
  }
  std::vector<std::string> check() const { return checkMulticast(f, mfts, groups); }

  Fabric f;
  std::vector<SwitchMft> mfts;
  std::vector<McGroupRoute> groups;
};

TEST_F(HandTables, ARightTreeHasNoProblem) {
  EXPECT_THAT(check(), ::testing::IsEmpty());
}

TEST_F(HandTables, ALoopThroughBothSpinesIsALoopAndDoubleCopies) {
  set("leaf0", {1, 2, 3, 4});
  set("leaf1", {1, 2, 3, 4});
  set("spine1", {1, 2});
  const auto problems = check();
  EXPECT_THAT(problems, Contains(HasSubstr("loop")));
  EXPECT_THAT(problems, Contains(HasSubstr("double copy")));
}

TEST_F(HandTables, ASecondPathToOneLeafGivesItsHostsTwoCopies) {
  set("leaf0", {1, 2, 3, 4});
  set("spine1", {2});
  const auto problems = check();
  EXPECT_THAT(problems, Contains(HasSubstr("double copy: 0x")));
  EXPECT_THAT(problems, Contains(HasSubstr("reaches switch")));
}

TEST_F(HandTables, AReceiverLeftOutOfItsLeafsMaskIsMissing) {
  set("leaf1", {1, 3});
  const std::string h = fmt::format("{}", testing::portGuidOf(f, "leaf1-h1"));
  EXPECT_THAT(check(), Contains(HasSubstr("missing member: " + h)));
}

TEST_F(HandTables, APortToAHostThatIsNoMemberIsANonMemberPort) {
  groups = {groupOf(f, 0xC000, {"leaf0-h0", "leaf0-h1", "leaf1-h0"})};
  EXPECT_THAT(check(), Contains(HasSubstr("non-member port: \"leaf1\"[4]")));
}

TEST_F(HandTables, ASendOnlyMembersPortInTheMaskIsANonMemberPort) {
  groups = {groupOf(f, 0xC000, {"leaf0-h0", "leaf0-h1", "leaf1-h0"}, {"leaf1-h1"})};
  EXPECT_THAT(check(), Contains(HasSubstr("non-member port")));
}

TEST_F(HandTables, ABranchToASpineThatLeadsNowhereIsDead) {
  set("leaf0", {1, 2, 3, 4});
  const auto problems = check();
  EXPECT_THAT(problems, Contains(HasSubstr("dead branch: \"leaf0\"[2]")));
}

TEST_F(HandTables, AnMlidNoGroupHasIsAStrayEntry) {
  set("spine1", {1}, 0xC123);
  EXPECT_THAT(check(), Contains(HasSubstr("MLID 0xc123: stray entry")));
}

}  // namespace
}  // namespace ibsm
