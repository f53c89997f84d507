#include "routing/analysis/MultipathDisjointness.h"

#include <fmt/format.h>
#include <ibsm/ParallelFor.h>

#include <algorithm>
#include <array>
#include <bit>
#include <span>
#include <vector>

#include "routing/analysis/NextHops.h"

namespace ibsm::analysis {
namespace {

constexpr unsigned kMaxPaths = MultipathReport::kMaxPaths;

// One CA port's LIDs in view.destinations(): [first, first + count). The
// view sorts a switch's CA LIDs by LID, so a port's range is one run.
struct Group {
  std::uint32_t first{0};
  std::uint32_t count{0};
};

std::vector<Group> groupsOf(std::span<const Destination> ds) {
  std::vector<Group> out;
  for (std::uint32_t i = 0; i < ds.size(); ++i) {
    const Destination& d = ds[i];
    if (d.ownerIsSwitch || d.sw == kNoSwitch || !d.isBase) continue;
    std::uint32_t n = 1;
    while (i + n < ds.size() && ds[i + n].owner == d.owner && !ds[i + n].isBase) ++n;
    if (n > 1) out.push_back({i, n});
  }
  return out;
}

void addClass(MultipathClass& into, const MultipathClass& from) {
  into.pairs += from.pairs;
  for (std::size_t k = 0; k < into.linkDisjoint.size(); ++k) {
    into.linkDisjoint[k] += from.linkDisjoint[k];
    into.switchDisjoint[k] += from.switchDisjoint[k];
  }
}

// Bits of `mask` for every route marked before in `marks[at]`, which then
// gets route i's bit; `touched` remembers what to clear.
template <typename Index>
std::uint16_t mark(std::vector<std::uint16_t>& marks, Index at, unsigned i,
                   std::vector<Index>& touched) {
  const std::uint16_t before = marks[at];
  if (before == 0) touched.push_back(at);
  marks[at] = static_cast<std::uint16_t>(before | (1u << i));
  return before;
}

class Walker {
 public:
  Walker(const ForwardingView& view, unsigned paths)
      : view_(view),
        hops_(paths, NextHops(view)),
        onChannel_(view.channelCount(), 0),
        onSwitch_(view.switches(), 0),
        pushed_(view.switches(), 0),
        load_(paths, std::vector<std::uint64_t>(view.channelCount(), 0)) {
    for (MultipathClass* c : {&compute_, &apart_}) {
      c->linkDisjoint.assign(paths + 1u, 0);
      c->switchDisjoint.assign(paths + 1u, 0);
    }
  }

  void walk(const Group& g) {
    const unsigned n = std::min<unsigned>(g.count, static_cast<unsigned>(hops_.size()));
    const auto ds = view_.destinations();
    // Together: each switch's ports and channels read once for the n LIDs.
    std::array<NextHops*, kMaxPaths> hops{};
    std::array<const Destination*, kMaxPaths> lids{};
    for (unsigned i = 0; i < n; ++i) {
      hops[i] = &hops_[i];
      lids[i] = &ds[g.first + i];
    }
    NextHops::resolveTogether({hops.data(), n}, {lids.data(), n});
    const Destination& d = ds[g.first];
    for (SwitchIndex s = 0; s < view_.switches(); ++s) {
      const std::uint64_t ca = view_.caSources(s);
      if (ca == 0) continue;
      if (s == d.sw) {
        sameSwitch_ += ca - 1;  // the destination port is no source of its own LIDs
        continue;
      }
      const std::uint64_t apart = d.apart ? ca : view_.apartSources(s);
      fromSource(s, d.sw, n, ca - std::min(ca, apart), std::min(ca, apart));
    }
    for (unsigned i = 0; i < n; ++i) addLoads(hops_[i], d, load_[i]);
  }

  void merge(const Walker& o) {
    sameSwitch_ += o.sameSwitch_;
    addClass(compute_, o.compute_);
    addClass(apart_, o.apart_);
    for (std::size_t l = 0; l < load_.size(); ++l)
      for (std::size_t c = 0; c < load_[l].size(); ++c) load_[l][c] += o.load_[l][c];
  }

  void finish(MultipathReport& r) const {
    r.sameSwitch = sameSwitch_;
    r.compute = compute_;
    r.apart = apart_;
    r.all = compute_;
    addClass(r.all, apart_);
    for (const auto& load : load_)
      r.busiestPerLayer.push_back(load.empty() ? 0 : *std::ranges::max_element(load));
  }

 private:
  // The n routes from s to the destination switch `to`: their conflicts,
  // the compute pairs' loads, and the pairs counted by how many are disjoint.
  void fromSource(SwitchIndex s, SwitchIndex to, unsigned n, std::uint64_t compute,
                  std::uint64_t apart) {
    std::uint16_t links[kMaxPaths]{}, switches[kMaxPaths]{};
    std::uint32_t delivered = 0;
    for (unsigned i = 0; i < n; ++i) {
      const NextHops& h = hops_[i];
      if (h.outcome(s) != Outcome::Delivered) continue;
      delivered |= 1u << i;
      for (SwitchIndex t = s; t != to; t = h.next(t)) {
        const ChannelId c = h.channel(t);
        links[i] |= mark(onChannel_, c, i, channelsTouched_);
        if (h.next(t) != to) switches[i] |= mark(onSwitch_, h.next(t), i, switchesTouched_);
      }
    }
    for (const ChannelId c : channelsTouched_) onChannel_[c] = 0;
    for (const SwitchIndex t : switchesTouched_) onSwitch_[t] = 0;
    channelsTouched_.clear();
    switchesTouched_.clear();
    // Each route saw only the routes marked before it: make the conflicts mutual.
    for (unsigned i = 0; i < n; ++i)
      for (unsigned j = 0; j < i; ++j) {
        if (links[i] >> j & 1u) links[j] |= static_cast<std::uint16_t>(1u << i);
        if (switches[i] >> j & 1u) switches[j] |= static_cast<std::uint16_t>(1u << i);
      }
    // Switch-disjoint routes share no cable either (two direct routes
    // between neighbours have no switch between them, yet one cable).
    for (unsigned i = 0; i < n; ++i) switches[i] |= links[i];
    const unsigned byLink = mostIndependent(delivered, links);
    const unsigned bySwitch = mostIndependent(delivered, switches);
    for (auto [cls, pairs] : {std::pair{&compute_, compute}, std::pair{&apart_, apart}}) {
      cls->pairs += pairs;
      cls->linkDisjoint[byLink] += pairs;
      cls->switchDisjoint[bySwitch] += pairs;
    }
  }

  // The compute pairs' routes toward one LID on its layer's cables, pushed
  // along its next hops (as the report's link loads are).
  void addLoads(const NextHops& hops, const Destination& d, std::vector<std::uint64_t>& load) {
    for (SwitchIndex s = 0; s < view_.switches(); ++s) {
      const std::uint64_t ca = s == d.sw ? 0 : view_.caSources(s);
      const std::uint64_t apart = d.apart ? ca : std::min<std::uint64_t>(ca, view_.apartSources(s));
      pushed_[s] = hops.outcome(s) == Outcome::Delivered ? ca - apart : 0;
    }
    pushLoads(hops, pushed_, load);
  }

  const ForwardingView& view_;
  std::vector<NextHops> hops_;  // per LID of the port walked
  std::vector<std::uint16_t> onChannel_, onSwitch_;
  std::vector<ChannelId> channelsTouched_;
  std::vector<SwitchIndex> switchesTouched_;
  std::vector<std::uint64_t> pushed_;             // per switch, for addLoads
  std::vector<std::vector<std::uint64_t>> load_;  // per layer, per channel
  std::uint64_t sameSwitch_{0};
  MultipathClass compute_, apart_;
};

}  // namespace

unsigned mostIndependent(std::uint32_t candidates, const std::uint16_t* conflicts) {
  // Routes that conflict with none of the others all count.
  std::uint32_t alone = 0;
  for (std::uint32_t m = candidates; m != 0; m &= m - 1) {
    const unsigned v = static_cast<unsigned>(std::countr_zero(m));
    if ((conflicts[v] & candidates) == 0) alone |= 1u << v;
  }
  const std::uint32_t rest = candidates & ~alone;
  const auto base = static_cast<unsigned>(std::popcount(alone));
  if (rest == 0) return base;
  const unsigned v = static_cast<unsigned>(std::countr_zero(rest));
  const std::uint32_t others = rest & ~(1u << v);
  return base + std::max(mostIndependent(others, conflicts),
                         1 + mostIndependent(others & ~std::uint32_t{conflicts[v]}, conflicts));
}

MultipathReport analyseMultipath(const ForwardingView& view, unsigned threads) {
  MultipathReport r;
  const std::vector<Group> groups = groupsOf(view.destinations());
  if (groups.empty()) return r;
  for (const Group& g : groups) r.paths = std::max(r.paths, std::min(g.count, kMaxPaths));
  r.destinationPorts = groups.size();
  const unsigned workers = std::max<unsigned>(
      1, static_cast<unsigned>(std::min<std::size_t>(threadCount(threads), groups.size())));
  std::vector<Walker> pool;
  pool.reserve(workers);
  for (unsigned w = 0; w < workers; ++w) pool.emplace_back(view, r.paths);
  parallelFor(workers, groups.size(), 16, [&](std::size_t begin, std::size_t end, unsigned w) {
    for (std::size_t i = begin; i < end; ++i) pool[w].walk(groups[i]);
  });
  for (unsigned w = 1; w < workers; ++w) pool[0].merge(pool[w]);
  pool[0].finish(r);
  return r;
}

namespace {

void writeCounts(JsonWriter& w, std::string_view key, const std::vector<std::uint64_t>& counts) {
  w.key(key).beginArray();
  for (const std::uint64_t c : counts) w.value(c);
  w.endArray();
}

void writeClass(JsonWriter& w, std::string_view key, const MultipathClass& c) {
  w.key(key).beginObject().key("pairs").value(c.pairs);
  writeCounts(w, "linkDisjoint", c.linkDisjoint);
  writeCounts(w, "switchDisjoint", c.switchDisjoint);
  w.endObject();
}

// "4: 120, 3: 8, 2: 0, 1: 0" -- most disjoint first, k = 0 only when some pair has it.
std::string histogram(const std::vector<std::uint64_t>& counts) {
  std::string out;
  for (std::size_t k = counts.size(); k-- > 0;) {
    if (k == 0 && counts[0] == 0) break;
    out += fmt::format("{}{}: {}", out.empty() ? "" : ", ", k, counts[k]);
  }
  return out;
}

}  // namespace

void writeMultipath(JsonWriter& w, const MultipathReport& m) {
  w.key("multipath").beginObject();
  w.key("pathsPerPort").value(m.paths).key("destinationPorts").value(m.destinationPorts);
  w.key("sameSwitchPairs").value(m.sameSwitch);
  writeClass(w, "all", m.all);
  writeClass(w, "compute", m.compute);
  writeClass(w, "apart", m.apart);
  writeCounts(w, "busiestPerLayer", m.busiestPerLayer);
  w.endObject();
}

void summariseMultipath(const MultipathReport& m, std::string& out) {
  out += fmt::format(
      "multipath ({} LIDs per port, {} CA ports with LMC > 0; {} pairs on different switches, {} "
      "on one switch not counted): pairs by link-disjoint paths {}; by paths disjoint but for "
      "their end switches {}\n",
      m.paths, m.destinationPorts, m.all.pairs, m.sameSwitch, histogram(m.all.linkDisjoint),
      histogram(m.all.switchDisjoint));
  if (m.apart.pairs > 0)
    out += fmt::format(
        "  compute pairs ({}): link-disjoint {}; switch-disjoint {}\n  pairs with an end routed "
        "apart ({}): link-disjoint {}; switch-disjoint {}\n",
        m.compute.pairs, histogram(m.compute.linkDisjoint), histogram(m.compute.switchDisjoint),
        m.apart.pairs, histogram(m.apart.linkDisjoint), histogram(m.apart.switchDisjoint));
  out += fmt::format("  busiest link per LMC layer (compute CA->CA routes to LID base+l): {}\n",
                     fmt::join(m.busiestPerLayer, ", "));
}

}  // namespace ibsm::analysis
