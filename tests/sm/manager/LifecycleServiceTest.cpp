// What the service manager is told (sd_notify through SmDaemon::onLifecycle):
// Ready once, when the SM knows its place -- a master after its first heavy
// or take-over sweep, up or not; a standby or not-active SM as soon as it
// is one --; Reloading and Ready around a reload; Stopping always.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "sm/control/StatusFormat.h"
#include "sm/manager/LifecycleService.h"

namespace ibsm::sm::manager {
namespace {

using Lifecycle = SmDaemon::Lifecycle;

class LifecycleServiceTest : public ::testing::Test {
 protected:
  LifecycleServiceTest() {
    service.listen([this](Lifecycle what, std::string_view line) {
      told.emplace_back(what, std::string(line));
    });
  }
  void sweep(control::SweepKind kind) {
    control::SweepInfo info;
    info.kind = kind;
    service.onSweep({.info = info, .result = nullptr});
  }
  // As the core does: the service is told, then the agent shows the state.
  void become(SmState to) {
    service.onState(self.smState, to, false);
    self.smState = to;
  }

  SmInfo self{.guid = Guid{0x101},
              .smKey = 0,
              .actCount = 0,
              .priority = 1,
              .smState = SmState::Discovering};
  bool up{false};
  LifecycleService service{self, up};
  std::vector<std::pair<Lifecycle, std::string>> told;
};

TEST_F(LifecycleServiceTest, AStandbyIsReadyAsSoonAsItIsOneAndOnlyOnce) {
  become(SmState::Standby);
  become(SmState::NotActive);
  become(SmState::Standby);
  ASSERT_EQ(told.size(), 1U);
  EXPECT_EQ(told[0].first, Lifecycle::Ready);
  EXPECT_EQ(told[0].second, "STANDBY");
}

TEST_F(LifecycleServiceTest, ANotActiveSmIsReadyToo) {
  become(SmState::NotActive);
  ASSERT_EQ(told.size(), 1U);
  EXPECT_EQ(told[0].second, "NOTACTIVE");
}

TEST_F(LifecycleServiceTest, AMasterIsReadyAfterItsFirstHeavySweepUpOrNot) {
  become(SmState::Master);
  sweep(control::SweepKind::Discovery);
  EXPECT_TRUE(told.empty()) << "becoming master is not ready: its first sweep is";
  sweep(control::SweepKind::Heavy);
  sweep(control::SweepKind::Heavy);
  sweep(control::SweepKind::Light);
  ASSERT_EQ(told.size(), 1U);
  EXPECT_EQ(told[0].first, Lifecycle::Ready);
  EXPECT_EQ(told[0].second, "MASTER, subnet not up");
}

TEST_F(LifecycleServiceTest, ATakeoverSweepMakesTheMasterReadyWithTheSubnetUp) {
  become(SmState::Master);
  up = true;
  sweep(control::SweepKind::Takeover);
  ASSERT_EQ(told.size(), 1U);
  EXPECT_EQ(told[0].second, "MASTER, subnet up");
}

TEST_F(LifecycleServiceTest, AReloadBeforeReadyIsNotAnnouncedAndTheFirstReadyStillComes) {
  service.reloading();
  service.reloaded();
  EXPECT_TRUE(told.empty());
  become(SmState::Standby);
  ASSERT_EQ(told.size(), 1U);
  EXPECT_EQ(told[0].first, Lifecycle::Ready);
}

TEST_F(LifecycleServiceTest, AReloadOnceReadyIsReloadingThenReadyAgain) {
  become(SmState::Standby);
  service.reloading();
  service.reloaded();
  service.reloaded();  // no second reload announced: nothing more
  ASSERT_EQ(told.size(), 3U);
  EXPECT_EQ(told[1].first, Lifecycle::Reloading);
  EXPECT_EQ(told[1].second, "STANDBY");
  EXPECT_EQ(told[2].first, Lifecycle::Ready);
}

TEST_F(LifecycleServiceTest, AHeavySweepDuringAReloadEndsItWithReady) {
  become(SmState::Master);
  sweep(control::SweepKind::Heavy);
  service.reloading();
  sweep(control::SweepKind::Heavy);
  service.reloaded();
  ASSERT_EQ(told.size(), 3U);
  EXPECT_EQ(told[1].first, Lifecycle::Reloading);
  EXPECT_EQ(told[2].first, Lifecycle::Ready);
}

TEST_F(LifecycleServiceTest, StoppingIsAlwaysTold) {
  service.stopping();
  ASSERT_EQ(told.size(), 1U);
  EXPECT_EQ(told[0].first, Lifecycle::Stopping);
  EXPECT_EQ(told[0].second, "DISCOVERING");
}

TEST_F(LifecycleServiceTest, WithoutAListenerNothingIsToldButReadyIsStillOnce) {
  LifecycleService quiet{self, up};
  quiet.onState(SmState::Discovering, SmState::Standby, false);
  quiet.listen([this](Lifecycle what, std::string_view line) {
    told.emplace_back(what, std::string(line));
  });
  quiet.onState(SmState::Standby, SmState::NotActive, false);
  EXPECT_TRUE(told.empty());
}

}  // namespace
}  // namespace ibsm::sm::manager
