// Which subscriptions hear a notice (IBA 13.4.8.3 InformInfo against the
// Notice, as OpenSM matches them), field by field, and what a Report(Notice)
// looks like on the wire (libibmad's Notice field layout is the reference).
#include <gtest/gtest.h>
#include <infiniband/mad.h>

#include "sm/mad/BitField.h"
#include "sm/sa/Notices.h"

namespace ibsm::sm::sa {
namespace {

const Gid kPortGid = makeGid(kDefaultSubnetPrefix, Guid{0x0002c90300000011});
const Gid kSmGid = makeGid(kDefaultSubnetPrefix, Guid{0x0002c90300000001});
constexpr Lid kSmLid{1};

// What a host asks for when it wants everything (sa-client, srp_daemon).
InformInfo everything() {
  InformInfo i;
  i.lidRangeBegin = Lid{InformInfo::kAllLids};
  i.isGeneric = true;
  i.type = kAnyType;
  i.trapNumber = kAnyTrap;
  i.producerType = kAnyProducer;
  return i;
}

SaNotice outOfService() {
  return gidNotice(noticeTrap::kGidOutOfService, kPortGid, kSmLid, kSmGid);
}

// Trap 128 from a switch of LID 7, as received and forwarded.
SaNotice linkStateChange() {
  SaNotice n;
  n.notice.isGeneric = true;
  n.notice.type = 1;          // urgent
  n.notice.producerType = 2;  // switch
  n.notice.trapNumber = 128;
  n.notice.issuerLid = Lid{7};
  n.issuerGid = makeGid(kDefaultSubnetPrefix, Guid{0x77});
  return n;
}

TEST(NoticeMatch, AWildcardSubscriptionHearsEveryGenericNotice) {
  EXPECT_TRUE(informMatches(everything(), outOfService()));
  EXPECT_TRUE(informMatches(everything(), linkStateChange()));
}

TEST(NoticeMatch, TrapNumberMustMatchUnless0xFFFF) {
  InformInfo i = everything();
  i.trapNumber = 65;
  EXPECT_TRUE(informMatches(i, outOfService()));
  i.trapNumber = 64;
  EXPECT_FALSE(informMatches(i, outOfService()));
  EXPECT_FALSE(informMatches(i, linkStateChange()));
}

TEST(NoticeMatch, IsGenericMustMatchExactly) {
  InformInfo i = everything();
  i.isGeneric = false;
  EXPECT_FALSE(informMatches(i, outOfService()));
  SaNotice vendor = linkStateChange();
  vendor.notice.isGeneric = false;
  EXPECT_TRUE(informMatches(i, vendor));
  EXPECT_FALSE(informMatches(everything(), vendor));
}

TEST(NoticeMatch, TypeMustMatchUnless0xFFFF) {
  InformInfo i = everything();
  i.type = kNoticeTypeSubnetManagement;
  EXPECT_TRUE(informMatches(i, outOfService()));
  EXPECT_FALSE(informMatches(i, linkStateChange()));
}

TEST(NoticeMatch, ProducerTypeMustMatchUnless0xFFFFFF) {
  InformInfo i = everything();
  i.producerType = kProducerClassManager;
  EXPECT_TRUE(informMatches(i, outOfService()));
  EXPECT_FALSE(informMatches(i, linkStateChange()));
}

TEST(NoticeMatch, AVendorSubscriptionMatchesDeviceIdAndVendorId) {
  SaNotice vendor;
  vendor.notice.isGeneric = false;
  vendor.notice.producerType = 0x0002c9;  // VendorID
  vendor.notice.trapNumber = 0x1003;      // DeviceID
  InformInfo i = everything();
  i.isGeneric = false;
  i.trapNumber = 0x1003;
  i.producerType = 0x0002c9;
  EXPECT_TRUE(informMatches(i, vendor));
  i.trapNumber = 0x1004;
  EXPECT_FALSE(informMatches(i, vendor));
  i.trapNumber = kAnyTrap;
  i.producerType = 0x0002c8;
  EXPECT_FALSE(informMatches(i, vendor));
}

TEST(NoticeMatch, ALidRangeHoldsTheIssuerUnlessItBeginsAt0xFFFF) {
  InformInfo i = everything();
  i.lidRangeBegin = Lid{5};
  i.lidRangeEnd = Lid{7};
  EXPECT_TRUE(informMatches(i, linkStateChange()));
  i.lidRangeEnd = Lid{6};
  EXPECT_FALSE(informMatches(i, linkStateChange()));
  i.lidRangeBegin = Lid{8};
  i.lidRangeEnd = Lid{9};
  EXPECT_FALSE(informMatches(i, linkStateChange()));
  EXPECT_FALSE(informMatches(i, outOfService())) << "the SM (LID 1) issues 65";
}

TEST(NoticeMatch, AGidNamesTheIssuerOrThePortA64To67NoticeIsAbout) {
  InformInfo i = everything();
  i.gid = kPortGid;
  i.lidRangeBegin = Lid{100};  // ignored when a GID is given
  i.lidRangeEnd = Lid{100};
  EXPECT_TRUE(informMatches(i, outOfService())) << "the GID in DataDetails, not the SM's";
  EXPECT_FALSE(informMatches(i, linkStateChange()));
  i.gid = linkStateChange().issuerGid;
  EXPECT_TRUE(informMatches(i, linkStateChange()));
  EXPECT_FALSE(informMatches(i, outOfService()));
}

TEST(NoticeLayout, ATrap65ReportCarriesTheGidWhereLibibmadReadsIt) {
  const SaNotice n = outOfService();
  auto mad = encodeReport(n, 0x1234);
  ASSERT_EQ(mad.size(), kMadSize);
  EXPECT_EQ(mad[1], kSaClass);
  EXPECT_EQ(mad[2], kSaClassVersion);
  EXPECT_EQ(mad[3], saMethod::kReport);
  EXPECT_EQ(mad::getBits(mad, 64, 64), 0x1234U);
  EXPECT_EQ(mad::getBits(mad, 128, 16), saAttr::kNotice);
  std::uint8_t* notice = mad.data() + kSaHeaderSize;
  EXPECT_EQ(mad_get_field(notice, 0, IB_NOTICE_IS_GENERIC_F), 1U);
  EXPECT_EQ(mad_get_field(notice, 0, IB_NOTICE_TYPE_F), 3U);
  EXPECT_EQ(mad_get_field(notice, 0, IB_NOTICE_PRODUCER_F), 4U);
  EXPECT_EQ(mad_get_field(notice, 0, IB_NOTICE_TRAP_NUMBER_F), 65U);
  EXPECT_EQ(mad_get_field(notice, 0, IB_NOTICE_ISSUER_LID_F), 1U);
  Gid details{};
  std::copy_n(notice + 16, details.size(), details.begin());  // DataDetails + 6
  EXPECT_EQ(details, kPortGid);
  Gid issuer{};
  std::copy_n(notice + 64, issuer.size(), issuer.begin());
  EXPECT_EQ(issuer, kSmGid);
  EXPECT_EQ(noticeGid(n), kPortGid);
  EXPECT_EQ(*decodeRecord<SaNotice>(std::span(mad).subspan(kSaHeaderSize)), n);
}

}  // namespace
}  // namespace ibsm::sm::sa
