// When a port's error counters make it unhealthy, and when it is clean.
#include <gtest/gtest.h>

#include "sm/health/ErrorWatch.h"

namespace ibsm::sm::health {
namespace {

using namespace std::chrono_literals;

const Clock::time_point t0{};
const PortKey kPort{Guid{0x200}, 3};

ErrorRule rule(std::uint64_t symbolLimit) {
  ErrorRule r{.cleanPeriod = 300s};
  r.totals.limit[index(Counter::SymbolErrorCounter)] = symbolLimit;
  return r;
}

// The counter sweep's view after a read that added `added` symbol errors.
struct Port {
  PortCounterView view = [] {
    PortCounterView v;
    v.port = kPort;
    v.name = "\"s1\"[3]";
    return v;
  }();
  std::vector<PortCounterView> read(std::uint64_t added) {
    ++view.reads;
    view.lastDelta[index(Counter::SymbolErrorCounter)].value = added;
    view.totals[index(Counter::SymbolErrorCounter)].value += added;
    return {view};
  }
};

TEST(Errors, UnhealthyOnlyWhenATotalIsOverItsThreshold) {
  ErrorWatch w;
  Port p;
  EXPECT_TRUE(w.update(p.read(10), t0, rule(10)).empty()) << "10 is not over 10";
  const auto found = w.update(p.read(1), t0 + 60s, rule(10));
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].counters, std::vector<Counter>{Counter::SymbolErrorCounter});
  EXPECT_EQ(found[0].detail, "SymbolErrorCounter 11 > 10");
}

TEST(Errors, CleanOnceNoCounterOverItsThresholdIncreasedForTheCleanPeriod) {
  ErrorWatch w;
  Port p;
  ASSERT_EQ(w.update(p.read(20), t0, rule(10)).size(), 1U);
  ASSERT_EQ(w.update(p.read(1), t0 + 100s, rule(10)).size(), 1U);  // still counting
  ASSERT_EQ(w.update(p.read(0), t0 + 399s, rule(10)).size(), 1U);  // 299 s clean
  EXPECT_TRUE(w.update(p.read(0), t0 + 400s, rule(10)).empty());   // 300 s clean
}

TEST(Errors, AfterCleanOnlyNewErrorsOverTheThresholdCountAgain) {
  ErrorWatch w;
  Port p;
  ASSERT_EQ(w.update(p.read(20), t0, rule(10)).size(), 1U);
  ASSERT_TRUE(w.update(p.read(0), t0 + 300s, rule(10)).empty());
  EXPECT_TRUE(w.update(p.read(5), t0 + 360s, rule(10)).empty()) << "5 since clean";
  EXPECT_EQ(w.update(p.read(6), t0 + 420s, rule(10)).size(), 1U) << "11 since clean";
}

TEST(Errors, APortOutOfTheFabricLessThanACleanPeriodKeepsItsBaseline) {
  ErrorWatch w;
  Port p;
  ASSERT_EQ(w.update(p.read(20), t0, rule(10)).size(), 1U);
  ASSERT_TRUE(w.update(p.read(0), t0 + 300s, rule(10)).empty());  // clean: baseline 20
  ASSERT_TRUE(w.update({}, t0 + 400s, rule(10)).empty());         // its cable pulled
  EXPECT_TRUE(w.update(p.read(5), t0 + 599s, rule(10)).empty()) << "5 since clean";
}

TEST(Errors, APortOutOfTheFabricForACleanPeriodIsForgotten) {
  ErrorWatch w;
  Port p;
  ASSERT_EQ(w.update(p.read(20), t0, rule(10)).size(), 1U);
  ASSERT_TRUE(w.update(p.read(0), t0 + 300s, rule(10)).empty());  // clean: baseline 20
  ASSERT_TRUE(w.update({}, t0 + 600s, rule(10)).empty());         // gone 300 s: forgotten
  EXPECT_EQ(w.update(p.read(5), t0 + 660s, rule(10)).size(), 1U)
      << "a new port to the watch: its 25 are over 10";
}

TEST(Errors, RateThresholdsJudgeTheRatePerHour) {
  ErrorWatch w;
  Port p;
  ErrorRule r = rule(1000);
  r.perHour = Thresholds{};
  r.perHour->limit[index(Counter::SymbolErrorCounter)] = 100;
  p.view.rates = CounterRates{};
  p.view.rates->perHour[index(Counter::SymbolErrorCounter)] = 120.0;
  const auto found = w.update(p.read(2), t0, r);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].detail, "SymbolErrorCounter 120.0/h > 100/h");
}

TEST(Errors, NoNewReadChangesNothing) {
  ErrorWatch w;
  Port p;
  auto ports = p.read(20);
  ASSERT_EQ(w.update(ports, t0, rule(10)).size(), 1U);
  // The same reading again much later: nothing was read, nothing is clean.
  EXPECT_EQ(w.update(ports, t0 + 1000s, rule(10)).size(), 1U);
}

}  // namespace
}  // namespace ibsm::sm::health
