// analyseRoutes: one pass per destination LID over the resolved next hops
// (see NextHops.h); pair counts, hop figures, link loads and channel
// dependencies are all accumulated from that one resolution.
//
// In parallel (ParallelFor.h): the destinations are cut into units, a
// switch's CA LIDs together, other LIDs in short runs, and workers take
// units in turn. A worker resolves a unit's destinations a few at a time
// together (NextHops::resolveTogether), reading each switch's ports,
// channels and dependency slots once for the few: those tables outgrow the
// cache on large fabrics. The fewest hops the stretch is measured against
// are searched once for all destinations beforehand (ShortestHops.h),
// 64 at a time. Each worker keeps its own
// next hops, counts, link loads and dependency set, allocated once; at the
// end they are summed (counts, loads), maxed (hop maxima) and joined
// (dependencies, example candidates), none of which depends on which
// worker walked which destination, so the report is the same for any
// thread count.
#include <fmt/format.h>
#include <ibsm/ParallelFor.h>
#include <ibsm/Report.h>

#include <algorithm>
#include <array>
#include <numeric>
#include <span>

#include "routing/analysis/CreditLoops.h"
#include "routing/analysis/CreditLoopsMulticast.h"
#include "routing/analysis/ForwardingView.h"
#include "routing/analysis/MultipathDisjointness.h"
#include "routing/analysis/NextHops.h"
#include "routing/analysis/ShortestHops.h"
#include "routing/analysis/UnreachableExamples.h"

namespace ibsm {
namespace {

using analysis::ChannelId;
using analysis::Destination;
using analysis::ForwardingView;
using analysis::kNoChannel;
using analysis::kNoSwitch;
using analysis::NextHops;
using analysis::Outcome;
using analysis::SwitchIndex;

PairKind kindOf(bool fromSwitch, bool toSwitch) {
  if (fromSwitch) return toSwitch ? PairKind::SwitchToSwitch : PairKind::SwitchToCa;
  return toSwitch ? PairKind::CaToSwitch : PairKind::CaToCa;
}

bool toCa(const Destination& d) {
  return !d.ownerIsSwitch && d.sw != kNoSwitch;
}

struct HopSums {
  std::uint64_t pairs{0};
  std::uint64_t hops{0};
  std::uint64_t stretch{0};
  std::uint32_t max{0};
  std::uint32_t maxStretch{0};
  std::uint64_t longerThanShortest{0};

  void merge(const HopSums& o) {
    pairs += o.pairs;
    hops += o.hops;
    stretch += o.stretch;
    max = std::max(max, o.max);
    maxStretch = std::max(maxStretch, o.maxStretch);
    longerThanShortest += o.longerThanShortest;
  }
};

// What one worker adds up over the destinations it walks.
struct Tally {
  std::array<PairCounts, kPairKinds> pairs{};
  std::array<std::uint64_t, kUnreachableReasons> unreachableByReason{};
  std::size_t lidsWithLoops{0};
  HopSums sums;
  HopSums apartSums;
  analysis::ExampleCandidates examples;
};

// Destinations a worker resolves together (NextHops::resolveTogether).
constexpr std::uint32_t kBatch = 8;

// Where each unit of work starts in view.destinations(): a switch's CA
// LIDs make one unit, other LIDs in runs of kBatch.
std::vector<std::uint32_t> unitStarts(std::span<const Destination> ds) {
  std::vector<std::uint32_t> starts;
  for (std::uint32_t i = 0; i < ds.size(); ++i) {
    const bool sameSwitch = i > 0 && toCa(ds[i]) && toCa(ds[i - 1]) && ds[i].sw == ds[i - 1].sw;
    const bool sameRun = i > 0 && !toCa(ds[i]) && !toCa(ds[i - 1]) && i - starts.back() < kBatch;
    if (!sameSwitch && !sameRun) starts.push_back(i);
  }
  starts.push_back(static_cast<std::uint32_t>(ds.size()));
  return starts;
}

// One worker's state: its scratch, sized once for the fabric, and its tally.
class Worker {
 public:
  Worker(const ForwardingView& view, const analysis::ChannelDependencies& blank,
         const analysis::ShortestHops& shortest)
      : view_(view),
        allShortest_(shortest),
        hops_(kBatch, NextHops(view)),
        deps_(blank),
        load_(view.channelCount(), 0),
        pushed_(kBatch, std::vector<std::uint64_t>(view.switches(), 0)) {}

  // Destinations first .. first + count - 1 (count <= kBatch), resolved
  // together; their loads are added switch by switch, so that a switch's
  // channels are read once for all of them.
  void walk(std::uint32_t first, std::uint32_t count) {
    std::array<NextHops*, kBatch> hops{};
    std::array<const NextHops*, kBatch> resolved{};
    std::array<const Destination*, kBatch> ds{};
    for (std::uint32_t i = 0; i < count; ++i) {
      hops[i] = &hops_[i];
      resolved[i] = &hops_[i];
      ds[i] = &view_.destinations()[first + i];
    }
    NextHops::resolveTogether({hops.data(), count}, {ds.data(), count});
    deps_.addTogether({resolved.data(), count});
    std::array<std::uint32_t, kBatch> loading{};
    std::uint32_t loads = 0;
    for (std::uint32_t i = 0; i < count; ++i) {
      const Destination& d = *ds[i];
      if (hops_[i].hasLoop()) ++tally_.lidsWithLoops;
      if (toCa(d)) shortest_ = allShortest_.to(d.sw);
      visitSources(hops_[i], d, first + i, pushed_[i]);
      if (!toCa(d) || !d.isBase) continue;
      analysis::pushCounts(hops_[i], pushed_[i]);
      loading[loads++] = i;
    }
    if (loads > 0) addLoads({loading.data(), loads});
  }

  // Joins another worker's figures into this one's.
  void merge(const Worker& o) {
    for (std::size_t k = 0; k < kPairKinds; ++k) {
      tally_.pairs[k].routed += o.tally_.pairs[k].routed;
      tally_.pairs[k].unreachable += o.tally_.pairs[k].unreachable;
    }
    for (std::size_t r = 0; r < kUnreachableReasons; ++r)
      tally_.unreachableByReason[r] += o.tally_.unreachableByReason[r];
    tally_.lidsWithLoops += o.tally_.lidsWithLoops;
    tally_.sums.merge(o.tally_.sums);
    tally_.apartSums.merge(o.tally_.apartSums);
    tally_.examples.merge(o.tally_.examples);
    for (std::size_t c = 0; c < load_.size(); ++c) load_[c] += o.load_[c];
    deps_.merge(o.deps_);
  }

  const Tally& tally() const { return tally_; }
  const std::vector<std::uint64_t>& load() const { return load_; }
  const analysis::ChannelDependencies& deps() const { return deps_; }
  analysis::ChannelDependencies& deps() { return deps_; }

 private:
  // One pass over the source switches of destination d: pair counts,
  // unreachable reasons and example candidates, hop figures, and each
  // switch's CA count for the link loads (routes from CAs attached to it).
  void visitSources(const NextHops& hops, const Destination& d, std::uint32_t index,
                    std::vector<std::uint64_t>& pushed) {
    auto& fromCa = tally_.pairs[static_cast<std::size_t>(kindOf(false, d.ownerIsSwitch))];
    auto& fromSwitch = tally_.pairs[static_cast<std::size_t>(kindOf(true, d.ownerIsSwitch))];
    const bool compute = toCa(d);
    unsigned shown = 0;  // reasons this LID already offered an example for
    for (SwitchIndex s = 0; s < view_.switches(); ++s) {
      // The destination port is no source of its own LID.
      const std::uint64_t ca = view_.caSources(s) - (!d.ownerIsSwitch && d.sw == s ? 1u : 0u);
      const std::uint64_t sw = view_.switchIsSource(s) && !(d.ownerIsSwitch && d.sw == s);
      pushed[s] = 0;
      const Outcome outcome = hops.outcome(s);
      if (outcome == Outcome::Delivered) {
        fromCa.routed += ca;
        fromSwitch.routed += sw;
        if (!compute || ca == 0) continue;
        // Pairs with an end routed apart count in their own hop figures
        // and load no link: the compute balance is the compute pairs'.
        const std::uint64_t apart = d.apart ? ca : view_.apartSources(s);
        const std::uint64_t computePairs = ca - std::min(ca, apart);
        pushed[s] = computePairs;
        addHops(s, hops.hops(s), computePairs, tally_.sums);
        addHops(s, hops.hops(s), ca - computePairs, tally_.apartSums);
        continue;
      }
      fromCa.unreachable += ca;
      fromSwitch.unreachable += sw;
      const UnreachableReason reason = analysis::reasonOf(outcome);
      tally_.unreachableByReason[static_cast<std::size_t>(reason)] += ca + sw;
      const unsigned bit = 1u << static_cast<unsigned>(reason);
      if (ca + sw > 0 && (shown & bit) == 0) {
        tally_.examples.offer(reason, {index, s});
        shown |= bit;
      }
    }
  }

  // The pushed counts of the destinations `loading` (indices into hops_)
  // on the channels their switches forward on.
  void addLoads(std::span<const std::uint32_t> loading) {
    for (SwitchIndex s = 0; s < view_.switches(); ++s) {
      for (const std::uint32_t i : loading) {
        const ChannelId c = hops_[i].channel(s);
        if (pushed_[i][s] != 0 && c != kNoChannel) load_[c] += pushed_[i][s];
      }
    }
  }

  void addHops(SwitchIndex s, std::uint16_t hops, std::uint64_t pairs, HopSums& sums) const {
    if (pairs == 0) return;
    const std::uint16_t best = shortest_[s];
    const std::uint32_t stretch = hops > best ? hops - best : 0;
    sums.pairs += pairs;
    sums.hops += pairs * hops;
    sums.stretch += pairs * stretch;
    sums.max = std::max<std::uint32_t>(sums.max, hops);
    sums.maxStretch = std::max(sums.maxStretch, stretch);
    if (stretch > 0) sums.longerThanShortest += pairs;
  }

  const ForwardingView& view_;
  const analysis::ShortestHops& allShortest_;
  std::vector<NextHops> hops_;  // per destination of a batch
  analysis::ChannelDependencies deps_;
  std::vector<std::uint64_t> load_;
  std::vector<std::vector<std::uint64_t>> pushed_;  // per destination of a batch
  std::span<const std::uint16_t> shortest_;         // fewest hops to the current CA LID's switch
  Tally tally_;
};

void finishHops(const HopSums& sums, HopStats& h) {
  h.pairs = sums.pairs;
  h.max = sums.max;
  h.maxStretch = sums.maxStretch;
  h.longerThanShortest = sums.longerThanShortest;
  if (sums.pairs == 0) return;
  h.mean = static_cast<double>(sums.hops) / static_cast<double>(sums.pairs);
  h.meanStretch = static_cast<double>(sums.stretch) / static_cast<double>(sums.pairs);
}

void finishLoads(const ForwardingView& view, const std::vector<std::uint64_t>& load,
                 LinkLoadStats& l) {
  l.links = load.size();
  if (load.empty()) return;
  const auto [lo, hi] = std::ranges::minmax(load);
  l.min = lo;
  l.max = hi;
  const std::uint64_t total = std::accumulate(load.begin(), load.end(), std::uint64_t{0});
  l.mean = static_cast<double>(total) / static_cast<double>(load.size());
  l.maxOverMean = total == 0 ? 0.0 : static_cast<double>(hi) / l.mean;

  std::vector<ChannelId> byLoad(load.size());
  std::iota(byLoad.begin(), byLoad.end(), ChannelId{0});
  const std::size_t top = std::min(RouteReport::kBusiestLinks, byLoad.size());
  std::partial_sort(
      byLoad.begin(), byLoad.begin() + static_cast<std::ptrdiff_t>(top), byLoad.end(),
      [&](ChannelId a, ChannelId b) { return load[a] != load[b] ? load[a] > load[b] : a < b; });
  const Fabric& fabric = view.fabric();
  const auto guidOf = [&](SwitchIndex s) { return fabric.node(view.graph().nodeId(s)).guid; };
  l.perLink.reserve(load.size());
  for (ChannelId c = 0; c < load.size(); ++c)
    l.perLink.push_back({guidOf(view.channel(c).from), view.channel(c).port, load[c]});
  for (std::size_t i = 0; i < top; ++i) {
    const analysis::Channel& ch = view.channel(byLoad[i]);
    l.busiest.push_back(LinkLoad{view.channelName(byLoad[i]), guidOf(ch.from), ch.port,
                                 guidOf(ch.to), ch.remotePort, load[byLoad[i]]});
  }
}

// Walks every destination on `threads` workers and merges them into the first.
std::vector<Worker> walkAll(const ForwardingView& view, unsigned threads) {
  const std::vector<std::uint32_t> starts = unitStarts(view.destinations());
  const std::size_t units = starts.size() - 1;
  const unsigned workers = std::max<unsigned>(
      1, static_cast<unsigned>(std::min<std::size_t>(threadCount(threads), units)));
  const analysis::ChannelDependencies blank(view);
  const analysis::ShortestHops shortest(view, threads);
  std::vector<Worker> pool;
  pool.reserve(workers);
  for (unsigned w = 0; w < workers; ++w) pool.emplace_back(view, blank, shortest);
  parallelFor(workers, units, 1, [&](std::size_t begin, std::size_t end, unsigned w) {
    for (std::size_t u = begin; u < end; ++u)
      for (std::uint32_t i = starts[u]; i < starts[u + 1]; i += kBatch)
        pool[w].walk(i, std::min(kBatch, starts[u + 1] - i));
  });
  for (unsigned w = 1; w < workers; ++w) pool[0].merge(pool[w]);
  return pool;
}

// The credit-loop verdict of the walked routes, with the trees' turns
// added to their dependencies when `trees` names some (CreditLoopsMulticast.h).
CreditLoopReport creditLoops(const ForwardingView& view, Worker& all, std::uint8_t vlsNeeded,
                             const McTreesToJudge* trees) {
  if (trees == nullptr) return all.deps().report(vlsNeeded);
  const std::vector<analysis::TreeMasks> masks = analysis::treeMasks(view, *trees);
  for (const analysis::TreeMasks& t : masks) all.deps().addTree(t.masks, t.sl);
  return all.deps().report(vlsNeeded, analysis::cycleCauses(view, all.deps(), masks, *trees));
}

void fillFromTally(const ForwardingView& view, Worker& all, std::uint8_t vlsNeeded,
                   const McTreesToJudge* trees, RouteReport& report) {
  const Tally& t = all.tally();
  report.pairs = t.pairs;
  report.unreachableByReason = t.unreachableByReason;
  report.lidsWithLoops = t.lidsWithLoops;
  finishHops(t.sums, report.hops);
  finishHops(t.apartSums, report.apartHops);
  finishLoads(view, all.load(), report.linkLoad);
  report.unreachableExamples = analysis::unreachableExamples(view, t.examples);
  report.creditLoops = creditLoops(view, all, vlsNeeded, trees);
}

// RouteReport::pairsBySl: the pairs the engine names counted on their SL
// (those that are pairs: a source that sends, a destination LID it does
// not own), every other pair on SL 0.
std::vector<std::uint64_t> pairsBySl(const ForwardingView& view, const RouteReport& report) {
  if (view.pairSls().empty()) return {};
  constexpr PortRef kNone{~NodeId{0}, 0};
  std::vector<PortRef> owner;
  for (const Destination& d : view.destinations()) {
    if (owner.size() <= d.lid.value) owner.resize(d.lid.value + 1u, kNone);
    owner[d.lid.value] = d.owner;
  }
  std::vector<std::uint64_t> out(16, 0);
  for (const PairSl& p : view.pairSls()) {
    const ForwardingView::Entry e = view.entryOf(p.source);
    if (e.sw == kNoSwitch || (e.inPort == 0 && !view.switchIsSource(e.sw))) continue;
    if (p.dlid.value >= owner.size() || owner[p.dlid.value] == kNone) continue;
    if (owner[p.dlid.value] != p.source) ++out[p.sl & 0xF];
  }
  std::uint64_t all = 0;
  for (const PairCounts& c : report.pairs) all += c.routed + c.unreachable;
  const std::uint64_t named = std::accumulate(out.begin() + 1, out.end(), std::uint64_t{0});
  out[0] = all - std::min(all, named);
  while (out.size() > 1 && out.back() == 0) out.pop_back();
  return out;
}

RouteReport analyse(const Fabric& fabric, const RoutingResult& result, unsigned threads,
                    const McTreesToJudge* trees) {
  const ForwardingView view(fabric, result, threads);
  RouteReport report;
  report.engine = result.engine;
  report.engineNotes = result.notes;
  report.fallbacks = result.fallbacks;
  for (const auto& [a, b] : result.loopbacks)
    report.loopbacks.push_back(fmt::format("{} -- {}", fabric.describe(a), fabric.describe(b)));
  report.switches = view.switches();
  report.caPorts = view.caPorts();
  report.destinationLids = view.destinations().size();
  report.apartPorts = view.apartPorts();
  std::vector<Worker> pool = walkAll(view, threads);
  fillFromTally(view, pool.front(), result.vlsUsed, trees, report);
  if (auto m = analysis::analyseMultipath(view, threads); m.destinationPorts > 0)
    report.multipath = std::move(m);
  report.pairsBySl = pairsBySl(view, report);
  return report;
}

}  // namespace

RouteReport analyseRoutes(const Fabric& fabric, const RoutingResult& result, unsigned threads) {
  return analyse(fabric, result, threads, nullptr);
}

RouteReport analyseRoutes(const Fabric& fabric, const RoutingResult& result, unsigned threads,
                          const McTreesToJudge& trees) {
  return analyse(fabric, result, threads, &trees);
}

}  // namespace ibsm
