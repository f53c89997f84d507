#include "routing/plan/OrderedLoads.h"

#include <algorithm>

namespace ibsm {

using analysis::ChannelId;
using analysis::Destination;
using analysis::ForwardingView;
using analysis::kNoChannel;
using analysis::kNoSwitch;
using analysis::SwitchIndex;

OrderedLoads::OrderedLoads(const ForwardingView& view, std::span<const SwitchIndex> order)
    : view_(view) {
  const std::size_t n = view.switches();
  std::vector<std::uint32_t> position(n, 0);
  std::vector<bool> seen(n, false);
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (order[i] >= n || seen[order[i]]) return;
    seen[order[i]] = true;
    position[order[i]] = static_cast<std::uint32_t>(i);
  }
  if (order.size() != n) return;
  order_.assign(order.begin(), order.end());
  for (SwitchIndex s = 0; s < n; ++s)
    stride_ = std::max<std::size_t>(stride_, view.numPorts(s) + 1u);
  hops_ = routing::HubOrderedLanes(n, stride_);
  channel_.assign(n * stride_, kNoChannel);
  for (SwitchIndex s = 0; s < n; ++s)
    for (unsigned p = 0; p <= view.numPorts(s); ++p) {
      const std::uint16_t step = view.step(s, static_cast<std::uint8_t>(p));
      if (step >= ForwardingView::kStepWrong) continue;
      const ChannelId c = view.row(s).firstChannel + step;
      const SwitchIndex t = view.channelTo(c);
      if (t == s) continue;
      hops_.add(s, static_cast<std::uint8_t>(p), t, position[t] < position[s]);
      channel_[s * stride_ + p] = c;
    }
}

// The lanes whose chains climb, then descend in the order.
std::uint64_t OrderedLoads::masks(std::span<const Destination> tile, Scratch& scratch) const {
  const std::size_t count = tile.size();
  scratch.start(view_.switches());
  std::uint64_t delivered = 0, candidates = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const Destination& d = tile[i];
    if (d.sw == kNoSwitch) continue;
    candidates |= std::uint64_t{1} << i;
    scratch.targetOf[d.sw] |= std::uint64_t{1} << i;
    if (entry(d.sw, d.lid) == d.port) delivered |= std::uint64_t{1} << i;
  }
  return hops_.whole(
      order_, count, candidates, delivered, scratch,
      [&](SwitchIndex s, std::uint8_t* ports) {
        for (std::size_t i = 0; i < count; ++i) ports[i] = entry(s, tile[i].lid);
      },
      [&](SwitchIndex s, unsigned i) { return entry(s, tile[i].lid); },
      [](SwitchIndex) { return true; });
}

// The report's counts (AnalyseRoutes.cpp): from every switch, its CA ports
// but the destination's own and those routed apart (none when the
// destination is apart), pushed along the chains.
void OrderedLoads::pushLoads(std::span<const Destination> tile, std::uint64_t lanes,
                             Scratch& scratch, std::vector<std::uint64_t>& load) const {
  const std::size_t n = view_.switches();
  auto& flow = scratch.flow;
  flow.assign(n * 64, 0);
  for (SwitchIndex s = 0; s < n; ++s) {
    if (view_.caSources(s) == 0) continue;
    for (std::uint64_t rest = lanes; rest != 0; rest &= rest - 1) {
      const auto i = static_cast<unsigned>(__builtin_ctzll(rest));
      const Destination& d = tile[i];
      const std::uint64_t ca = view_.caSources(s) - (d.sw == s ? 1u : 0u);
      const std::uint64_t apart = d.apart ? ca : view_.apartSources(s);
      flow[s * 64 + i] = static_cast<std::uint32_t>(ca - std::min(ca, apart));
    }
  }
  const auto push = [&](SwitchIndex s, std::uint64_t which) {
    for (; which != 0; which &= which - 1) {
      const auto i = static_cast<unsigned>(__builtin_ctzll(which));
      const std::uint32_t f = flow[s * 64 + i];
      if (f == 0) continue;
      const std::uint8_t p = entry(s, tile[i].lid);
      flow[(hops_.hop(s, p) >> 2) * 64 + i] += f;
      load[channel(s, p)] += f;
    }
  };
  // Climbing hops lead to earlier switches: the latest first.
  for (auto it = order_.rbegin(); it != order_.rend(); ++it)
    push(*it, scratch.up[*it] & ~scratch.down[*it] & lanes);
  for (const SwitchIndex s : order_) push(s, scratch.down[s] & ~scratch.targetOf[s] & lanes);
}

std::uint64_t OrderedLoads::take(std::span<const Destination> tile, Scratch& scratch,
                                 std::vector<std::uint64_t>& load) const {
  tile = tile.first(std::min<std::size_t>(tile.size(), 64));
  if (order_.empty() || tile.empty()) return 0;
  const std::uint64_t whole = masks(tile, scratch);
  std::uint64_t loads = 0;
  for (std::size_t i = 0; i < tile.size(); ++i)
    if (((whole >> i) & 1u) != 0 && !tile[i].ownerIsSwitch && tile[i].isBase)
      loads |= std::uint64_t{1} << i;
  if (loads != 0) pushLoads(tile, loads, scratch, load);
  return whole;
}

}  // namespace ibsm
