#include "routing/plan/CreditLoopJudge.h"

#include <fmt/format.h>
#include <ibsm/ParallelFor.h>
#include <ibsm/Report.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <optional>
#include <vector>

#include "routing/analysis/CreditLoops.h"
#include "routing/analysis/ForwardingView.h"
#include "routing/analysis/NextHops.h"
#include "routing/plan/OrderedLoads.h"

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

// Channel dependencies on one VL as bits: c1 -> c2 where c2 leaves the
// switch c1 lands on (the report's ChannelDependencies layout), one set per
// worker, OR-ed together at the end, so the set does not depend on who
// walked which destination.
class DependencyBits {
 public:
  explicit DependencyBits(const ForwardingView& view)
      : view_(view), start_(view.channelCount() + 1) {
    for (ChannelId c = 0; c < view.channelCount(); ++c) {
      const SwitchIndex to = view.channel(c).to;
      start_[c + 1] = start_[c] + (view.firstChannel(to + 1) - view.firstChannel(to));
    }
  }
  std::size_t words() const { return start_.back() / 64 + 1; }
  std::size_t slot(ChannelId c1, SwitchIndex to, ChannelId c2) const {
    return start_[c1] + (c2 - view_.firstChannel(to));
  }

  // Whether the dependencies `bits` form no cycle (Kahn): channels nothing
  // waits for are taken away, with what they wait for, until none is left
  // (acyclic) or every channel left is waited for (a cycle).
  bool acyclic(const std::vector<std::uint64_t>& bits) const {
    const std::size_t n = view_.channelCount();
    std::vector<std::uint32_t> waitedOn(n, 0);
    forEach(bits, [&](ChannelId, ChannelId c2) { ++waitedOn[c2]; });
    std::vector<ChannelId> free;
    for (ChannelId c = 0; c < n; ++c)
      if (waitedOn[c] == 0) free.push_back(c);
    std::size_t taken = 0;
    while (!free.empty()) {
      const ChannelId c1 = free.back();
      free.pop_back();
      ++taken;
      const SwitchIndex to = view_.channel(c1).to;
      for (ChannelId c2 = view_.firstChannel(to); c2 < view_.firstChannel(to + 1); ++c2) {
        const std::size_t i = slot(c1, to, c2);
        if (((bits[i >> 6] >> (i & 63)) & 1u) != 0 && --waitedOn[c2] == 0) free.push_back(c2);
      }
    }
    return taken == n;
  }

 private:
  template <typename F>
  void forEach(const std::vector<std::uint64_t>& bits, F&& f) const {
    for (ChannelId c1 = 0; c1 < view_.channelCount(); ++c1) {
      const SwitchIndex to = view_.channel(c1).to;
      for (ChannelId c2 = view_.firstChannel(to); c2 < view_.firstChannel(to + 1); ++c2) {
        const std::size_t i = slot(c1, to, c2);
        if (((bits[i >> 6] >> (i & 63)) & 1u) != 0) f(c1, c2);
      }
    }
  }

  const ForwardingView& view_;
  std::vector<std::size_t> start_;
};

// One worker's share of the walk: the report's pair counts and link loads
// (AnalyseRoutes.cpp) for the destinations it is given.
class Walker {
 public:
  Walker(const ForwardingView& view, const DependencyBits& slots, bool bits)
      : view_(view),
        slots_(slots),
        hops_(view),
        load_(view.channelCount(), 0),
        pushed_(view.switches(), 0),
        deps_(bits ? slots.words() : 0, 0) {}

  const NextHops& hops() const { return hops_; }
  const std::vector<std::uint64_t>& load() const { return load_; }
  std::vector<std::uint64_t>& load() { return load_; }
  const std::vector<std::uint64_t>& deps() const { return deps_; }
  std::uint64_t unreachable() const { return unreachable_; }

  void visit(const Destination& d) {
    hops_.resolve(d);
    const bool toCa = !d.ownerIsSwitch && d.sw != kNoSwitch;
    const bool loads = toCa && d.isBase;
    const bool deps = !deps_.empty();
    for (SwitchIndex s = 0; s < view_.switches(); ++s) {
      if (deps) addDependency(s);
      // The destination port is no source of its own LID.
      const std::uint64_t ca = view_.caSources(s) - (!d.ownerIsSwitch && d.sw == s ? 1u : 0u);
      const std::uint64_t sw = view_.switchIsSource(s) && !(d.ownerIsSwitch && d.sw == s);
      pushed_[s] = 0;
      if (hops_.outcome(s) != Outcome::Delivered) {
        unreachable_ += ca + sw;
        continue;
      }
      if (!loads || ca == 0) continue;
      // Pairs with an end routed apart load no link.
      const std::uint64_t apart = d.apart ? ca : view_.apartSources(s);
      pushed_[s] = ca - std::min(ca, apart);
    }
    if (loads) analysis::pushLoads(hops_, pushed_, load_);
  }

 private:
  // Every chain counts, delivered or not: s forwards on c1 to a switch
  // that forwards on c2.
  void addDependency(SwitchIndex s) {
    const ChannelId c1 = hops_.channel(s);
    if (c1 == kNoChannel) return;
    const SwitchIndex to = hops_.next(s);
    const ChannelId c2 = hops_.channel(to);
    if (c2 == kNoChannel) return;
    const std::size_t i = slots_.slot(c1, to, c2);
    deps_[i >> 6] |= std::uint64_t{1} << (i & 63);
  }

  const ForwardingView& view_;
  const DependencyBits& slots_;
  NextHops hops_;
  std::vector<std::uint64_t> load_;
  std::vector<std::uint64_t> pushed_;
  std::vector<std::uint64_t> deps_;
  std::uint64_t unreachable_{0};
};

// The switches around s that are all cabled to each other, grown greedily
// from s, its neighbours that share the most neighbours with it first: a
// dragonfly's group, a fat tree's cable.
// `isPeer`: per switch, false on entry and on return (s's peers marked
// while their neighbours are counted, one look each).
std::vector<SwitchIndex> cliqueOf(SwitchIndex s, const std::vector<std::vector<SwitchIndex>>& peers,
                                  std::vector<std::uint8_t>& isPeer) {
  const auto adjacent = [&](SwitchIndex a, SwitchIndex b) {
    return std::ranges::binary_search(peers[a], b);
  };
  for (const SwitchIndex t : peers[s]) isPeer[t] = 1;
  std::vector<std::pair<std::size_t, SwitchIndex>> byShared;
  for (const SwitchIndex t : peers[s]) {
    std::size_t shared = 0;
    for (const SwitchIndex u : peers[t]) shared += isPeer[u];
    byShared.emplace_back(shared, t);
  }
  for (const SwitchIndex t : peers[s]) isPeer[t] = 0;
  std::ranges::sort(byShared, std::greater<>{});
  std::vector<SwitchIndex> clique{s};
  for (const auto& [shared, t] : byShared)
    if (std::ranges::all_of(clique, [&](SwitchIndex m) { return adjacent(m, t); }))
      clique.push_back(t);
  return clique;
}

// TablesVerdict::busiestFloor: the routes of the compute CA ports of a set
// of switches to the rest of their part of the fabric (parts found by
// joining the ends of every channel) over the cables leaving the set; sets
// of one switch, and each switch's clique.
std::uint64_t busiestFloor(const ForwardingView& view) {
  const std::size_t n = view.switches();
  std::vector<SwitchIndex> part(n);
  std::iota(part.begin(), part.end(), SwitchIndex{0});
  const auto root = [&](SwitchIndex s) {
    while (part[s] != s) s = part[s] = part[part[s]];
    return s;
  };
  std::vector<std::vector<SwitchIndex>> peers(n);
  for (ChannelId c = 0; c < view.channelCount(); ++c) {
    part[root(view.channel(c).from)] = root(view.channel(c).to);
    peers[view.channel(c).from].push_back(view.channel(c).to);
  }
  std::vector<std::uint64_t> compute(n, 0), inPart(n, 0);
  for (SwitchIndex s = 0; s < n; ++s) {
    std::ranges::sort(peers[s]);
    compute[s] = view.caSources(s) - view.apartSources(s);
    inPart[root(s)] += compute[s];
  }
  std::uint64_t floor = 0;
  const auto weigh = [&](const std::vector<SwitchIndex>& set) {
    std::uint64_t ca = 0, cables = 0;
    for (const SwitchIndex m : set) {
      ca += compute[m];
      for (const SwitchIndex t : peers[m]) cables += std::ranges::find(set, t) == set.end();
    }
    if (cables == 0) return;
    const std::uint64_t out = ca * (inPart[root(set.front())] - ca);
    floor = std::max(floor, (out + cables - 1) / cables);
  };
  std::vector<std::uint8_t> isPeer(n, 0);
  for (SwitchIndex s = 0; s < n; ++s) {
    weigh({s});
    weigh(cliqueOf(s, peers, isPeer));
  }
  return floor;
}

// Whether `copied` speaks of the report's routes on `view` (CopiedLoads),
// and its loads then added per channel into `load`.
bool addCopied(const ForwardingView& view, const CopiedLoads& copied,
               std::vector<std::uint64_t>& load) {
  if (copied.sources.size() != view.switches() ||
      copied.load.size() != view.switches() * copied.stride)
    return false;
  for (SwitchIndex s = 0; s < view.switches(); ++s)
    if (view.apartSources(s) > view.caSources(s) ||
        view.caSources(s) - view.apartSources(s) != copied.sources[s])
      return false;
  for (const Destination& d : view.destinations())
    if (d.lid.value < copied.lids.size() && copied.lids[d.lid.value] &&
        (d.ownerIsSwitch || d.apart || d.sw == kNoSwitch))
      return false;
  std::vector<std::uint64_t> add(view.channelCount(), 0);
  for (SwitchIndex s = 0; s < view.switches(); ++s)
    for (std::size_t p = 0; p < copied.stride; ++p) {
      const std::uint64_t routes = copied.load[s * copied.stride + p];
      if (routes == 0) continue;
      if (p > view.numPorts(s)) return false;
      const std::uint16_t step = view.step(s, static_cast<std::uint8_t>(p));
      if (step >= ForwardingView::kStepWrong) return false;
      add[view.row(s).firstChannel + step] += routes;
    }
  for (std::size_t c = 0; c < load.size(); ++c) load[c] += add[c];
  return true;
}

// How judgeView walks: the channel dependencies or not, and the order whose
// climb-then-descend columns are weighed 64 at a time (OrderedLoads.h).
struct Walk {
  bool loops;
  std::span<const std::uint32_t> order;
};

// judgeTables on `view`: `given` the loads of the LIDs that `walked` (by
// LID; null: all) leaves out.
TablesVerdict judgeView(const ForwardingView& view, const RoutingResult& result, unsigned threads,
                        Walk walk, std::vector<std::uint64_t> given,
                        const std::vector<bool>* walked) {
  // With SL2VL tables the report's per-VL dependencies, on one thread.
  std::optional<analysis::ChannelDependencies> perVl;
  if (walk.loops && view.hasSl2Vl()) perVl.emplace(view);
  const DependencyBits slots(view);
  const unsigned n = perVl ? 1u : threadCount(threads);
  std::vector<Walker> walkers;
  walkers.reserve(n);
  for (unsigned w = 0; w < n; ++w) walkers.emplace_back(view, slots, walk.loops && !perVl);
  std::vector<Destination> rest;
  if (walked != nullptr)
    for (const Destination& d : view.destinations())
      if ((*walked)[d.lid.value]) rest.push_back(d);
  const std::span<const Destination> destinations =
      walked != nullptr ? std::span<const Destination>(rest) : view.destinations();
  // Without a walk of the dependencies, the destinations whose chains
  // climb then descend in `order` are counted 64 at a time (OrderedLoads.h).
  const OrderedLoads ordered(view, walk.loops ? std::span<const std::uint32_t>{} : walk.order);
  std::vector<OrderedLoads::Scratch> scratch(n);
  const std::size_t tiles = (destinations.size() + 63) / 64;
  parallelFor(n, tiles, 1, [&](std::size_t begin, std::size_t end, unsigned w) {
    for (std::size_t tile = begin; tile < end; ++tile) {
      const auto lanes = destinations.subspan(tile * 64);
      const std::uint64_t done = ordered.take(lanes, scratch[w], walkers[w].load());
      for (std::size_t i = 0; i < std::min<std::size_t>(64, lanes.size()); ++i) {
        if (((done >> i) & 1u) != 0) continue;
        walkers[w].visit(lanes[i]);
        if (perVl) perVl->add(walkers[w].hops());
      }
    }
  });
  TablesVerdict v;
  std::vector<std::uint64_t> load = std::move(given),
                             deps(walk.loops && !perVl ? slots.words() : 0, 0);
  load.resize(view.channelCount(), 0);
  for (const Walker& w : walkers) {
    v.unreachable += w.unreachable();
    for (std::size_t c = 0; c < load.size(); ++c) load[c] += w.load()[c];
    for (std::size_t i = 0; i < deps.size(); ++i) deps[i] |= w.deps()[i];
  }
  v.busiest = load.empty() ? 0 : std::ranges::max(load);
  if (walk.loops) v.acyclic = perVl ? perVl->report(result.vlsUsed).acyclic : slots.acyclic(deps);
  v.busiestFloor = busiestFloor(view);
  return v;
}

}  // namespace

TablesJudge creditLoopJudge() {
  return [](const Fabric& fabric, const RoutingResult& result) -> std::optional<std::string> {
    const CreditLoopReport loops = findCreditLoops(fabric, result);
    if (loops.acyclic) return std::nullopt;
    return fmt::format("its tables have a credit loop (cycle: {})", fmt::join(loops.cycle, " => "));
  };
}

TablesVerdict judgeTables(const Fabric& fabric, const RoutingResult& result, unsigned threads,
                          LoopCheck loops, std::span<const std::uint32_t> order,
                          const CopiedLoads* copied) {
  const bool walkLoops = loops == LoopCheck::Walk;
  if (!walkLoops && copied != nullptr) {
    // The copied LIDs' columns are never read: the view copies the others'
    // alone, and a whole one is made should the copied loads not apply.
    std::vector<bool> rest(std::size_t{kMaxUnicastLid} + 1, true);
    for (std::size_t lid = 0; lid < std::min(rest.size(), copied->lids.size()); ++lid)
      rest[lid] = !copied->lids[lid];
    const ForwardingView view(fabric, result, threads, &rest);
    std::vector<std::uint64_t> given(view.channelCount(), 0);
    if (addCopied(view, *copied, given))
      return judgeView(view, result, threads, {false, order}, std::move(given), &rest);
  }
  return judgeView(ForwardingView(fabric, result, threads), result, threads, {walkLoops, order}, {},
                   nullptr);
}

}  // namespace ibsm
