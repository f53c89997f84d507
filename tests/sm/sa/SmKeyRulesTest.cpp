// The SM_Key rules of docs/sa.md, one test per rule the code holds: what an
// untrusted requester (no SM_Key, or a wrong one) is refused or not shown,
// and that the SM's own key never leaves the SA.
#include <gtest/gtest.h>

#include "tests/sm/sa/McFixture.h"

namespace ibsm::sm::sa {
namespace {

using testing::kAppGroup;
using testing::McFixture;
using testing::SaFixture;

constexpr std::uint64_t kLidComponent = 1;
constexpr std::uint64_t kWrongKey = 0x5EC2E7;

class SmKeyRulesTest : public ::testing::Test {
 protected:
  McFixture mc;
  SaFixture& sa = mc.sa;
};

// IBA p.922, as OpenSM: "P_KeyTableRecords shall only be provided in
// response to trusted requests".
TEST_F(SmKeyRulesTest, PKeyTableRecordsAreRefusedWithoutTheSmKey) {
  const PKeyTableRecord query{.lid = sa.lidOfHost(0)};
  for (const std::uint64_t key : {std::uint64_t{0}, kWrongKey}) {
    const auto reply = sa.ask(saMethod::kGetTable, query, kLidComponent, key);
    EXPECT_EQ(reply.header.status, saStatus::kReqInvalid) << "key " << key;
    EXPECT_TRUE(SaFixture::records<PKeyTableRecord>(reply).empty());
  }
  const auto trusted = sa.ask(saMethod::kGetTable, query, kLidComponent, sa.settings.saKey);
  EXPECT_EQ(trusted.header.status, saStatus::kOk);
  EXPECT_FALSE(SaFixture::records<PKeyTableRecord>(trusted).empty());
}

// C15-0.2-1.16: subscriptions to the security traps (256-259) are for
// trusted requesters only.
TEST_F(SmKeyRulesTest, SecurityTrapsAreRefusedWithoutTheSmKey) {
  InformInfo badMKey;
  badMKey.lidRangeBegin = Lid{InformInfo::kAllLids};
  badMKey.isGeneric = true;
  badMKey.subscribe = true;
  badMKey.type = 0xFFFF;
  badMKey.trapNumber = 256;
  badMKey.producerType = 0xFFFFFF;
  for (const std::uint64_t key : {std::uint64_t{0}, kWrongKey}) {
    EXPECT_EQ(sa.ask(saMethod::kSet, badMKey, 0, key).header.status, saStatus::kReqInvalid);
  }
  EXPECT_TRUE(sa.responder.subscriptions().empty());
  EXPECT_EQ(sa.ask(saMethod::kSet, badMKey, 0, sa.settings.saKey).header.status, saStatus::kOk);
}

// IBA 15.2.5.17: an untrusted requester's answers carry no PortGID,
// JoinState or ProxyJoin: it learns which groups exist, not who is in them.
TEST_F(SmKeyRulesTest, AnUntrustedRequesterSeesNoMembersOfAGroup) {
  ASSERT_EQ(mc.join(1, mc.create(1, kAppGroup)).header.status, saStatus::kOk);
  const auto second = mc.join(2, mc.member(2, kAppGroup, joinState::kFull), mcmMask::kJoin);
  ASSERT_EQ(second.header.status, saStatus::kOk);
  const auto reply = mc.send(saMethod::kGetTable, 3, McMemberRecord{}, 0, kWrongKey);
  const auto seen = SaFixture::records<McMemberRecord>(reply);
  ASSERT_EQ(seen.size(), 1U) << "the group once";
  EXPECT_EQ(seen[0].portGid, Gid{});
  EXPECT_EQ(seen[0].joinState, 0);
  EXPECT_EQ(mc.table(3, McMemberRecord{}, 0, /*trusted=*/true).size(), 2U) << "every member";
}

// The SM's SM_Key stays in the SM: 0 in an SMInfoRecord whoever asks, and
// 0 in the header of every answer (C15-0.1.5).
TEST_F(SmKeyRulesTest, TheSmKeyIsNeverShownInAnSmInfoRecordNotEvenToATrustedRequester) {
  ASSERT_NE(sa.smInfo.smKey, 0U);
  for (const std::uint64_t key : {std::uint64_t{0}, sa.settings.saKey}) {
    const auto reply = sa.ask(saMethod::kGetTable, SmInfoRecord{}, 0, key);
    EXPECT_EQ(reply.header.smKey, 0U);
    const auto records = SaFixture::records<SmInfoRecord>(reply);
    ASSERT_EQ(records.size(), 1U);
    EXPECT_EQ(records[0].smInfo.smKey, 0U) << "asked with key " << key;
  }
}

}  // namespace
}  // namespace ibsm::sm::sa
