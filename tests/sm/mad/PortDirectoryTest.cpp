// What the port directory (sm/mad/PortDirectory.h) learns from answers, and
// what learn() returns: the port an SMP to the same route or LID is checked
// by as known after the answer -- what portAt() says then, so the engine
// looks a route up once per answer.
#include <gtest/gtest.h>
#include <ibsm/MadAttributes.h>

#include <vector>

#include "sm/mad/PortDirectory.h"

namespace ibsm::sm::mad {
namespace {

constexpr Guid kSwitchPort0{0x200000};
constexpr Guid kCaPort{0x100001};

DrPath path(std::initializer_list<std::uint8_t> ports) {
  return *DrPath::fromPorts(std::vector<std::uint8_t>(ports));
}

Smp nodeInfoAnswer(NodeType type, Guid port) {
  Smp smp;
  smp.header.attributeId = AttributeId::NodeInfo;
  NodeInfo ni;
  ni.nodeType = type;
  ni.portGuid = port;
  smp.data = encode(ni);
  return smp;
}

Smp portInfoAnswer(std::uint8_t asked, Lid lid, std::uint8_t localPort = 1) {
  Smp smp;
  smp.header.attributeId = AttributeId::PortInfo;
  smp.header.attributeModifier = asked;
  PortInfo pi;
  pi.lid = lid;
  pi.localPortNum = localPort;
  smp.data = encode(pi);
  return smp;
}

TEST(PortDirectory, ANodeInfoNamesTheRoutesPortAndLearnReturnsIt) {
  PortDirectory d;
  const DrPath toSwitch = path({3});
  EXPECT_EQ(d.portAt(toSwitch), std::nullopt);
  EXPECT_EQ(d.learn(toSwitch, nodeInfoAnswer(NodeType::Switch, kSwitchPort0)), kSwitchPort0);
  EXPECT_EQ(d.portAt(toSwitch), kSwitchPort0);
  // Another route is still unknown.
  EXPECT_EQ(d.portAt(path({3, 1})), std::nullopt);
}

TEST(PortDirectory, AnAnswerOnAnUnknownRouteTeachesNothingAndReturnsNothing) {
  PortDirectory d;
  EXPECT_EQ(d.learn(path({2}), portInfoAnswer(0, Lid{7})), std::nullopt);
  EXPECT_EQ(d.portAt(Lid{7}), std::nullopt);
  EXPECT_EQ(d.routes(), 0U);
}

TEST(PortDirectory, ThePortInfoOfTheCheckingPortTeachesItsLids) {
  PortDirectory d;
  const DrPath toCa = path({1});
  d.learn(toCa, nodeInfoAnswer(NodeType::Ca, kCaPort));
  // Another port of the CA (modifier 2, the CA entered on 1): not its LID.
  EXPECT_EQ(d.learn(toCa, portInfoAnswer(2, Lid{30}, /*localPort=*/1)), kCaPort);
  EXPECT_EQ(d.portAt(Lid{30}), std::nullopt);
  // Its own port: the LID now leads to it, and a LID-routed answer returns it.
  EXPECT_EQ(d.learn(toCa, portInfoAnswer(0, Lid{12})), kCaPort);
  EXPECT_EQ(d.portAt(Lid{12}), kCaPort);
  EXPECT_EQ(d.learn(Lid{12}, portInfoAnswer(0, Lid{12})), kCaPort);
  EXPECT_EQ(d.learn(Lid{13}, portInfoAnswer(0, Lid{13})), std::nullopt);
}

TEST(PortDirectory, AnyOtherAnswerOnAKnownRouteReturnsItsPort) {
  PortDirectory d;
  const DrPath toSwitch = path({3});
  d.learn(toSwitch, nodeInfoAnswer(NodeType::Switch, kSwitchPort0));
  Smp lft;
  lft.header.attributeId = AttributeId::LinearForwardingTable;
  EXPECT_EQ(d.learn(toSwitch, lft), kSwitchPort0);
}

}  // namespace
}  // namespace ibsm::sm::mad
