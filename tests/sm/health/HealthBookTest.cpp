// The health book: one change per episode, never one per sweep; isolation
// and re-admission as the policy says.
#include <gtest/gtest.h>

#include "sm/health/HealthBook.h"

namespace ibsm::sm::health {
namespace {

using namespace std::chrono_literals;

const Clock::time_point t0{};
const std::chrono::system_clock::time_point wall{};
const PortKey kSw{Guid{0x20}, 1};
const PortKey kPeer{Guid{0x10}, 1};
const LinkKey kLink = linkKey(kSw, kPeer);

Finding flappingLink() {
  return {.port = kPeer, .name = "s1", .peer = kSw, .peerName = "s2", .detail = "3 downs in 60 s"};
}

HealthPolicy policy(Action flapping) {
  HealthPolicy p{.cleanPeriod = 100s};
  p.action[static_cast<std::size_t>(Condition::Flapping)] = flapping;
  return p;
}

std::vector<Transition> transitions(const std::vector<HealthChange>& changes) {
  std::vector<Transition> out;
  for (const auto& c : changes) out.push_back(c.transition);
  return out;
}

using T = Transition;

TEST(HealthBook, OneChangeWhenAConditionStartsNoneWhileItLasts) {
  HealthBook book(policy(Action::Report));
  EXPECT_EQ(transitions(book.observe(Condition::Flapping, {flappingLink()}, t0, wall)),
            std::vector{T::BecameUnhealthy});
  EXPECT_TRUE(book.observe(Condition::Flapping, {flappingLink()}, t0 + 10s, wall).empty());
  ASSERT_EQ(book.entries().size(), 1U);
  EXPECT_EQ(book.entries()[0].detail, "3 downs in 60 s");
  EXPECT_EQ(book.entries()[0].action, Action::Report);
}

TEST(HealthBook, AReportedConditionRecoversAsSoonAsItIsGone) {
  HealthBook book(policy(Action::Report));
  (void)book.observe(Condition::Flapping, {flappingLink()}, t0, wall);
  EXPECT_EQ(transitions(book.observe(Condition::Flapping, {}, t0 + 1s, wall)),
            std::vector{T::Recovered});
  EXPECT_TRUE(book.entries().empty());
}

TEST(HealthBook, OtherConditionsAreLeftAlone) {
  HealthBook book(policy(Action::Report));
  (void)book.observe(Condition::Flapping, {flappingLink()}, t0, wall);
  EXPECT_TRUE(book.observe(Condition::Downgraded, {}, t0 + 1s, wall).empty());
  EXPECT_EQ(book.entries().size(), 1U);
}

TEST(HealthBook, ReportPolicyIsolatesNothing) {
  HealthBook book(policy(Action::Report));
  (void)book.observe(Condition::Flapping, {flappingLink()}, t0, wall);
  EXPECT_TRUE(book.wantIsolated().empty());
}

TEST(HealthBook, IsolatedOnceAndReadmittedAfterTheCleanPeriod) {
  HealthBook book(policy(Action::Isolate));
  (void)book.observe(Condition::Flapping, {flappingLink()}, t0, wall);
  EXPECT_EQ(book.wantIsolated(), std::vector{kLink});
  EXPECT_EQ(transitions(book.isolation({kLink}, {})), std::vector{T::Isolated});
  EXPECT_TRUE(book.isolation({kLink}, {}).empty()) << "already isolated";
  EXPECT_TRUE(book.entries()[0].isolated);
  // Gone at 10 s: still out of the routes for 100 s after it was last seen.
  EXPECT_TRUE(book.observe(Condition::Flapping, {}, t0 + 10s, wall).empty());
  EXPECT_TRUE(book.observe(Condition::Flapping, {}, t0 + 99s, wall).empty());
  EXPECT_EQ(book.wantIsolated(), std::vector{kLink});
  EXPECT_EQ(transitions(book.observe(Condition::Flapping, {}, t0 + 100s, wall)),
            (std::vector{T::Readmitted, T::Recovered}));
  EXPECT_TRUE(book.wantIsolated().empty());
}

TEST(HealthBook, BackDuringTheCleanPeriodStartsTheWaitAgain) {
  HealthBook book(policy(Action::Isolate));
  (void)book.observe(Condition::Flapping, {flappingLink()}, t0, wall);
  (void)book.isolation({kLink}, {});
  (void)book.observe(Condition::Flapping, {}, t0 + 50s, wall);
  EXPECT_TRUE(book.observe(Condition::Flapping, {flappingLink()}, t0 + 60s, wall).empty());
  EXPECT_TRUE(book.observe(Condition::Flapping, {}, t0 + 159s, wall).empty());
  EXPECT_FALSE(book.observe(Condition::Flapping, {}, t0 + 160s, wall).empty());
}

TEST(HealthBook, RefusedIsolationIsSaidOnceWithWhy) {
  HealthBook book(policy(Action::Isolate));
  (void)book.observe(Condition::Flapping, {flappingLink()}, t0, wall);
  const std::vector<RefusedLink> refused{{kLink, "the only way to reach \"h1\""}};
  const auto changes = book.isolation({}, refused);
  ASSERT_EQ(transitions(changes), std::vector{T::IsolationRefused});
  EXPECT_EQ(changes[0].why, "the only way to reach \"h1\"");
  EXPECT_TRUE(book.isolation({}, refused).empty());
  EXPECT_FALSE(book.entries()[0].isolated);
  EXPECT_EQ(book.entries()[0].notIsolatedWhy, "the only way to reach \"h1\"");
}

TEST(HealthBook, ReadmittedByHandStaysInTheRoutesForTheEpisode) {
  HealthBook book(policy(Action::Isolate));
  (void)book.observe(Condition::Flapping, {flappingLink()}, t0, wall);
  (void)book.isolation({kLink}, {});
  const auto change = book.readmit(kLink);
  ASSERT_TRUE(change);
  EXPECT_EQ(change->transition, T::Readmitted);
  EXPECT_TRUE(book.wantIsolated().empty());
  EXPECT_TRUE(book.isolation({}, {}).empty());
  EXPECT_EQ(book.entries()[0].notIsolatedWhy, "re-admitted by the operator");
  EXPECT_FALSE(book.readmit(kLink)) << "nothing isolated any more";
  // A new episode after recovery is isolated again.
  (void)book.observe(Condition::Flapping, {}, t0 + 10s, wall);
  (void)book.observe(Condition::Flapping, {flappingLink()}, t0 + 20s, wall);
  EXPECT_EQ(book.wantIsolated(), std::vector{kLink});
}

// The plan runs off the loop: one begun before the operator's re-admission
// lands after it, still avoiding the link. The link is out of the routes
// until the next plan, and then back in, by the operator's word throughout.
TEST(HealthBook, APlanMadeBeforeTheReadmissionKeepsTheOperatorsReason) {
  HealthBook book(policy(Action::Isolate));
  (void)book.observe(Condition::Flapping, {flappingLink()}, t0, wall);
  (void)book.isolation({kLink}, {});
  ASSERT_TRUE(book.readmit(kLink));
  EXPECT_EQ(transitions(book.isolation({kLink}, {})), std::vector{T::Isolated});
  EXPECT_TRUE(book.entries()[0].isolated) << "the tables still avoid it";
  EXPECT_EQ(book.entries()[0].notIsolatedWhy, "re-admitted by the operator");
  EXPECT_TRUE(book.wantIsolated().empty());
  const auto back = book.isolation({}, {});
  ASSERT_EQ(transitions(back), std::vector{T::Readmitted});
  EXPECT_EQ(back[0].why, "by the operator");
  EXPECT_FALSE(book.entries()[0].isolated);
  EXPECT_EQ(book.entries()[0].notIsolatedWhy, "re-admitted by the operator");
}

TEST(HealthBook, PolicyBackToReportReadmits) {
  HealthBook book(policy(Action::Isolate));
  (void)book.observe(Condition::Flapping, {flappingLink()}, t0, wall);
  (void)book.isolation({kLink}, {});
  book.setPolicy(policy(Action::Report));
  EXPECT_TRUE(book.wantIsolated().empty());
  EXPECT_EQ(transitions(book.isolation({}, {})), std::vector{T::Readmitted});
  EXPECT_EQ(book.entries()[0].action, Action::Report);
}

// Issue 27: an entry isolated after a SIGHUP made its condition isolating
// says so, before the detector finds it again: "action":"isolate", not
// "report" with "isolated":true.
TEST(HealthBook, APolicyChangedToIsolateIsTheActionOfTheOpenEntriesAtOnce) {
  HealthBook book(policy(Action::Report));
  (void)book.observe(Condition::Flapping, {flappingLink()}, t0, wall);
  book.setPolicy(policy(Action::Isolate));
  EXPECT_EQ(book.entries()[0].action, Action::Isolate);
  const auto changes = book.isolation({kLink}, {});
  ASSERT_EQ(transitions(changes), std::vector{T::Isolated});
  EXPECT_EQ(changes[0].entry.action, Action::Isolate) << "what SM-1603 and the view say";
  EXPECT_EQ(book.entries()[0].action, Action::Isolate);
  EXPECT_TRUE(book.entries()[0].isolated);
}

}  // namespace
}  // namespace ibsm::sm::health
