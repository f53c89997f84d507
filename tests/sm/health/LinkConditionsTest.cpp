// Which links count as downgraded: the width and speed each end supports,
// enables and its peer supports, against what is active.
#include <gtest/gtest.h>

#include "sm/health/LinkConditions.h"

namespace ibsm::sm::health {
namespace {

// 1x|2x|4x|8x|12x and SDR|DDR|QDR Supported, as ibsim reports on every port.
LinkAttrs ibsimPort(std::uint8_t widthEnabled, std::uint8_t widthActive) {
  return {.widthSupported = 31,
          .widthEnabled = widthEnabled,
          .widthActive = widthActive,
          .speedSupported = 7,
          .speedEnabled = 1,
          .speedActive = 1};
}

struct TwoEnds {
  Fabric f;
  PortRef sw{};
  PortRef host{};
};

TwoEnds cabled(LinkAttrs swSide, LinkAttrs hostSide) {
  TwoEnds t;
  t.sw = {*t.f.addNode(Node::makeSwitch(Guid{0x200}, 4, "s1")), 3};
  t.host = {*t.f.addNode(Node::makeCa(Guid{0x100}, {Guid{0x101}}, "h1")), 1};
  EXPECT_TRUE(t.f.connect(t.sw, t.host));
  for (auto [end, attrs] : {std::pair{t.sw, swSide}, std::pair{t.host, hostSide}}) {
    t.f.port(end).link = attrs;
    t.f.port(end).state = PortState::Active;
  }
  return t;
}

TEST(Downgraded, IbsimDefaultLinkIsNotDowngradedThoughSupportedSays12x) {
  // iblinkinfo prints "Could be 12X" here; ports enabled for 4x only are not.
  auto t = cabled(ibsimPort(2, 2), ibsimPort(2, 2));
  EXPECT_TRUE(downgradedLinks(t.f).empty());
}

TEST(Downgraded, W3CabledToW1IsReportedAtTheEndThatEnables4x) {
  // ibsim: w=3 (1x|4x) against w=1 (1x) trains at the common 1x.
  auto t = cabled(ibsimPort(3, 1), ibsimPort(1, 1));
  const auto found = downgradedLinks(t.f);
  ASSERT_EQ(found.size(), 1U);
  const EndRate& host = found[0].a;  // GUID 0x100 < 0x200
  const EndRate& sw = found[0].b;
  EXPECT_EQ(host.port, t.host);
  EXPECT_EQ(host.expectedLanes, 1U);
  EXPECT_EQ(host.activeLanes, 1U);
  EXPECT_FALSE(host.downgraded());
  EXPECT_EQ(sw.port, t.sw);
  EXPECT_EQ(sw.expectedLanes, 4U);
  EXPECT_EQ(sw.activeLanes, 1U);
  EXPECT_TRUE(sw.downgraded());
  EXPECT_NE(found[0].detail.find("4x SDR expected, 1x SDR active"), std::string::npos)
      << found[0].detail;
  EXPECT_NE(found[0].detail.find("\"h1\"[1]"), std::string::npos) << found[0].detail;
}

TEST(Downgraded, BothEndsEnable4xButActive1xIsALaneFault) {
  auto t = cabled(ibsimPort(3, 1), ibsimPort(3, 1));
  const auto found = downgradedLinks(t.f);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_TRUE(found[0].a.downgraded());
  EXPECT_TRUE(found[0].b.downgraded());
}

TEST(Downgraded, WidthThePeerDoesNotSupportIsNotExpected) {
  LinkAttrs narrow = ibsimPort(3, 1);
  narrow.widthSupported = 1;  // a 1x-only port
  auto t = cabled(ibsimPort(3, 1), narrow);
  EXPECT_TRUE(downgradedLinks(t.f).empty());
}

TEST(Downgraded, ExtendedSpeedsBeatBaseOnesWhenBothEndsHaveThem) {
  LinkAttrs edr = ibsimPort(2, 2);
  edr.speedEnabled = 7;
  edr.speedActive = 4;  // QDR base...
  edr.extSpeedSupported = 3;
  edr.extSpeedEnabled = 3;
  edr.extSpeedActive = 2;  // ...but EDR active
  auto t = cabled(edr, edr);
  EXPECT_TRUE(downgradedLinks(t.f).empty());

  LinkAttrs qdrOnly = edr;
  qdrOnly.extSpeedActive = 0;  // trained at QDR where EDR was possible
  t = cabled(qdrOnly, qdrOnly);
  const auto found = downgradedLinks(t.f);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].a.expectedSpeed, Speed::Edr);
  EXPECT_EQ(found[0].a.activeSpeed, Speed::Qdr);
}

TEST(Downgraded, PeerWithoutExtendedSpeedsExpectsTheBaseSpeed) {
  LinkAttrs edr = ibsimPort(2, 2);
  edr.speedEnabled = 7;
  edr.speedActive = 4;
  edr.extSpeedSupported = edr.extSpeedEnabled = 3;
  LinkAttrs qdr = edr;
  qdr.extSpeedSupported = qdr.extSpeedEnabled = 0;
  auto t = cabled(edr, qdr);
  EXPECT_TRUE(downgradedLinks(t.f).empty());
}

TEST(Downgraded, PortNotTrainedIsSkipped) {
  auto t = cabled(ibsimPort(3, 1), ibsimPort(1, 1));
  t.f.port(t.sw).state = PortState::Down;
  EXPECT_TRUE(downgradedLinks(t.f).empty());
}

TEST(Downgraded, LanesAndSpeedsDecodeAsPortInfoEncodesThem) {
  EXPECT_EQ(widestLanes(0x1F), 12U);
  EXPECT_EQ(widestLanes(0x13), 4U);  // 1x|2x|4x
  EXPECT_EQ(widestLanes(0x11), 2U);  // 1x|2x
  EXPECT_EQ(widestLanes(0), 0U);
  EXPECT_EQ(fastest(7, 0), Speed::Qdr);
  EXPECT_EQ(fastest(7, 8), Speed::Ndr);
  EXPECT_EQ(fastest(0, 0), Speed::None);
  EXPECT_EQ(speedName(Speed::Hdr), "HDR");
}

}  // namespace
}  // namespace ibsm::sm::health
