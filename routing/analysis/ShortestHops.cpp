#include "routing/analysis/ShortestHops.h"

#include <ibsm/ParallelFor.h>

#include <algorithm>

namespace ibsm::analysis {
namespace {

constexpr std::uint32_t kNoRow = ~std::uint32_t{0};

}  // namespace

ShortestHops::ShortestHops(const ForwardingView& view, unsigned threads)
    : n_(view.switches()), rowOf_(view.switches(), kNoRow) {
  std::vector<SwitchIndex> targets;
  for (const Destination& d : view.destinations()) {
    if (d.ownerIsSwitch || d.sw == kNoSwitch || rowOf_[d.sw] != kNoRow) continue;
    rowOf_[d.sw] = static_cast<std::uint32_t>(targets.size());
    targets.push_back(d.sw);
  }
  hops_.assign(targets.size() * n_, routing::kUnreachable);
  const std::size_t batches = (targets.size() + Search::kWidth - 1) / Search::kWidth;
  parallelFor(threads, batches, 1, [&](std::size_t begin, std::size_t end, unsigned) {
    Search search(n_);
    for (std::size_t b = begin; b < end; ++b) {
      const std::size_t first = b * Search::kWidth;
      const std::size_t count = std::min(Search::kWidth, targets.size() - first);
      searchBatch(view, search, std::span(targets).subspan(first, count), first);
    }
  });
}

// The channels run both ways, so the hops from a target are the hops to it.
void ShortestHops::searchBatch(const ForwardingView& view, Search& search,
                               std::span<const SwitchIndex> targets, std::size_t firstRow) {
  const auto neighbours = [&view](SwitchIndex s, auto&& f) {
    for (ChannelId c = view.firstChannel(s); c < view.firstChannel(s + 1); ++c)
      f(view.channelTo(c));
  };
  search.run(
      targets, neighbours, [&](SwitchIndex s, std::uint16_t level, const Search::Bits& bits) {
        Search::forEachBit(bits, [&](std::size_t k) { hops_[(firstRow + k) * n_ + s] = level; });
      });
}

}  // namespace ibsm::analysis
