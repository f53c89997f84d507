// Degradation picks cables with its own Fisher-Yates shuffle over
// std::mt19937_64: std::shuffle and the std distributions may differ between
// standard libraries, the engine's output may not, so a seed names the same
// cut on every machine.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <unordered_map>
#include <vector>

#include "routing/topology/generate/Generators.h"

namespace ibsm::topogen {

namespace {

// Uniform in [0, n): draws below 2^64 mod n are rejected so that every
// residue is equally likely.
std::uint64_t below(std::mt19937_64& rng, std::uint64_t n) {
  const std::uint64_t reject = (0 - n) % n;
  for (;;) {
    const std::uint64_t r = rng();
    if (r >= reject) return r % n;
  }
}

// The switches and the cables still between them, answering "would the
// switches stay connected without this cable?".
class SwitchLinks {
 public:
  explicit SwitchLinks(const NetBuilder& net)
      : cables_(net.switchCables()), alive_(cables_.size(), true), adjacent_(net.nodeCount()) {
    for (std::size_t i = 0; i < cables_.size(); ++i) {
      adjacent_[cables_[i].a.node].push_back(i);
      adjacent_[cables_[i].b.node].push_back(i);
      ++parallel_[pairKey(i)];
    }
    for (NetNode n = 0; n < net.nodeCount(); ++n)
      if (net.isSwitch(n)) ++switches_;
  }

  std::size_t switches() const { return switches_; }

  bool removeUnlessBridge(std::size_t cable) {
    auto& count = parallel_[pairKey(cable)];
    alive_[cable] = false;
    if (count > 1 || connected(cables_[cable].a.node, cables_[cable].b.node)) {
      --count;
      return true;
    }
    alive_[cable] = true;
    return false;
  }

 private:
  std::uint64_t pairKey(std::size_t cable) const {
    const auto [x, y] = std::minmax(cables_[cable].a.node, cables_[cable].b.node);
    return (std::uint64_t{x} << 32) | y;
  }

  // Breadth-first from `from`, stopping as soon as `to` is seen.
  bool connected(NetNode from, NetNode to) {
    seen_.assign(adjacent_.size(), false);
    queue_.clear();
    queue_.push_back(from);
    seen_[from] = true;
    for (std::size_t head = 0; head < queue_.size(); ++head) {
      for (const std::size_t c : adjacent_[queue_[head]]) {
        if (!alive_[c]) continue;
        const NetNode next =
            cables_[c].a.node == queue_[head] ? cables_[c].b.node : cables_[c].a.node;
        if (seen_[next]) continue;
        if (next == to) return true;
        seen_[next] = true;
        queue_.push_back(next);
      }
    }
    return false;
  }

  const std::vector<NetCable>& cables_;
  std::vector<bool> alive_;
  std::vector<std::vector<std::size_t>> adjacent_;
  std::unordered_map<std::uint64_t, int> parallel_;
  std::size_t switches_{0};
  std::vector<bool> seen_;
  std::vector<NetNode> queue_;
};

}  // namespace

Result<void> degrade(NetBuilder& net, const Degradation& d) {
  if (d.links == 0) return {};
  if (d.links < 0)
    return fail(fmt::format("degradation links={}: links must be 0 or more", d.links));
  SwitchLinks links(net);
  const std::size_t cables = net.switchCables().size();
  // A connected graph keeps at least switches-1 cables, and any cable beyond
  // a spanning tree lies on a cycle, so exactly this many can always go.
  const std::size_t keep = links.switches() > 0 ? links.switches() - 1 : 0;
  const std::size_t removable = cables > keep ? cables - keep : 0;
  if (static_cast<std::size_t>(d.links) > removable)
    return fail(
        fmt::format("degradation links={}: this fabric has {} inter-switch cables and "
                    "{} switches, so at most {} can be removed without splitting it",
                    d.links, cables, links.switches(), removable));

  std::vector<std::size_t> order(cables);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::mt19937_64 rng(d.seed);
  for (std::size_t i = cables; i > 1; --i) std::swap(order[i - 1], order[below(rng, i)]);

  // A cable refused once stays a bridge (the graph only loses cables), so
  // one pass over the shuffled cables reaches the count.
  int removed = 0;
  for (std::size_t i = 0; i < cables && removed < d.links; ++i)
    if (links.removeUnlessBridge(order[i])) {
      net.removeSwitchCable(order[i]);
      ++removed;
    }
  if (removed < d.links)  // only if the fabric was split to begin with
    return fail(
        fmt::format("degradation links={}: only {} cables could be removed without "
                    "splitting the fabric",
                    d.links, removed));
  return {};
}

}  // namespace ibsm::topogen
