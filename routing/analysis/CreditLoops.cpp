#include "routing/analysis/CreditLoops.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <numeric>

#include "routing/multicast/McSl.h"

namespace ibsm::analysis {
namespace {

using routing::kDropVl;

// Splits the SL sets `cls` (cls[sl]: the set's number) by the VL each SL
// gets from one table, `vlOf`; `sets` counts them.
template <typename VlOf>
void refine(std::array<std::uint8_t, 16>& cls, std::uint8_t& sets, VlOf vlOf) {
  if (sets == 16) return;
  std::array<std::uint32_t, 16> key{};
  bool alike = true;
  for (std::uint8_t sl = 0; sl < 16; ++sl) {
    key[sl] = (std::uint32_t{cls[sl]} << 16) | vlOf(sl);
    alike &= (key[sl] & 0xFFFFU) == (key[0] & 0xFFFFU);
  }
  if (alike) return;  // one VL for every SL splits nothing
  std::array<std::uint8_t, 16> next{};
  std::uint8_t n = 0;
  for (std::uint8_t sl = 0; sl < 16; ++sl) {
    std::uint8_t j = 0;
    while (j < sl && key[j] != key[sl]) ++j;
    next[sl] = j < sl ? next[j] : n++;
  }
  cls = next;
  sets = n;
}

// One SL of each set of SLs every turn a dependency can take and every
// port traffic starts from maps to the same VL.
std::vector<std::uint8_t> slsToWalk(const ForwardingView& view) {
  if (!view.hasSl2Vl()) return {0};
  std::array<std::uint8_t, 16> cls{};
  std::uint8_t sets = 1;
  for (ChannelId c1 = 0; c1 < view.channelCount(); ++c1) {
    const Channel& in = view.channel(c1);
    for (ChannelId c2 = view.firstChannel(in.to); c2 < view.firstChannel(in.to + 1); ++c2)
      refine(cls, sets, [&](std::uint8_t sl) {
        return view.vl(in.to, in.remotePort, view.channel(c2).port, sl);
      });
  }
  for (SwitchIndex s = 0; s < view.switches(); ++s)
    for (ChannelId c = view.firstChannel(s); c < view.firstChannel(s + 1); ++c)
      refine(cls, sets,
             [&](std::uint8_t sl) { return view.originVls(s, view.channel(c).port, sl); });
  std::vector<std::uint8_t> out;
  std::uint16_t seen = 0;
  for (std::uint8_t sl = 0; sl < 16; ++sl) {
    if ((seen >> cls[sl]) & 1U) continue;
    seen = static_cast<std::uint16_t>(seen | (1U << cls[sl]));
    out.push_back(sl);
  }
  return out;
}

}  // namespace

ChannelDependencies::ChannelDependencies(const ForwardingView& view)
    : view_(view), perVl_(view.hasSl2Vl()), vls_(view.vlCount()), carried_(view.switches(), 0) {
  depStart_.resize(view.channelCount() + 1, 0);
  for (ChannelId c = 0; c < view.channelCount(); ++c) {
    const SwitchIndex to = view.channel(c).to;
    depStart_[c + 1] = depStart_[c] + (view.firstChannel(to + 1) - view.firstChannel(to));
  }
  if (perVl_)
    depVls_.assign(std::size_t{depStart_.back()} * vls_, 0);
  else
    single_.assign(depStart_.back() / 64 + 1, 0);
  if (perVl_ && !view.pairSls().empty()) {
    std::uint16_t used = 1;  // SL 0: every pair not named
    for (const PairSl& p : view.pairSls()) used |= static_cast<std::uint16_t>(1u << (p.sl & 0xF));
    for (std::uint8_t sl = 0; sl < 16; ++sl)
      if ((used >> sl) & 1u) sls_.push_back(sl);
  } else {
    sls_ = slsToWalk(view);
  }
}

void ChannelDependencies::add(const NextHops& hops) {
  if (!perVl_) return addSingleVl(hops);
  if (!view_.pairSls().empty()) return addPairSls(hops, view_.pairSlsOf(hops.lid()));
  for (const std::uint8_t sl : sls_) addPerVl(hops, sl);
}

void ChannelDependencies::addTogether(std::span<const NextHops* const> hops) {
  if (perVl_ || hops.size() == 1) {
    for (const NextHops* h : hops) add(*h);
    return;
  }
  for (SwitchIndex s = 0; s < view_.switches(); ++s) {
    for (const NextHops* h : hops) {
      const ChannelId c1 = h->channel(s);
      if (c1 == kNoChannel) continue;
      const SwitchIndex to = h->next(s);
      const ChannelId c2 = h->channel(to);
      if (c2 == kNoChannel) continue;
      const std::size_t i = slot(c1, to, c2);
      single_[i >> 6] |= std::uint64_t{1} << (i & 63);
    }
  }
}

void ChannelDependencies::add(const NextHops& hops, std::uint8_t sl) {
  if (perVl_)
    addPerVl(hops, sl);
  else
    addSingleVl(hops);
}

void ChannelDependencies::merge(const ChannelDependencies& other) {
  used_ = static_cast<std::uint16_t>(used_ | other.used_);
  for (std::size_t i = 0; i < single_.size(); ++i) single_[i] |= other.single_[i];
  for (std::size_t i = 0; i < depVls_.size(); ++i)
    depVls_[i] = static_cast<std::uint16_t>(depVls_[i] | other.depVls_[i]);
}

void ChannelDependencies::addSingleVl(const NextHops& hops) {
  // The set is larger than the cache; a switch's slots lie together and in
  // switch order, so each word is fetched a few switches ahead.
  // In two stages: the slots' start 2 * kAhead ahead, the word kAhead ahead.
  constexpr SwitchIndex kAhead = 16;
  const auto n = static_cast<SwitchIndex>(view_.switches());
  for (SwitchIndex s = 0; s < n; ++s) {
    if (s + 2 * kAhead < n && hops.channel(s + 2 * kAhead) != kNoChannel)
      __builtin_prefetch(&depStart_[hops.channel(s + 2 * kAhead)]);
    if (s + kAhead < n) {
      const SwitchIndex a = s + kAhead;
      const ChannelId c1 = hops.channel(a);
      if (c1 != kNoChannel && hops.channel(hops.next(a)) != kNoChannel)
        __builtin_prefetch(&single_[slot(c1, hops.next(a), hops.channel(hops.next(a))) >> 6], 1);
    }
    const ChannelId c1 = hops.channel(s);
    if (c1 == kNoChannel) continue;
    const SwitchIndex to = hops.next(s);
    const ChannelId c2 = hops.channel(to);
    if (c2 == kNoChannel) continue;
    const std::size_t i = slot(c1, to, c2);
    single_[i >> 6] |= std::uint64_t{1} << (i & 63);
  }
}

void ChannelDependencies::addPerVl(const NextHops& hops, std::uint8_t sl) {
  // The VL a hop uses depends on the port it entered by, so the VLs each
  // channel carries are pushed along the chains from where traffic starts.
  for (SwitchIndex s = 0; s < view_.switches(); ++s) {
    const ChannelId c = hops.channel(s);
    carried_[s] = c == kNoChannel ? 0 : view_.originVls(s, view_.channel(c).port, sl);
  }
  propagate(hops, sl);
}

void ChannelDependencies::addPairSls(const NextHops& hops, std::span<const PairSl> pairs) {
  if (pairs.empty()) return addPerVl(hops, 0);
  named_.clear();
  for (const PairSl& p : pairs) {
    const ForwardingView::Entry e = view_.entryOf(p.source);
    if (e.sw != kNoSwitch)
      named_.push_back({e.sw, e.inPort, static_cast<std::uint8_t>(p.sl & 0xF)});
  }
  std::ranges::sort(named_, {}, &Named::sw);
  std::uint16_t sls = 1;  // SL 0: the sources not named
  for (const Named& n : named_) sls = static_cast<std::uint16_t>(sls | (1u << n.sl));
  for (std::uint8_t sl = 0; sl < 16; ++sl) {
    if (((sls >> sl) & 1u) == 0) continue;
    if (sl == 0) {
      for (SwitchIndex s = 0; s < view_.switches(); ++s) {
        const ChannelId c = hops.channel(s);
        carried_[s] = c == kNoChannel ? 0 : view_.originVls(s, view_.channel(c).port, 0);
      }
    } else {
      std::ranges::fill(carried_, 0);
    }
    for (auto it = named_.begin(); it != named_.end();) {
      const auto end =
          std::find_if(it, named_.end(), [&](const Named& n) { return n.sw != it->sw; });
      carried_[it->sw] = namedOriginVls(hops, {it, end}, sl);
      it = end;
    }
    propagate(hops, sl);
  }
}

std::uint16_t ChannelDependencies::namedOriginVls(const NextHops& hops, std::span<const Named> at,
                                                  std::uint8_t sl) const {
  const SwitchIndex s = at.front().sw;
  const ChannelId c = hops.channel(s);
  if (c == kNoChannel) return 0;
  const std::uint8_t out = view_.channel(c).port;
  std::uint16_t mask = 0;
  const auto from = [&](std::uint8_t in) {
    const std::uint8_t v = view_.vl(s, in, out, sl);
    if (v < kDropVl) mask = static_cast<std::uint16_t>(mask | (1u << v));
  };
  if (sl != 0) {
    for (const Named& n : at)
      if (n.sl == sl) from(n.inPort);
    return mask;
  }
  // SL 0: every port traffic may start from at s (port 0 always, as
  // originVls counts it) but those named on another SL.
  const auto elsewhere = [&](std::uint8_t in) {
    return std::ranges::any_of(at, [&](const Named& n) { return n.inPort == in && n.sl != 0; });
  };
  if (!elsewhere(0)) from(0);
  for (const auto& e : view_.graph().endpoints(s).subspan(1))
    if (e.base.value != 0 && !elsewhere(e.switchPort)) from(e.switchPort);
  return mask;
}

void ChannelDependencies::propagate(const NextHops& hops, std::uint8_t sl) {
  const auto order = hops.order();
  bool changed = false;
  do {  // one pass settles a forest; chains through a loop need more
    changed = false;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const ChannelId c1 = hops.channel(*it);
      // Only traffic on `sl` that starts at or passes through *it goes on:
      // a switch nothing on `sl` reaches adds no dependency and carries
      // nothing onward (with pair SLs most switches carry SL k nothing).
      if (c1 == kNoChannel || carried_[*it] == 0) continue;
      const Channel& in = view_.channel(c1);
      const ChannelId c2 = hops.channel(in.to);
      if (c2 == kNoChannel) continue;
      const std::uint8_t v2 = view_.vl(in.to, in.remotePort, view_.channel(c2).port, sl);
      if (v2 >= kDropVl) continue;
      depVls_[slot(c1, in.to, c2) * vls_ + v2] |= carried_[*it];
      const auto grown = static_cast<std::uint16_t>(carried_[in.to] | (1u << v2));
      changed |= grown != carried_[in.to];
      carried_[in.to] = grown;
    }
  } while (hops.hasLoop() && changed);
  for (SwitchIndex s = 0; s < view_.switches(); ++s)
    if (hops.channel(s) != kNoChannel) used_ = static_cast<std::uint16_t>(used_ | carried_[s]);
}

std::optional<std::vector<ChannelDependencies::Node>> ChannelDependencies::findCycle(
    int onlyVl) const {
  enum : std::uint8_t { kWhite, kGrey, kBlack };
  const std::size_t nodes = view_.channelCount() * vls_;
  std::vector<std::uint8_t> colour(nodes, kWhite);
  struct Frame {
    Node node;
    std::uint32_t cursor;  // next (dependency slot, VL) pair to try
  };
  std::vector<Frame> stack;
  for (Node start = 0; start < nodes; ++start) {
    if (colour[start] != kWhite) continue;
    if (onlyVl != kAllVls && static_cast<int>(start % vls_) != onlyVl) continue;
    colour[start] = kGrey;
    stack.push_back({start, 0});
    while (!stack.empty()) {
      Frame& f = stack.back();
      const ChannelId c1 = f.node / vls_;
      const std::uint32_t v1 = f.node % vls_;
      const SwitchIndex to = view_.channel(c1).to;
      const ChannelId first = view_.firstChannel(to);
      const std::uint32_t limit = (view_.firstChannel(to + 1) - first) * vls_;
      bool descended = false;
      while (f.cursor < limit) {
        const std::uint32_t k = f.cursor++;
        const std::uint32_t v2 = k % vls_;
        if (onlyVl != kAllVls && static_cast<int>(v2) != onlyVl) continue;
        if (((waits(depStart_[c1] + k / vls_, v2) >> v1) & 1u) == 0) continue;
        const Node next = (first + k / vls_) * vls_ + v2;
        if (colour[next] == kGrey) {
          const auto at = std::ranges::find(stack, next, &Frame::node);
          std::vector<Node> cycle;
          for (auto it = at; it != stack.end(); ++it) cycle.push_back(it->node);
          return cycle;
        }
        if (colour[next] == kWhite) {
          colour[next] = kGrey;
          stack.push_back({next, 0});
          descended = true;
          break;
        }
      }
      if (!descended) {
        colour[stack.back().node] = kBlack;
        stack.pop_back();
      }
    }
  }
  return std::nullopt;
}

CreditLoopReport ChannelDependencies::report(std::uint8_t vlsNeeded,
                                             const CycleCause& cause) const {
  CreditLoopReport r;
  r.vlsNeeded = vlsNeeded;
  r.vlsAnalysed = vls_;
  r.channels = view_.channelCount();
  r.sls = sls_;
  r.perPairSls = perVl_ && !view_.pairSls().empty();
  if (perVl_) {
    r.vlsCarrying.clear();
    for (std::uint8_t v = 0; v < 16; ++v)
      if ((used_ >> v) & 1u) r.vlsCarrying.push_back(v);
  }
  std::vector<std::size_t> within(vls_, 0);  // dependencies that stay on one VL
  for (std::size_t i = 0; i < depStart_.back(); ++i) {
    for (std::uint32_t v2 = 0; v2 < vls_; ++v2) {
      const std::uint16_t mask = waits(i, v2);
      r.dependencies += static_cast<std::size_t>(std::popcount(mask));
      if ((mask >> v2) & 1u) ++within[v2];
    }
  }
  for (std::uint8_t v = 0; v < vls_; ++v)
    r.perVl.push_back(VlCreditLoops{v, !findCycle(v).has_value(), within[v]});
  if (const auto cycle = findCycle(kAllVls)) {
    r.acyclic = false;
    for (std::size_t i = 0; i < cycle->size(); ++i) {
      const Node n = (*cycle)[i];
      const Node next = (*cycle)[(i + 1) % cycle->size()];
      std::string name = view_.channelName(n / vls_);
      if (vls_ > 1) name += fmt::format(" VL{}", n % vls_);
      if (cause)
        if (const std::string why = cause(n / vls_, static_cast<std::uint8_t>(n % vls_),
                                          next / vls_, static_cast<std::uint8_t>(next % vls_));
            !why.empty())
          name += fmt::format(" ({})", why);
      r.cycle.push_back(std::move(name));
    }
  }
  return r;
}

}  // namespace ibsm::analysis
