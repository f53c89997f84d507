#include "routing/engines/sssp/SsspLayers.h"

#include <fmt/format.h>

#include <algorithm>

#include "routing/engines/sssp/SsspPaths.h"

namespace ibsm::routing::sssp {
namespace {

// The dependencies of one layer's paths, and the cycle search over them.
class LayerGraph {
 public:
  LayerGraph(const Paths& paths, const std::vector<std::uint8_t>& layer, std::uint8_t l,
             std::size_t channels)
      : paths_(paths), channels_(channels) {
    std::vector<std::pair<std::uint64_t, std::uint32_t>> slots;  // (dependency, path)
    for (std::uint32_t p = 0; p < paths.size(); ++p)
      if (layer[p] == l)
        for (std::uint32_t i = paths.begin[p]; i + 1 < paths.begin[p + 1]; ++i)
          slots.emplace_back(key(paths.chans[i], paths.chans[i + 1]), p);
    std::ranges::sort(slots);
    edgeStart_.assign(channels + 1, 0);
    for (std::size_t i = 0; i < slots.size(); ++i) {
      if (i == 0 || slots[i].first != slots[i - 1].first) {
        keys_.push_back(slots[i].first);
        pathBegin_.push_back(static_cast<std::uint32_t>(i));
        count_.push_back(0);
        pinned_.push_back(false);
        ++edgeStart_[slots[i].first / channels + 1];
      }
      ++count_.back();
      if (paths.from[slots[i].second] == kNoSwitch) pinned_.back() = true;
      pathOf_.push_back(slots[i].second);
    }
    pathBegin_.push_back(static_cast<std::uint32_t>(slots.size()));
    for (std::size_t c = 0; c < channels; ++c) edgeStart_[c + 1] += edgeStart_[c];
    color_.assign(channels, kWhite);
  }

  bool empty() const { return keys_.empty(); }

  // The dependencies of one cycle still present; empty when there is none.
  std::vector<std::uint32_t> findCycle() {
    for (std::uint32_t root = 0; root < channels_; ++root) {
      if (color_[root] != kWhite) continue;
      auto cycle = searchFrom(root);
      if (!cycle.empty()) return cycle;
    }
    return {};
  }

  // Moves the layer's paths that make dependency e to layer `up`, but the
  // trees' turns (from kNoSwitch: pinned).
  std::uint32_t raise(std::uint32_t e, std::vector<std::uint8_t>& layer, std::uint8_t l,
                      std::uint8_t up) {
    std::uint32_t moved = 0;
    for (std::uint32_t i = pathBegin_[e]; i < pathBegin_[e + 1]; ++i) {
      const std::uint32_t p = pathOf_[i];
      if (layer[p] != l || paths_.from[p] == kNoSwitch) continue;
      layer[p] = up;
      ++moved;
      for (std::uint32_t j = paths_.begin[p]; j + 1 < paths_.begin[p + 1]; ++j)
        --count_[edge(key(paths_.chans[j], paths_.chans[j + 1]))];
    }
    return moved;
  }
  // The paths still making dependency e; past any count when a tree's turn
  // makes it (it cannot be cut).
  std::uint32_t count(std::uint32_t e) const { return pinned_[e] ? kPinned : count_[e]; }

 private:
  static constexpr std::uint8_t kWhite = 0, kGray = 1, kBlack = 2;
  static constexpr std::uint32_t kPinned = 0xFFFFFFFF;
  struct Frame {
    std::uint32_t channel;
    std::uint32_t next;  // the next dependency to follow; next - 1 was taken
  };

  std::uint64_t key(std::uint32_t a, std::uint32_t b) const {
    return std::uint64_t{a} * channels_ + b;
  }
  std::uint32_t edge(std::uint64_t k) const {
    return static_cast<std::uint32_t>(std::ranges::lower_bound(keys_, k) - keys_.begin());
  }

  std::vector<std::uint32_t> searchFrom(std::uint32_t root) {
    std::vector<Frame> stack{{root, edgeStart_[root]}};
    color_[root] = kGray;
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.next == edgeStart_[f.channel + 1]) {
        color_[f.channel] = kBlack;
        stack.pop_back();
        continue;
      }
      const std::uint32_t e = f.next++;
      if (count_[e] == 0) continue;
      const auto to = static_cast<std::uint32_t>(keys_[e] % channels_);
      if (color_[to] == kBlack) continue;
      if (color_[to] == kWhite) {
        color_[to] = kGray;
        stack.push_back({to, edgeStart_[to]});
        continue;
      }
      std::vector<std::uint32_t> cycle;  // `to` is on the stack: the cycle closes there
      auto it = std::ranges::find(stack, to, &Frame::channel);
      for (; it != stack.end(); ++it) cycle.push_back(it->next - 1);
      for (const Frame& g : stack) color_[g.channel] = kWhite;  // searched again after the cut
      return cycle;
    }
    return {};
  }

  const Paths& paths_;
  std::size_t channels_;
  std::vector<std::uint64_t> keys_;       // per dependency, sorted: from * channels + to
  std::vector<std::uint32_t> edgeStart_;  // per channel, its first dependency
  std::vector<std::uint32_t> pathBegin_;  // per dependency, into pathOf_
  std::vector<std::uint32_t> pathOf_;     // the paths making each dependency
  std::vector<std::uint32_t> count_;      // of them, those still on the layer
  std::vector<bool> pinned_;              // per dependency: a tree's turn makes it
  std::vector<std::uint8_t> color_;       // per channel
};

// Moves each raised path, layer by layer from the lowest, down to the
// lowest layer that stays acyclic with it (a layer it leaves stays acyclic:
// it only loses dependencies). No path goes up, so no layer is more than
// the cycle search made; the top layers, thin (a few hundred routes on a
// Lassen-like tree), often empty. Returns the layers still used.
std::uint8_t squeezeLayers(const Paths& paths, std::vector<std::uint8_t>& layer,
                           std::uint8_t layers, std::size_t channels) {
  std::vector<OpenLayer> open;
  for (std::uint8_t l = 0; l < layers; ++l) open.emplace_back(paths, layer, l, channels);
  for (std::uint8_t from = 1; from < layers; ++from)
    for (std::uint32_t p = 0; p < paths.size(); ++p) {
      if (layer[p] != from) continue;
      for (std::uint8_t l = 0; l < from; ++l)
        if (open[l].tryAdd(p)) {
          open[from].remove(p);
          layer[p] = l;
          break;
        }
    }
  std::uint8_t used = 1;
  for (const std::uint8_t l : layer) used = std::max<std::uint8_t>(used, l + 1);
  return used;
}

}  // namespace

LayerPlan planLayers(const SwitchGraph& graph, const Channels& channels, const SsspTables& tables,
                     std::uint8_t allowed, const OneTree* trees) {
  Paths paths = collectPaths(graph, channels, tables);
  if (trees != nullptr) appendTreeTurns(channels, *trees, paths);
  std::vector<std::uint8_t> layer(paths.size(), 0);
  LayerPlan plan;
  for (std::uint8_t l = 0;; ++l) {
    LayerGraph deps(paths, layer, l, channels.size());
    if (deps.empty()) break;
    plan.layers = static_cast<std::uint8_t>(l + 1);
    if (l == 15) {  // past 16 layers the squeeze is not tried
      plan.problem = fmt::format(
          "the shortest routes need more than 16 VLs to be free of credit loops (allowed {})",
          allowed);
      return plan;
    }
    for (auto cycle = deps.findCycle(); !cycle.empty(); cycle = deps.findCycle()) {
      const auto cut =
          *std::ranges::min_element(cycle, {}, [&](std::uint32_t e) { return deps.count(e); });
      deps.raise(cut, layer, l, static_cast<std::uint8_t>(l + 1));
      ++plan.cuts;
    }
  }
  // The cuts may pass `allowed`: the squeeze often brings them back under.
  plan.layers = squeezeLayers(paths, layer, plan.layers, channels.size());
  if (plan.layers > allowed) {
    plan.problem =
        fmt::format("the shortest routes need more than {} VL{} to be free of credit loops",
                    allowed, allowed == 1 ? "" : "s");
    return plan;
  }
  for (std::size_t p = 0; p < paths.size(); ++p)  // the trees' turns stay on layer 0
    if (layer[p] > 0) plan.raised.push_back({paths.lid[p], paths.from[p], layer[p]});
  return plan;
}

}  // namespace ibsm::routing::sssp
