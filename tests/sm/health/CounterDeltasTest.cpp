// Counter arithmetic: what a port counted between two reads, its totals and
// rates, through saturation, our resets, the port's own resets and wraps.
#include <gtest/gtest.h>

#include "sm/health/CounterDeltas.h"

namespace ibsm::sm::health {
namespace {

constexpr std::size_t kSymbols = index(Counter::SymbolErrorCounter);
constexpr std::size_t kLinkDowned = index(Counter::LinkDownedCounter);
constexpr std::size_t kIntegrity = index(Counter::LocalLinkIntegrityErrors);
constexpr std::size_t kXmitData = index(Counter::PortXmitData);

PortReading reading(std::initializer_list<std::pair<Counter, std::uint64_t>> values,
                    bool extendedData = false) {
  PortReading r{.extendedData = extendedData};
  for (const auto& [c, v] : values) r.values[index(c)] = v;
  return r;
}

// The state kept after `update` of reading `r`, with the resets it asked for done.
PortCounterState keep(const PortReading& r, const PortUpdate& update) {
  return PortCounterState{.last = r, .totals = update.totals, .resetAfterLast = update.toReset};
}

TEST(CounterDeltas, FirstReadingCountsWhatThePortCountedSinceItLastCleared) {
  const PortUpdate u = advance(std::nullopt, reading({{Counter::SymbolErrorCounter, 7}}), 0);
  EXPECT_EQ(u.deltas[kSymbols], (CounterDelta{.value = 7}));
  EXPECT_EQ(u.totals[kSymbols], (Total{.value = 7}));
  EXPECT_FALSE(u.rates.has_value()) << "no interval yet";
  EXPECT_TRUE(u.toReset.none());
}

TEST(CounterDeltas, DeltaIsTheIncreaseSinceThePreviousReadWithRatesOverTheInterval) {
  const PortReading first = reading({{Counter::SymbolErrorCounter, 10}});
  const PortReading second = reading({{Counter::SymbolErrorCounter, 70}});
  const PortUpdate u = advance(keep(first, advance(std::nullopt, first, 0)), second, 60.0);
  EXPECT_EQ(u.deltas[kSymbols], (CounterDelta{.value = 60}));
  EXPECT_EQ(u.totals[kSymbols], (Total{.value = 70}));
  ASSERT_TRUE(u.rates.has_value());
  EXPECT_DOUBLE_EQ(u.rates->perSecond[kSymbols], 1.0);
  EXPECT_DOUBLE_EQ(u.rates->perHour[kSymbols], 3600.0);
}

TEST(CounterDeltas, ACounterAtItsCeilingIsSaturatedMarkedForResetAndItsTotalALowerBound) {
  const PortReading before = reading({});
  const PortReading now = reading({{Counter::SymbolErrorCounter, 0xFFFF},       // 16 bits
                                   {Counter::LinkDownedCounter, 0xFF},          // 8 bits
                                   {Counter::LocalLinkIntegrityErrors, 0xF}});  // 4 bits
  const PortUpdate u = advance(PortCounterState{.last = before}, now, 10);
  for (std::size_t i : {kSymbols, kLinkDowned, kIntegrity}) {
    EXPECT_TRUE(u.deltas[i].saturated) << counterName(counterAt(i));
    EXPECT_TRUE(u.totals[i].lowerBound) << counterName(counterAt(i));
    EXPECT_TRUE(u.toReset.test(i)) << counterName(counterAt(i));
  }
  EXPECT_EQ(u.totals[kSymbols].value, 0xFFFFU) << "counted up to the ceiling";
  EXPECT_EQ(u.toReset.count(), 3U) << "only the saturated ones are reset";
}

TEST(CounterDeltas, AfterOurResetACounterCountsFromZeroAndTheTotalKeepsGrowing) {
  const PortReading full = reading({{Counter::SymbolErrorCounter, 0xFFFF}});
  const PortUpdate first = advance(std::nullopt, full, 0);
  ASSERT_TRUE(first.toReset.test(kSymbols));
  const PortUpdate u = advance(keep(full, first), reading({{Counter::SymbolErrorCounter, 5}}), 60);
  EXPECT_EQ(u.deltas[kSymbols], (CounterDelta{.value = 5}));
  EXPECT_EQ(u.totals[kSymbols], (Total{.value = 0xFFFF + 5, .lowerBound = true}))
      << "what the counter missed while saturated stays unknown";
  EXPECT_FALSE(u.toReset.test(kSymbols));
}

TEST(CounterDeltas, ASaturatedCounterLeftUnresetAddsNothingAndStaysALowerBound) {
  const PortReading full = reading({{Counter::LinkDownedCounter, 0xFF}});
  const PortCounterState notReset{.last = full, .totals = advance(std::nullopt, full, 0).totals};
  const PortUpdate u = advance(notReset, full, 60);
  EXPECT_EQ(u.deltas[kLinkDowned].value, 0U);
  EXPECT_TRUE(u.deltas[kLinkDowned].saturated);
  EXPECT_EQ(u.totals[kLinkDowned], (Total{.value = 0xFF, .lowerBound = true}));
}

TEST(CounterDeltas, APortThatResetItselfGivesTheValueNowNeverANegativeDelta) {
  const PortReading before = reading({{Counter::SymbolErrorCounter, 500}});
  const PortCounterState state{.last = before, .totals = advance(std::nullopt, before, 0).totals};
  const PortUpdate u = advance(state, reading({{Counter::SymbolErrorCounter, 3}}), 60);
  EXPECT_EQ(u.deltas[kSymbols], (CounterDelta{.value = 3, .portReset = true}));
  EXPECT_EQ(u.totals[kSymbols], (Total{.value = 503, .lowerBound = true}));
  EXPECT_DOUBLE_EQ(u.rates->perSecond[kSymbols], 0.05);
}

TEST(CounterDeltas, ThirtyTwoBitDataCountersSaturateAtAllOnes) {
  const PortReading before = reading({{Counter::PortXmitData, 0xF0000000}});
  const PortUpdate u =
      advance(PortCounterState{.last = before}, reading({{Counter::PortXmitData, 0xFFFFFFFF}}), 1);
  EXPECT_EQ(u.deltas[kXmitData], (CounterDelta{.value = 0x0FFFFFFF, .saturated = true}));
  EXPECT_TRUE(u.totals[kXmitData].lowerBound);
  EXPECT_TRUE(u.toReset.test(kXmitData));
}

TEST(CounterDeltas, ExtendedCountersDoNotSaturateAndAWrapReadsAsAPortReset) {
  const std::uint64_t allOnes = ~std::uint64_t{0};
  const PortReading high = reading({{Counter::PortXmitData, allOnes - 9}}, true);
  const PortReading top = reading({{Counter::PortXmitData, allOnes}}, true);
  const PortUpdate atTop = advance(PortCounterState{.last = high}, top, 1);
  EXPECT_EQ(atTop.deltas[kXmitData], (CounterDelta{.value = 9}));
  EXPECT_FALSE(atTop.toReset.test(kXmitData)) << "all ones is just a value at 64 bits";

  const PortUpdate wrapped =
      advance(PortCounterState{.last = top}, reading({{Counter::PortXmitData, 4}}, true), 1);
  EXPECT_EQ(wrapped.deltas[kXmitData], (CounterDelta{.value = 4, .portReset = true}));
  EXPECT_TRUE(wrapped.totals[kXmitData].lowerBound);
}

TEST(CounterDeltas, TotalsStopAtTheLargestValueRatherThanWrap) {
  PortCounterState state{.last = reading({})};
  state.totals[kXmitData].value = ~std::uint64_t{0} - 1;
  const PortUpdate u = advance(state, reading({{Counter::PortXmitData, 100}}), 1);
  EXPECT_EQ(u.totals[kXmitData].value, ~std::uint64_t{0});
}

TEST(CounterDeltas, NoRatesWithoutAnInterval) {
  const PortUpdate u = advance(PortCounterState{.last = reading({})}, reading({}), 0);
  EXPECT_FALSE(u.rates.has_value());
}

TEST(Counters, WidthsAreThoseOfPortCountersAndSixtyFourForExtendedData) {
  EXPECT_EQ(counterBits(Counter::SymbolErrorCounter, false), 16U);
  EXPECT_EQ(counterBits(Counter::LinkErrorRecoveryCounter, false), 8U);
  EXPECT_EQ(counterBits(Counter::ExcessiveBufferOverrunErrors, true), 4U);
  EXPECT_EQ(counterBits(Counter::PortXmitWait, true), 32U) << "PortXmitWait stays in PortCounters";
  EXPECT_EQ(counterBits(Counter::PortRcvPkts, false), 32U);
  EXPECT_EQ(counterBits(Counter::PortRcvPkts, true), 64U);
}

TEST(Counters, AReadingTakesDataCountersFromPortCountersExtendedWhenGiven) {
  const PortCounters pc{
      .symbolErrorCounter = 3, .vl15Dropped = 4, .portXmitData = 5, .portXmitWait = 6};
  const PortCountersExtended ext{.portXmitData = 0x100000000ULL, .portRcvPkts = 8};
  EXPECT_EQ(readingOf(pc).values[kXmitData], 5U);
  const PortReading r = readingOf(pc, ext);
  EXPECT_TRUE(r.extendedData);
  EXPECT_EQ(r.values[kSymbols], 3U);
  EXPECT_EQ(r.values[index(Counter::VL15Dropped)], 4U);
  EXPECT_EQ(r.values[index(Counter::PortXmitWait)], 6U);
  EXPECT_EQ(r.values[kXmitData], 0x100000000ULL);
  EXPECT_EQ(r.values[index(Counter::PortRcvPkts)], 8U);
}

}  // namespace
}  // namespace ibsm::sm::health
