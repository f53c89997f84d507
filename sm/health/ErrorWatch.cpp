#include "sm/health/ErrorWatch.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace ibsm::sm::health {
namespace {

// The counters over now, and their words, for one port.
struct Over {
  CounterSet counters{};
  std::vector<std::string> words;
};

Over overNow(const PortCounterView& view, const CounterValues& baseline, const ErrorRule& rule) {
  Over over;
  for (std::size_t i = 0; i < kThresholdCounterCount; ++i) {
    const std::uint64_t since = view.totals[i].value - std::min(view.totals[i].value, baseline[i]);
    if (since > rule.totals.limit[i]) {
      over.counters.set(i);
      over.words.push_back(
          fmt::format("{} {} > {}", counterName(counterAt(i)), since, rule.totals.limit[i]));
    }
    if (rule.perHour && view.rates &&
        view.rates->perHour[i] > static_cast<double>(rule.perHour->limit[i])) {
      over.counters.set(i);
      over.words.push_back(fmt::format("{} {:.1f}/h > {}/h", counterName(counterAt(i)),
                                       view.rates->perHour[i], rule.perHour->limit[i]));
    }
  }
  return over;
}

bool increased(const PortCounterView& view, const CounterSet& which) {
  for (std::size_t i = 0; i < kThresholdCounterCount; ++i)
    if (which.test(i) && view.lastDelta[i].value > 0) return true;
  return false;
}

}  // namespace

std::vector<PortErrors> ErrorWatch::update(const std::vector<PortCounterView>& ports,
                                           Clock::time_point now, const ErrorRule& rule) {
  std::vector<PortErrors> out;
  for (const PortCounterView& view : ports) {
    PortState& st = ports_[view.port];
    st.seen = now;
    const bool fresh = view.reads != st.reads;
    st.reads = view.reads;
    if (fresh) {
      const Over over = overNow(view, st.baseline, rule);
      if (over.counters.any()) {
        if (st.episode.none()) st.lastIncrease = now;
        st.episode |= over.counters;
        st.detail = fmt::format("{}", fmt::join(over.words, "; "));
      }
      if (st.episode.any() && increased(view, st.episode)) st.lastIncrease = now;
      if (st.episode.any() && now - st.lastIncrease >= rule.cleanPeriod) {
        // Clean: the totals start afresh from here.
        st.episode.reset();
        for (std::size_t i = 0; i < kCounterCount; ++i) st.baseline[i] = view.totals[i].value;
      }
    }
    if (st.episode.none()) continue;
    PortErrors e{.port = view.port, .name = view.name, .detail = st.detail};
    for (std::size_t i = 0; i < kThresholdCounterCount; ++i)
      if (st.episode.test(i)) e.counters.push_back(counterAt(i));
    out.push_back(std::move(e));
  }
  // A port out of the fabric for a clean period is forgotten, as the
  // counter sweep forgets it: a new port, with a new baseline, if it comes back.
  std::erase_if(ports_, [&](const auto& p) { return now - p.second.seen >= rule.cleanPeriod; });
  std::ranges::sort(out, {}, &PortErrors::port);
  return out;
}

}  // namespace ibsm::sm::health
