// The MAD trace of `--log-level trace`: one line per request that ended,
// saying what was asked of whom and how it ended; at most so many lines a
// second, the rest counted and their count logged once with the next
// second's first line. The log lines are the subject here, so they are
// read; the rate limit is judged by its counters.
#include <gtest/gtest.h>
#include <ibsm/MadAttributes.h>
#include <spdlog/sinks/ostream_sink.h>

#include <sstream>

#include "sm/mad/MadEngine.h"
#include "sm/mad/MadTrace.h"
#include "tests/sm/support/FakeFabricTransport.h"
#include "tests/sm/support/TwoSwitches.h"

namespace ibsm {
namespace {

using namespace std::chrono_literals;
using testing::FakeFabricTransport;
using Fate = FakeFabricTransport::Fate;

std::size_t countOf(const std::string& text, std::string_view what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

MadTraceEntry portInfoGet() {
  return MadTraceEntry{.method = "SubnGet",
                       .attribute = smpAttributeName(0x0015),
                       .attributeId = 0x0015,
                       .modifier = 3,
                       .to = "DR 0,1,3",
                       .status = "ok",
                       .latency = 87us,
                       .attempts = 1};
}

class MadTraceTest : public ::testing::Test {
 protected:
  std::ostringstream logStream;
  std::shared_ptr<spdlog::logger> logger = [this] {
    auto l = std::make_shared<spdlog::logger>(
        "test", std::make_shared<spdlog::sinks::ostream_sink_st>(logStream));
    l->set_pattern("%v");
    l->set_level(spdlog::level::trace);
    return l;
  }();
};

TEST_F(MadTraceTest, ALineSaysMethodAttributeModifierDestinationStatusLatencyAndAttempts) {
  EXPECT_EQ(formatMadTrace(portInfoGet()),
            "SubnGet(PortInfo 0x0015, mod 0x3) DR 0,1,3: ok in 87 us, attempt 1");
  MadTraceEntry perf{.method = "PerfGet",
                     .attribute = perfAttributeName(0x0012),
                     .attributeId = 0x0012,
                     .modifier = 0,
                     .to = "LID 12",
                     .status = "timeout",
                     .latency = 500012us,
                     .attempts = 3};
  EXPECT_EQ(formatMadTrace(perf),
            "PerfGet(PortCounters 0x0012, mod 0x0) LID 12: timeout in 500012 us, attempt 3");
  perf.attribute = perfAttributeName(0x0099);  // no name: the id alone
  perf.attributeId = 0x0099;
  EXPECT_EQ(formatMadTrace(perf),
            "PerfGet(0x0099, mod 0x0) LID 12: timeout in 500012 us, attempt 3");
}

TEST_F(MadTraceTest, LogsAtMostTheLimitInASecondAndCountsTheRest) {
  MadTrace trace(logger, 3);
  const MadClock::time_point t0{1000s};
  for (int i = 0; i < 5; ++i) trace.record(portInfoGet(), t0 + std::chrono::milliseconds(i));
  EXPECT_EQ(trace.counters().lines, 3U);
  EXPECT_EQ(trace.counters().suppressed, 2U);
  EXPECT_EQ(countOf(logStream.str(), "MAD-0113 "), 3U);
  EXPECT_EQ(countOf(logStream.str(), "MAD-0114 "), 0U);

  // Still the same second: suppressed too.
  trace.record(portInfoGet(), t0 + 999ms);
  EXPECT_EQ(trace.counters().suppressed, 3U);

  // The next second logs again, after one line with the count it suppressed.
  trace.record(portInfoGet(), t0 + 1s);
  EXPECT_EQ(trace.counters().lines, 4U);
  EXPECT_EQ(trace.counters().suppressed, 3U);
  EXPECT_EQ(countOf(logStream.str(), "MAD-0114 MAD trace: 3 lines suppressed"), 1U);
  EXPECT_EQ(countOf(logStream.str(), "MAD-0113 "), 4U);

  // A second that suppressed nothing says nothing about it.
  trace.record(portInfoGet(), t0 + 2500ms);
  EXPECT_EQ(countOf(logStream.str(), "MAD-0114 "), 1U);
  EXPECT_EQ(trace.counters().lines, 5U);
}

TEST_F(MadTraceTest, IsEnabledOnlyAtTraceLevelAsTheLevelIsNow) {
  MadTrace trace(logger);
  EXPECT_TRUE(trace.enabled());
  logger->set_level(spdlog::level::debug);
  EXPECT_FALSE(trace.enabled());
}

// sw0 (the SM on port 0) --3-- sw1 (tests/sm/support/TwoSwitches.h).
using testing::twoSwitches;

class MadEngineTraceTest : public MadTraceTest {
 protected:
  MadEngine makeEngine() {
    MadEngineOptions o;
    o.timeout = 200ms;
    o.retries = 1;
    o.maxAttempts = 2;
    o.clock = wire.clock();
    o.logger = logger;
    return MadEngine(wire, o);
  }
  FakeFabricTransport wire{twoSwitches(), PortRef{0, 0}};
};

TEST_F(MadEngineTraceTest, TracesOneLinePerSmpThatEndedWithHowItEnded) {
  MadEngine engine = makeEngine();
  wire.setFaults([](const Smp& smp, std::size_t) {
    if (smp.header.attributeId == AttributeId::SwitchInfo) return Fate::dropped();
    return Fate::delayed(40us);
  });
  const auto ignore = [](const SmpRequest&, const SmpReply&) {};
  engine.submit(SmpRequest::get(AttributeId::NodeInfo, 0, DrPath{}), ignore);
  engine.submit(
      SmpRequest::get(AttributeId::PortInfo, 3, *DrPath::fromPorts(std::vector<std::uint8_t>{3})),
      ignore);
  engine.submit(
      SmpRequest::get(AttributeId::SwitchInfo, 0, *DrPath::fromPorts(std::vector<std::uint8_t>{3})),
      ignore);
  ASSERT_TRUE(engine.runUntilIdle());

  EXPECT_EQ(engine.traceCounters().lines, 3U);
  EXPECT_EQ(engine.traceCounters().suppressed, 0U);
  const std::string log = logStream.str();
  EXPECT_EQ(countOf(log, "MAD-0113 SubnGet(NodeInfo 0x0011, mod 0x0) DR 0: ok in 40 us, attempt 1"),
            1U)
      << log;
  EXPECT_EQ(countOf(log, "MAD-0113 SubnGet(PortInfo 0x0015, mod 0x3) DR 0,3: ok in 40 us"), 1U)
      << log;
  EXPECT_EQ(countOf(log, "MAD-0113 SubnGet(SwitchInfo 0x0012, mod 0x0) DR 0,3: timeout"), 1U)
      << log;
}

TEST_F(MadEngineTraceTest, TracesNothingBelowTraceLevel) {
  logger->set_level(spdlog::level::debug);
  MadEngine engine = makeEngine();
  engine.submit(SmpRequest::get(AttributeId::NodeInfo, 0, DrPath{}),
                [](const SmpRequest&, const SmpReply&) {});
  ASSERT_TRUE(engine.runUntilIdle());
  EXPECT_EQ(engine.traceCounters().lines, 0U);
  EXPECT_EQ(countOf(logStream.str(), "MAD-0113"), 0U);
}

}  // namespace
}  // namespace ibsm
