#include "routing/analysis/ShortestHops.h"

#include <ibsm/ParallelFor.h>

#include <bit>

namespace ibsm::analysis {
namespace {

constexpr std::size_t kBatch = 64;  // destinations per search: the bits of a word
constexpr std::uint32_t kNoRow = ~std::uint32_t{0};

}  // namespace

ShortestHops::ShortestHops(const ForwardingView& view, unsigned threads)
    : view_(view), n_(view.switches()), rowOf_(view.switches(), kNoRow) {
  std::vector<SwitchIndex> targets;
  for (const Destination& d : view.destinations()) {
    if (d.ownerIsSwitch || d.sw == kNoSwitch || rowOf_[d.sw] != kNoRow) continue;
    rowOf_[d.sw] = static_cast<std::uint32_t>(targets.size());
    targets.push_back(d.sw);
  }
  // The far end of every channel, in channel order: what the search reads.
  std::vector<SwitchIndex> adjacent(view.channelCount());
  for (ChannelId c = 0; c < adjacent.size(); ++c) adjacent[c] = view.channel(c).to;
  hops_.assign(targets.size() * n_, routing::kUnreachable);
  const std::size_t batches = (targets.size() + kBatch - 1) / kBatch;
  parallelFor(threads, batches, 1, [&](std::size_t begin, std::size_t end, unsigned) {
    for (std::size_t b = begin; b < end; ++b)
      searchBatch(b * kBatch, std::min(kBatch, targets.size() - b * kBatch), targets, adjacent);
  });
}

// Level by level: a switch is reached at level L by the destinations that
// reached one of its neighbours at level L-1 and had not reached it yet
// (the channels run both ways, so the neighbours are the ends of its own).
void ShortestHops::searchBatch(std::size_t first, std::size_t count,
                               const std::vector<SwitchIndex>& targets,
                               const std::vector<SwitchIndex>& adjacent) {
  std::vector<std::uint64_t> frontier(n_, 0);
  std::vector<std::uint64_t> next(n_, 0);
  std::vector<std::uint64_t> reached(n_, 0);
  for (std::size_t k = 0; k < count; ++k) {
    const SwitchIndex t = targets[first + k];
    frontier[t] |= std::uint64_t{1} << k;
    reached[t] |= std::uint64_t{1} << k;
    hops_[(first + k) * n_ + t] = 0;
  }
  for (std::uint16_t level = 1;; ++level) {
    bool grew = false;
    for (SwitchIndex s = 0; s < n_; ++s) {
      std::uint64_t m = 0;
      for (ChannelId c = view_.firstChannel(s); c < view_.firstChannel(s + 1); ++c)
        m |= frontier[adjacent[c]];
      m &= ~reached[s];
      next[s] = m;
      if (m == 0) continue;
      grew = true;
      reached[s] |= m;
      for (; m != 0; m &= m - 1)
        hops_[(first + static_cast<std::size_t>(std::countr_zero(m))) * n_ + s] = level;
    }
    if (!grew) return;
    frontier.swap(next);
  }
}

}  // namespace ibsm::analysis
