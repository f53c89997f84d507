// Reports in flight: sent at once to the subscriber's address, sent again
// with the same TID after the subscriber's timeout until a ReportResp of
// that TID comes back, given up (counted failed) after the retries. Time
// is a plain time_point the test moves.
#include <gtest/gtest.h>

#include "sm/mad/BitField.h"
#include "sm/sa/Notices.h"
#include "sm/sa/Reports.h"

namespace ibsm::sm::sa {
namespace {

using namespace std::chrono_literals;
using Clock = Reports::Clock;

const Clock::time_point t0{};

Subscription subscriber(std::uint8_t respTimeValue = 0) {
  Subscription s;
  s.subscriber = makeGid(kDefaultSubnetPrefix, Guid{0x22});
  s.reportTo = GmpAddress{.lid = Lid{22}, .qpn = 1, .sl = 0, .pkeyIndex = 0, .gid = std::nullopt};
  s.info.respTimeValue = respTimeValue;
  return s;
}

SaNotice trap65() {
  return gidNotice(noticeTrap::kGidOutOfService, makeGid(kDefaultSubnetPrefix, Guid{0x33}), Lid{1},
                   makeGid(kDefaultSubnetPrefix, Guid{0x11}));
}

std::uint64_t tidOf(const std::vector<std::uint8_t>& mad) {
  return mad::getBits(mad, 64, 64);
}

// The subscriber's answer, with the upper TID bits changed as a kernel
// agent (or umad2sim) changes them.
std::vector<std::uint8_t> reportResp(const std::vector<std::uint8_t>& report) {
  auto resp = report;
  resp[3] = saMethod::kReportResp;
  resp[8] = 0x5A;
  return resp;
}

TEST(ReportTimeout, IsTheSubscribersRespTimePlusARoundTripWithinBounds) {
  const ReportSettings s{.packetLifeTime = 10};  // 4 ms
  EXPECT_EQ(reportTimeout(16, s), 277ms) << "268.4 ms + 2 * 4.2 ms, rounded up";
  EXPECT_EQ(reportTimeout(0, s), s.minTimeout);
  EXPECT_EQ(reportTimeout(31, s), s.maxTimeout);
}

TEST(Reports, AReportGoesOutAtOnceToTheSubscriberAndEndsWithItsReportResp) {
  Reports reports;
  reports.add(trap65(), subscriber(), t0);
  EXPECT_EQ(reports.nextDeadline(), t0);
  const auto out = reports.due(t0);
  ASSERT_EQ(out.size(), 1U);
  EXPECT_EQ(out[0].to, subscriber().reportTo);
  EXPECT_EQ(out[0].mad[3], saMethod::kReport);
  EXPECT_EQ(*decodeRecord<SaNotice>(std::span(out[0].mad).subspan(kSaHeaderSize)), trap65());
  EXPECT_EQ(reports.counters().sent, 1U);

  EXPECT_TRUE(reports.acknowledge(reportResp(out[0].mad)));
  EXPECT_EQ(reports.counters().acknowledged, 1U);
  EXPECT_EQ(reports.outstanding(), 0U);
  EXPECT_FALSE(reports.nextDeadline());
  EXPECT_FALSE(reports.acknowledge(reportResp(out[0].mad))) << "a duplicate ends nothing";
  EXPECT_EQ(reports.counters().unmatched, 1U);
}

TEST(Reports, WithoutReportRespTheSameMadIsSentAgainEachTimeoutThenFails) {
  const ReportSettings s{.packetLifeTime = 0, .retries = 2};
  Reports reports(s);
  reports.add(trap65(), subscriber(), t0);
  const auto first = reports.due(t0);
  ASSERT_EQ(first.size(), 1U);
  EXPECT_TRUE(reports.due(t0 + s.minTimeout - 1ms).empty()) << "not before the timeout";
  EXPECT_EQ(reports.nextDeadline(), t0 + s.minTimeout);

  const auto second = reports.due(t0 + s.minTimeout);
  ASSERT_EQ(second.size(), 1U);
  EXPECT_EQ(second[0].mad, first[0].mad) << "a retry keeps the TID";
  const auto third = reports.due(t0 + 2 * s.minTimeout);
  ASSERT_EQ(third.size(), 1U);
  EXPECT_TRUE(reports.due(t0 + 3 * s.minTimeout).empty());
  EXPECT_EQ(reports.counters().sent, 1U);
  EXPECT_EQ(reports.counters().retried, 2U);
  EXPECT_EQ(reports.counters().failed, 1U);
  EXPECT_EQ(reports.outstanding(), 0U);
}

TEST(Reports, AnAnswerToARetryEndsTheReport) {
  Reports reports;
  reports.add(trap65(), subscriber(), t0);
  const auto first = reports.due(t0);
  ASSERT_EQ(reports.due(t0 + 3s).size(), 1U);
  EXPECT_TRUE(reports.acknowledge(reportResp(first[0].mad)));
  EXPECT_TRUE(reports.due(t0 + 10s).empty());
  EXPECT_EQ(reports.counters().failed, 0U);
}

TEST(Reports, EachReportHasItsOwnTidAndOnlyItsOwnAnswerEndsIt) {
  Reports reports;
  reports.add(trap65(), subscriber(), t0);
  reports.add(trap65(), subscriber(), t0);
  const auto out = reports.due(t0);
  ASSERT_EQ(out.size(), 2U);
  EXPECT_NE(tidOf(out[0].mad), tidOf(out[1].mad));
  EXPECT_TRUE(reports.acknowledge(reportResp(out[1].mad)));
  EXPECT_EQ(reports.outstanding(), 1U);
  auto notAResponse = out[0].mad;  // a Report is no answer
  EXPECT_FALSE(reports.acknowledge(notAResponse));
  EXPECT_EQ(reports.outstanding(), 1U);
}

TEST(Reports, EachSubscriberWaitsAsLongAsItAsked) {
  const ReportSettings s{.packetLifeTime = 0};
  Reports reports(s);
  reports.add(trap65(), subscriber(0), t0);   // min timeout
  reports.add(trap65(), subscriber(18), t0);  // 1.07 s
  const auto out = reports.due(t0);
  ASSERT_EQ(out.size(), 2U);
  EXPECT_EQ(reports.nextDeadline(), t0 + s.minTimeout);
  ASSERT_TRUE(reports.acknowledge(reportResp(out[0].mad)));
  EXPECT_EQ(reports.nextDeadline(), t0 + 1074ms) << "4.096 us * 2^18, rounded up";
}

TEST(Reports, BeyondTheLimitInFlightAReportFailsAtOnce) {
  Reports reports(ReportSettings{.maxOutstanding = 1});
  reports.add(trap65(), subscriber(), t0);
  reports.add(trap65(), subscriber(), t0);
  EXPECT_EQ(reports.outstanding(), 1U);
  EXPECT_EQ(reports.counters().failed, 1U);
}

TEST(Reports, ClearForgetsWhatIsInFlightWithoutCountingItFailed) {
  Reports reports;
  reports.add(trap65(), subscriber(), t0);
  ASSERT_EQ(reports.due(t0).size(), 1U);
  reports.clear();
  EXPECT_TRUE(reports.due(t0 + 10s).empty());
  EXPECT_EQ(reports.counters().failed, 0U);
}

}  // namespace
}  // namespace ibsm::sm::sa
