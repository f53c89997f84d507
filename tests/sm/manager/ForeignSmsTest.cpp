// SMs that show another SM_Key: listed for `ibsm status`, told to the
// operator once each, and again only when what they show changes.
#include <gtest/gtest.h>

#include "sm/manager/ForeignSms.h"

namespace ibsm::sm::manager {
namespace {

constexpr std::uint64_t kOurs = kDefaultSmKey;

PeerSmInfo sm(std::uint64_t guid, std::uint64_t key, SmState state, std::uint8_t priority = 5) {
  return PeerSmInfo{
      .peer = PeerSm{.portGuid = Guid{guid},
                     .address = *DrPath::fromPorts(std::vector<std::uint8_t>{1, 3}),
                     .lid = Lid{7}},
      .info = SmInfo{.guid = Guid{guid}, .smKey = key, .priority = priority, .smState = state}};
}

TEST(ForeignSms, OnlySmsShowingAnotherKeyAreListedWithWhereAndWhatTheyShow) {
  ForeignSms foreign;
  const std::vector read = {sm(0x10, kOurs, SmState::Standby), sm(0x20, 0x2, SmState::Master)};
  const auto news = foreign.update(read, kOurs, false);
  ASSERT_EQ(news.size(), 1u);
  ASSERT_EQ(foreign.current().size(), 1u);
  const control::ForeignSm& f = foreign.current().front();
  EXPECT_EQ(f.guid, Guid{0x20});
  EXPECT_EQ(f.port, "DR 0,1,3");
  EXPECT_EQ(f.lid, Lid{7});
  EXPECT_EQ(f.state, "MASTER");
  EXPECT_EQ(f.priority, 5);
  EXPECT_EQ(f.smKey, 0x2u);
}

TEST(ForeignSms, KeyZeroIsForeignToTheDefaultKeyAndTheDefaultToKeyZero) {
  ForeignSms foreign;
  EXPECT_EQ(foreign.update(std::vector{sm(0x20, 0, SmState::Master)}, kOurs, false).size(), 1u);
  ForeignSms keyedZero;
  EXPECT_EQ(keyedZero.update(std::vector{sm(0x20, kOurs, SmState::Master)}, 0, false).size(), 1u);
}

TEST(ForeignSms, AnSmIsToldOnceUntilWhatItShowsChanges) {
  ForeignSms foreign;
  EXPECT_EQ(foreign.update(std::vector{sm(0x20, 0x2, SmState::Standby)}, kOurs, false).size(), 1u);
  EXPECT_TRUE(foreign.update(std::vector{sm(0x20, 0x2, SmState::Standby)}, kOurs, false).empty());
  EXPECT_EQ(foreign.update(std::vector{sm(0x20, 0x2, SmState::Master)}, kOurs, false).size(), 1u);
  EXPECT_EQ(foreign.update(std::vector{sm(0x20, 0x2, SmState::Master, 9)}, kOurs, false).size(),
            1u);
  EXPECT_EQ(foreign.update(std::vector{sm(0x20, 0x3, SmState::Master, 9)}, kOurs, false).size(),
            1u);
}

TEST(ForeignSms, AnSmThatLeftOrTookOurKeyIsNoLongerListedAndIsToldAgainIfItReturns) {
  ForeignSms foreign;
  foreign.update(std::vector{sm(0x20, 0x2, SmState::Master)}, kOurs, false);
  EXPECT_TRUE(foreign.update(std::vector{sm(0x20, kOurs, SmState::Master)}, kOurs, false).empty());
  EXPECT_TRUE(foreign.current().empty());
  EXPECT_EQ(foreign.update(std::vector{sm(0x20, 0x2, SmState::Master)}, kOurs, false).size(), 1u);
}

TEST(ForeignSms, AForeignMasterIsToldAgainWhenWeBecomeMasterToo) {
  ForeignSms foreign;
  const std::vector read = {sm(0x20, 0x2, SmState::Master), sm(0x30, 0x2, SmState::Standby)};
  EXPECT_EQ(foreign.update(read, kOurs, false).size(), 2u);
  const auto told = foreign.update(read, kOurs, true);
  ASSERT_EQ(told.size(), 1u);
  EXPECT_EQ(told.front().guid, Guid{0x20});
  EXPECT_TRUE(foreign.update(read, kOurs, true).empty());
}

TEST(ForeignSms, TheLogLineNamesTheSmItsPortStateAndTheLikelyCauseButNotOurKey) {
  ForeignSms foreign;
  foreign.update(std::vector{sm(0x20, 0x2, SmState::Master)}, 0xfeedface, false);
  const std::string line = describeForeignSm(foreign.current().front(), /*weAreMaster=*/true);
  EXPECT_EQ(line,
            "SM 0x0000000000000020 at DR 0,1,3 (LID 7) is MASTER with priority 5 and shows "
            "another SM_Key, not ours: ignored as another management domain -- if it belongs "
            "to this subnet, its sm_key differs from ours; it ignores us too, so this subnet has "
            "two masters");
  EXPECT_EQ(line.find("feedface"), std::string::npos);
  EXPECT_EQ(line.find("0000000000000002"), std::string::npos);  // nor theirs
  EXPECT_EQ(describeForeignSm(foreign.current().front(), false).find("two masters"),
            std::string::npos);
}

}  // namespace
}  // namespace ibsm::sm::manager
