// Subscriptions to notices: Set(InformInfo) from a port, listed as
// InformInfoRecords, handed to the notifier (which sends the Reports).
#include <gtest/gtest.h>

#include "sm/mad/BitField.h"
#include "tests/sm/sa/SaFixture.h"

namespace ibsm::sm::sa {
namespace {

using testing::SaFixture;

InformInfo trap(std::uint16_t number, bool subscribe = true) {
  InformInfo i;
  i.lidRangeBegin = Lid{InformInfo::kAllLids};
  i.isGeneric = true;
  i.subscribe = subscribe;
  i.type = 0xFFFF;
  i.trapNumber = number;
  i.qpn = 0x000042;
  i.producerType = 0xFFFFFF;
  return i;
}

TEST(InformInfoLayout, PutsTheFieldsWhereIba13_4_8_3DrawsThem) {
  InformInfo i = trap(64);
  i.gid = makeGid(kDefaultSubnetPrefix, Guid{0x11});
  i.lidRangeEnd = Lid{0x0203};
  i.respTimeValue = 0x13;
  const auto bytes = encodeRecord(i);
  EXPECT_EQ(mad::getBits(bytes, 64, 64), 0x11U);
  EXPECT_EQ(mad::getBits(bytes, 128, 16), 0xFFFFU);
  EXPECT_EQ(mad::getBits(bytes, 144, 16), 0x0203U);
  EXPECT_EQ(bytes[22], 1);  // IsGeneric
  EXPECT_EQ(bytes[23], 1);  // Subscribe
  EXPECT_EQ(mad::getBits(bytes, 208, 16), 64U);
  EXPECT_EQ(mad::getBits(bytes, 224, 24), 0x42U);
  EXPECT_EQ(bytes[31] & 0x1F, 0x13);
  EXPECT_EQ(mad::getBits(bytes, 264, 24), 0xFFFFFFU);
  EXPECT_EQ(*decodeRecord<InformInfo>(bytes), i);

  const InformInfoRecord r{.subscriberGid = i.gid, .enumeration = 5, .informInfo = i};
  const auto rec = encodeRecord(r);
  EXPECT_EQ(mad::getBits(rec, 128, 16), 5U);
  EXPECT_TRUE(std::equal(bytes.begin(), bytes.begin() + 36, rec.begin() + 24));
  EXPECT_EQ(*decodeRecord<InformInfoRecord>(rec), r);
}

class InformInfoTest : public ::testing::Test {
 protected:
  SaMad set(const InformInfo& info, std::size_t host) {
    sa.from.lid = sa.lidOfHost(host);
    return sa.answer(
        SaFixture::request(saMethod::kSet, saAttr::kInformInfo, 0, encodeRecord(info)));
  }
  SaFixture sa{FatTreeSpec{.levels = 2, .radix = 4}};
};

TEST_F(InformInfoTest, ASubscriptionIsKeptForTheDaemonAndListedAsARecord) {
  const auto reply = set(trap(64), 2);
  EXPECT_EQ(reply.header.method, saMethod::kGetResp);
  ASSERT_EQ(reply.header.status, saStatus::kOk);
  ASSERT_EQ(sa.responder.subscriptions().size(), 1U);
  const Subscription& s = sa.responder.subscriptions()[0];
  // Reports go where the Set came from (as OpenSM), not to InformInfo's QPN.
  EXPECT_EQ(s.reportTo, sa.from);
  EXPECT_EQ(s.reportTo.lid, sa.lidOfHost(2));
  EXPECT_EQ(s.subscriber, sa.gidOfHost(2));
  EXPECT_EQ(s.info.trapNumber, 64);
  EXPECT_EQ(s.info.qpn, 0x42U);

  const auto records = SaFixture::records<InformInfoRecord>(sa.answer(SaFixture::request(
      saMethod::kGetTable, saAttr::kInformInfoRecord, 0, encodeRecord(InformInfoRecord{}))));
  ASSERT_EQ(records.size(), 1U);
  EXPECT_EQ(records[0].subscriberGid, sa.gidOfHost(2));
  EXPECT_EQ(records[0].informInfo.trapNumber, 64);
}

TEST_F(InformInfoTest, ASubscriberWithdrawsItsOwnSubscriptionAndNoOneElses) {
  ASSERT_EQ(set(trap(64), 2).header.status, saStatus::kOk);
  ASSERT_EQ(set(trap(64), 2).header.status, saStatus::kOk) << "twice is once";
  EXPECT_EQ(sa.responder.subscriptions().size(), 1U);
  EXPECT_EQ(set(trap(64, false), 3).header.status, saStatus::kReqInvalid);
  EXPECT_EQ(set(trap(64, false), 2).header.status, saStatus::kOk);
  EXPECT_TRUE(sa.responder.subscriptions().empty());
}

TEST_F(InformInfoTest, SecurityTrapsAreOnlyForARequesterPresentingTheSmKey) {
  sa.from.lid = sa.lidOfHost(2);
  const auto ask = [&](std::uint16_t number, std::uint64_t smKey) {
    return sa
        .answer(SaFixture::request(saMethod::kSet, saAttr::kInformInfo, 0,
                                   encodeRecord(trap(number)), smKey))
        .header.status;
  };
  EXPECT_EQ(ask(256, 0), saStatus::kReqInvalid) << "bad M_Key";
  EXPECT_EQ(ask(259, 0), saStatus::kReqInvalid) << "switch bad P_Key";
  EXPECT_TRUE(sa.responder.subscriptions().empty());
  EXPECT_EQ(ask(257, sa.settings.saKey), saStatus::kOk);
  EXPECT_EQ(ask(260, 0), saStatus::kOk);
  EXPECT_EQ(sa.responder.subscriptions().size(), 2U);
}

TEST_F(InformInfoTest, APortTheSaDoesNotKnowCannotSubscribe) {
  sa.from.lid = Lid{0xBFF0};
  const auto reply =
      sa.answer(SaFixture::request(saMethod::kSet, saAttr::kInformInfo, 0, encodeRecord(trap(64))));
  EXPECT_EQ(reply.header.status, saStatus::kReqInvalid);
  EXPECT_TRUE(sa.responder.subscriptions().empty());
}

// MADs shorter than a whole one (as a fuzzer, or a broken client, sends):
// a record cut short is an invalid request, never read past its end.
TEST_F(InformInfoTest, ARecordCutShortIsAnInvalidRequest) {
  const auto cut = [](std::vector<std::uint8_t> mad) {
    mad.resize(kSaHeaderSize + 8);
    return mad;
  };
  auto reply = sa.answer(cut(SaFixture::request(saMethod::kGetTable, saAttr::kInformInfoRecord, 0,
                                                encodeRecord(InformInfoRecord{}))));
  EXPECT_EQ(reply.header.status, saStatus::kReqInvalid);
  reply = sa.answer(
      cut(SaFixture::request(saMethod::kSet, saAttr::kInformInfo, 0, encodeRecord(trap(64)))));
  EXPECT_EQ(reply.header.status, saStatus::kReqInvalid);
  EXPECT_TRUE(sa.responder.subscriptions().empty());
}

}  // namespace
}  // namespace ibsm::sm::sa
