// The counter sweep over passes, against fake PMAs (FakePma.h) through the
// real requester: what the first pass reads, what AllPortSelect spares on
// the next, a saturated counter cleared by a Set and its total kept as a
// lower bound, a port's own reset recognised, silent nodes timed out.
#include <gtest/gtest.h>

#include <deque>

#include "sm/health/CounterSweep.h"
#include "tests/sm/health/FakePma.h"
#include "tests/support/FabricBuilder.h"

namespace ibsm::sm::health {
namespace {

using namespace std::chrono_literals;
using testing::FabricBuilder;
using testing::FakePma;

constexpr std::uint16_t kAllAndExtended =
    perfCapability::kAllPortSelect | perfCapability::kIsExtendedWidthSupported;

// Two switches cabled twice, two hosts on each: 4 + 4 switch ports, 4 CA
// ports (h3 and sw1[4] left out when `withH3` is false).
Fabric twoSwitches(bool withH3 = true) {
  FabricBuilder b;
  b.addSwitch("sw0", 8);
  b.addSwitch("sw1", 8);
  b.cable("sw0", 1, "sw1", 1).cable("sw0", 2, "sw1", 2);
  b.addHost("h0", "sw0", 3);
  b.addHost("h1", "sw0", 4);
  b.addHost("h2", "sw1", 3);
  if (withH3) b.addHost("h3", "sw1", 4);
  return b.build();
}

struct Bench {
  explicit Bench(std::uint16_t capabilities)
      : fabric(twoSwitches()),
        pma(fabric, capabilities),
        perf(PerfRequesterIo{.send = [this](std::span<const std::uint8_t> mad,
                                            const GmpAddress& to) -> Result<void> {
                               if (auto a = pma.answer(mad, to.lid)) wire.push_back(*a);
                               return {};
                             },
                             .clock = [this] { return now; },
                             .wakeAt = {}},
             {.window = 4, .timeout = 100ms, .retries = 1}),
        sweep(perf, {.steady = [this] { return now; },
                     .wall = [] { return std::chrono::system_clock::time_point{}; },
                     .forgetAfter = 600s}) {}

  // One pass to its end: answers delivered in order, silent GMPs timed out.
  // `shown` is what the daemon's view holds after it.
  void pass() { pass(fabric); }
  void pass(const Fabric& swept) {
    bool done = false;
    ASSERT_TRUE(sweep.start(swept, [&] { done = true; }));
    for (int guard = 0; !done && guard < 100000; ++guard) {
      if (!wire.empty()) {
        const PerfMadBytes a = wire.front();
        wire.pop_front();
        perf.deliver(a);
      } else {
        now += 100ms;
        perf.expire();
      }
    }
    ASSERT_TRUE(done);
    shown.ports = sweep.lastPassPorts();
    sweep.fillFigures(shown);
    now += 60s;
  }
  PortKey key(std::string_view name, std::uint8_t port) const {
    for (const Node& n : fabric.nodes())
      if (n.description == name) return PortKey{n.guid, port};
    throw std::runtime_error("no node " + std::string(name));
  }
  const PortCounterView& view(PortKey k) const {
    for (const PortCounterView& v : shown.ports)
      if (v.port == k) return v;
    throw std::runtime_error("no view");
  }

  Fabric fabric;
  FakePma pma;
  MadClock::time_point now{};
  std::deque<PerfMadBytes> wire;
  PerfRequester perf;
  CounterSweep sweep;
  HealthView shown;
};

constexpr std::size_t kSymbols = index(Counter::SymbolErrorCounter);

TEST(CounterSweep, FirstPassReadsEveryLinkedPortWithExtendedCountersWhereSupported) {
  Bench b(kAllAndExtended);
  b.pma.counters(b.key("sw0", 3)).symbolErrorCounter = 12;
  b.pma.extended(b.key("sw0", 3)).portXmitData = 0x123456789;
  b.pass();
  EXPECT_EQ(b.pma.count(perfAttr::kClassPortInfo), 6U) << "one per node";
  EXPECT_EQ(b.shown.ports.size(), 12U);
  const auto& f = b.sweep.figures();
  EXPECT_EQ(f.passes, 1U);
  EXPECT_EQ(f.allPortReads, 2U);
  EXPECT_EQ(f.portReads, 12U) << "a first pass reads every port";
  EXPECT_EQ(f.portReadsSpared, 0U);
  EXPECT_EQ(f.lastPassGmps, 6U + 2U + 2U * 12U);
  const PortCounterView& v = b.view(b.key("sw0", 3));
  EXPECT_EQ(v.totals[kSymbols].value, 12U);
  EXPECT_TRUE(v.last.extendedData);
  EXPECT_EQ(v.last.values[index(Counter::PortXmitData)], 0x123456789U);
  EXPECT_EQ(v.reads, 1U);
  EXPECT_FALSE(v.rates.has_value());
}

TEST(CounterSweep, ASecondPassReadsOnlyTheSwitchesWhoseSumMoved) {
  Bench b(kAllAndExtended);
  b.pass();
  b.pma.counters(b.key("sw1", 2)).portRcvErrors = 3;
  b.pma.counters(b.key("sw0", 1)).portXmitData = 5000;  // traffic: not a reason
  b.pass();
  const auto& f = b.sweep.figures();
  EXPECT_EQ(b.pma.count(perfAttr::kClassPortInfo), 6U) << "cached by node GUID";
  EXPECT_EQ(f.allPortReads, 4U);
  EXPECT_EQ(f.portReads, 12U + 4U + 4U) << "sw1's ports and the CA ports";
  EXPECT_EQ(f.portReadsSpared, 4U) << "sw0's four ports";
  const PortCounterView& v = b.view(b.key("sw1", 2));
  EXPECT_EQ(v.totals[index(Counter::PortRcvErrors)].value, 3U);
  ASSERT_TRUE(v.rates.has_value());
  EXPECT_DOUBLE_EQ(v.rates->perHour[index(Counter::PortRcvErrors)], 3.0 * 60.0);
  EXPECT_EQ(b.view(b.key("sw0", 1)).reads, 1U) << "spared: its last reading kept";
}

// Issue 27: a switch port out of the fabric while its counters moved (a
// cable pulled: PortXmitDiscards as ibsim counts them) moves the switch's
// sum in a pass that cannot read it; when the cable is back, the sum has
// not moved since, but the port's last reading is older than the sum.
TEST(CounterSweep, APortBackInTheFabricIsReadThoughItsSwitchsSumDidNotMoveSince) {
  Bench b(kAllAndExtended);
  b.pass();
  const PortKey sw1p4 = b.key("sw1", 4);
  const Fabric without = twoSwitches(false);  // sw1[4]'s cable pulled
  b.pma.counters(sw1p4).portXmitDiscards = 1;
  b.pass(without);
  b.pass();  // the cable back
  const PortCounterView& v = b.view(sw1p4);
  EXPECT_EQ(v.reads, 2U) << "its reading predates the sum that counted the discard";
  EXPECT_EQ(v.totals[index(Counter::PortXmitDiscards)].value, 1U);
  EXPECT_EQ(b.view(b.key("sw1", 1)).reads, 2U) << "read when the sum moved, spared after";
}

// A port the sum spares keeps its last reading: it is read again after
// kRefreshPasses passes all the same, so that its data rates (which the
// sum does not watch) are shown, and so that a sum blind to some port
// (one counter of it at its ceiling, a PMA that sums loosely) is bounded.
TEST(CounterSweep, AQuietPortIsReadAgainAfterRefreshPassesAndThenHasRates) {
  Bench b(kAllAndExtended);
  const PortKey k = b.key("sw0", 1);
  for (std::uint64_t i = 0; i < kRefreshPasses; ++i) b.pass();
  EXPECT_EQ(b.view(k).reads, 1U) << "spared while the sum stood still";
  EXPECT_FALSE(b.view(k).rates.has_value());
  b.pass();
  EXPECT_EQ(b.view(k).reads, 2U);
  EXPECT_TRUE(b.view(k).rates.has_value());
}

TEST(CounterSweep, WithoutAllPortSelectEveryPortIsReadEveryPass) {
  Bench b(perfCapability::kIsExtendedWidthSupported);
  b.pass();
  b.pass();
  const auto& f = b.sweep.figures();
  EXPECT_EQ(f.allPortReads, 0U);
  EXPECT_EQ(f.portReads, 24U);
  EXPECT_EQ(b.pma.count(perfAttr::kPortCounters, perfMethod::kGet, kAllPortSelect), 0U);
}

TEST(CounterSweep, WithoutExtendedCountersOnlyPortCountersIsAsked) {
  Bench b(0);
  b.pass();
  EXPECT_EQ(b.pma.count(perfAttr::kPortCountersExtended), 0U);
  EXPECT_FALSE(b.view(b.key("sw0", 1)).last.extendedData);
}

TEST(CounterSweep, ASaturatedCounterIsClearedAndItsTotalKeptAsALowerBound) {
  Bench b(kAllAndExtended);
  const PortKey k = b.key("sw0", 3);
  b.pma.counters(k).symbolErrorCounter = 0xFFFF;
  b.pass();
  ASSERT_EQ(b.pma.count(perfAttr::kPortCounters, perfMethod::kSet), 1U);
  const FakePma::Asked& set = b.pma.asked().back();
  EXPECT_EQ(set.mad.method, perfMethod::kSet);
  const PortCounters asked = decodePortCounters(set.mad.data);
  EXPECT_EQ(asked.portSelect, 3);
  EXPECT_EQ(asked.counterSelect, counterSelect::kSymbolErrorCounter);
  EXPECT_EQ(b.pma.counters(k).symbolErrorCounter, 0) << "the PMA cleared it";
  EXPECT_EQ(b.sweep.figures().resets, 1U);
  EXPECT_EQ(b.view(k).totals[kSymbols], (Total{.value = 0xFFFF, .lowerBound = true}));

  b.pma.counters(k).symbolErrorCounter = 5;  // counted from zero since the Set
  b.pass();
  EXPECT_EQ(b.view(k).lastDelta[kSymbols].value, 5U);
  EXPECT_FALSE(b.view(k).lastDelta[kSymbols].portReset);
  EXPECT_EQ(b.view(k).totals[kSymbols], (Total{.value = 0xFFFF + 5, .lowerBound = true}));
  EXPECT_EQ(b.view(k).portResets, 0U);
}

TEST(CounterSweep, CountersGoingDownByThemselvesAreAPortResetAndItsPmaIsAskedAgain) {
  Bench b(perfCapability::kIsExtendedWidthSupported);  // no sum: every port read
  const PortKey k = b.key("h2", 1);
  b.pma.counters(k).symbolErrorCounter = 40;
  b.pass();
  b.pma.counters(k).symbolErrorCounter = 2;  // rebooted, then counted 2
  b.pass();
  EXPECT_EQ(b.view(k).portResets, 1U);
  EXPECT_EQ(b.view(k).totals[kSymbols], (Total{.value = 42, .lowerBound = true}));
  EXPECT_EQ(b.pma.count(perfAttr::kClassPortInfo), 6U);
  b.pass();
  EXPECT_EQ(b.pma.count(perfAttr::kClassPortInfo), 7U) << "h2's ClassPortInfo read again";
}

TEST(CounterSweep, ASilentNodeTimesOutAndThePassStillEnds) {
  Bench b(kAllAndExtended);
  b.pma.silence(b.key("h1", 1).node);
  b.pass();
  const auto& f = b.sweep.figures();
  EXPECT_EQ(f.timeouts, 1U) << "its ClassPortInfo, after one retry";
  EXPECT_EQ(b.shown.ports.size(), 11U);
  EXPECT_FALSE(b.sweep.running());
  b.pma.silence(b.key("h1", 1).node, false);
  b.pass();
  EXPECT_EQ(b.shown.ports.size(), 12U);
}

TEST(CounterSweep, APortBackWithinForgetAfterKeepsItsTotals) {
  Bench b(kAllAndExtended);
  const PortKey h3 = b.key("h3", 1);
  b.pma.counters(h3).symbolErrorCounter = 7;
  b.pass();
  const Fabric without = twoSwitches(false);
  b.pass(without);
  b.pass(without);
  EXPECT_EQ(b.shown.ports.size(), 10U) << "h3[1] and sw1[4] not in the fabric";
  EXPECT_EQ(b.sweep.remembered(), 12U);
  b.pass();
  EXPECT_EQ(b.view(h3).totals[kSymbols].value, 7U);
  EXPECT_EQ(b.view(h3).reads, 2U);
}

TEST(CounterSweep, APortOutOfTheFabricLongerThanForgetAfterIsForgottenWithItsNode) {
  Bench b(kAllAndExtended);
  const PortKey h3 = b.key("h3", 1);
  b.pma.counters(h3).symbolErrorCounter = 7;
  b.pass();
  const Fabric without = twoSwitches(false);
  for (int i = 0; i < 11; ++i) b.pass(without);  // 660 s > forgetAfter
  EXPECT_EQ(b.sweep.remembered(), 10U) << "memory is bounded by the fabric now";
  const auto cpiBefore = b.pma.count(perfAttr::kClassPortInfo);
  b.pass();
  EXPECT_EQ(b.pma.count(perfAttr::kClassPortInfo), cpiBefore + 1) << "h3's asked again";
  EXPECT_EQ(b.view(h3).reads, 1U) << "a new port to the sweep";
  EXPECT_FALSE(b.view(h3).rates.has_value());
}

TEST(CounterSweep, FillFiguresLeavesTheDaemonsSettingsAndCopiesTheRest) {
  Bench b(kAllAndExtended);
  b.pass();
  HealthView view;
  view.counterSweep.enabled = true;
  view.counterSweep.interval = 180s;
  b.sweep.fillFigures(view);
  EXPECT_TRUE(view.counterSweep.enabled);
  EXPECT_EQ(view.counterSweep.interval, 180s);
  EXPECT_EQ(view.counterSweep.passes, 1U);
  EXPECT_EQ(b.sweep.lastPassPorts().size(), 12U);
  EXPECT_EQ(b.sweep.portsRead(), 12U);
}

}  // namespace
}  // namespace ibsm::sm::health
