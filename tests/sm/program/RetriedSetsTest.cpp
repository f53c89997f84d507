// A PortInfo Set refused on a retry counts as done when the port holds what
// it asked for: what "holds" means, field by field.
#include <gtest/gtest.h>

#include "sm/program/RetriedSets.h"

namespace ibsm::sm::program {
namespace {

PortInfo asked() {
  PortInfo p;
  p.portState = PortState::Armed;
  p.lid = Lid{12};
  p.masterSmLid = Lid{1};
  p.lmc = 0;
  p.neighborMtu = 5;
  p.operationalVls = 4;
  return p;
}

TEST(RetriedSets, AnArmedSetIsDoneOnceThePortIsArmedOrBeyond) {
  PortInfo held = asked();
  EXPECT_TRUE(holdsWhatWasSet(asked(), held));
  held.portState = PortState::Active;
  EXPECT_TRUE(holdsWhatWasSet(asked(), held));
  held.portState = PortState::Init;
  EXPECT_FALSE(holdsWhatWasSet(asked(), held));
}

TEST(RetriedSets, TheLidAndSmLidAndLmcWrittenMustBeHeld) {
  PortInfo held = asked();
  held.lid = Lid{13};
  EXPECT_FALSE(holdsWhatWasSet(asked(), held));
  held = asked();
  held.masterSmLid = Lid{2};
  EXPECT_FALSE(holdsWhatWasSet(asked(), held));
  held = asked();
  held.lmc = 1;
  EXPECT_FALSE(holdsWhatWasSet(asked(), held));
}

TEST(RetriedSets, MtuAndVlsCountOnlyWhereTheSetWroteThem) {
  PortInfo held = asked();
  held.neighborMtu = 4;
  EXPECT_FALSE(holdsWhatWasSet(asked(), held));
  PortInfo leftAlone = asked();
  leftAlone.neighborMtu = 0;
  leftAlone.operationalVls = 0;
  held.operationalVls = 2;
  EXPECT_TRUE(holdsWhatWasSet(leftAlone, held));
}

TEST(RetriedSets, OnlyRefusedRetriedPortInfoSetsAreReadBack) {
  const auto set = SmpRequest::set(AttributeId::PortInfo, 3, DrPath{}, SmpData{});
  SmpReply refused;
  refused.outcome = SmpOutcome::BadStatus;
  refused.status = 0x1c;
  refused.attempts = 2;
  EXPECT_TRUE(worthReadingBack(set, refused));
  SmpReply first = refused;
  first.attempts = 1;  // refused outright: the port means it
  EXPECT_FALSE(worthReadingBack(set, first));
  SmpReply lost;
  lost.outcome = SmpOutcome::Timeout;
  lost.attempts = 4;
  EXPECT_FALSE(worthReadingBack(set, lost));
  EXPECT_FALSE(worthReadingBack(SmpRequest::get(AttributeId::PortInfo, 3, DrPath{}), refused));
  EXPECT_FALSE(
      worthReadingBack(SmpRequest::set(AttributeId::SwitchInfo, 0, DrPath{}, SmpData{}), refused));
}

}  // namespace
}  // namespace ibsm::sm::program
