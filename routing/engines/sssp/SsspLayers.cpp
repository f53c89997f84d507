#include "routing/engines/sssp/SsspLayers.h"

#include <fmt/format.h>

#include <algorithm>

namespace ibsm::routing::sssp {
namespace {

// Every route of two channels or more (a shorter one makes no dependency),
// its channels in order.
struct Paths {
  std::vector<std::uint16_t> lid;
  std::vector<SwitchIndex> from;
  std::vector<std::uint32_t> begin{0};  // into chans; size() + 1 entries
  std::vector<std::uint32_t> chans;

  std::size_t size() const { return lid.size(); }
};

Paths collectPaths(const SwitchGraph& graph, const Channels& ch, const SsspTables& tables) {
  Paths out;
  const std::size_t n = graph.size();
  for (std::size_t l = 1; l < tables.targets.size(); ++l) {
    const SwitchIndex d = tables.targets[l].sw;
    if (d == kNoSwitch) continue;
    const Lid lid{static_cast<std::uint16_t>(l)};
    for (SwitchIndex s = 0; s < n; ++s) {
      const std::size_t mark = out.chans.size();
      for (SwitchIndex at = s; at != d && out.chans.size() - mark <= n;) {
        const std::uint32_t c = ch.at(at, tables.lfts[graph.nodeId(at)].at(lid));
        if (c == kNoChannel) break;
        out.chans.push_back(c);
        at = ch.target[c];
      }
      if (out.chans.size() - mark < 2) {
        out.chans.resize(mark);
        continue;
      }
      out.lid.push_back(lid.value);
      out.from.push_back(s);
      out.begin.push_back(static_cast<std::uint32_t>(out.chans.size()));
    }
  }
  return out;
}

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
        ++edgeStart_[slots[i].first / channels + 1];
      }
      ++count_.back();
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

  // Moves the layer's paths that make dependency e to layer `up`.
  std::uint32_t raise(std::uint32_t e, std::vector<std::uint8_t>& layer, std::uint8_t l,
                      std::uint8_t up) {
    std::uint32_t moved = 0;
    for (std::uint32_t i = pathBegin_[e]; i < pathBegin_[e + 1]; ++i) {
      const std::uint32_t p = pathOf_[i];
      if (layer[p] != l) continue;
      layer[p] = up;
      ++moved;
      for (std::uint32_t j = paths_.begin[p]; j + 1 < paths_.begin[p + 1]; ++j)
        --count_[edge(key(paths_.chans[j], paths_.chans[j + 1]))];
    }
    return moved;
  }
  std::uint32_t count(std::uint32_t e) const { return count_[e]; }

 private:
  static constexpr std::uint8_t kWhite = 0, kGray = 1, kBlack = 2;
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
  std::vector<std::uint8_t> color_;       // per channel
};

// The dependencies of one layer as adjacency lists with counts, to which a
// path is added only when the layer stays acyclic with it. The layer keeps
// a topological order of its channels (Pearce and Kelly, JEA 2007): a new
// dependency a -> b with a before b needs no search; otherwise only the
// channels ordered between b and a are searched (forward from b: a cycle
// when it reaches a) and reordered.
class OpenLayer {
 public:
  OpenLayer(const Paths& paths, const std::vector<std::uint8_t>& layer, std::uint8_t l,
            std::size_t channels)
      : paths_(paths), out_(channels), in_(channels), ord_(channels), seen_(channels, 0) {
    for (std::uint32_t p = 0; p < paths.size(); ++p)
      if (layer[p] == l)
        for (std::uint32_t i = paths.begin[p]; i + 1 < paths.begin[p + 1]; ++i)
          link(paths.chans[i], paths.chans[i + 1]);
    sortTopologically();
  }

  // Adds path p when no cycle closes through its dependencies; otherwise
  // leaves the layer as it was and says no.
  bool tryAdd(std::uint32_t p) {
    for (std::uint32_t i = paths_.begin[p]; i + 1 < paths_.begin[p + 1]; ++i) {
      const std::uint32_t a = paths_.chans[i], b = paths_.chans[i + 1];
      if (link(a, b) && !order(a, b)) {
        unlink(a, b);
        for (std::uint32_t j = paths_.begin[p]; j < i; ++j)
          unlink(paths_.chans[j], paths_.chans[j + 1]);
        return false;
      }
    }
    return true;
  }
  void remove(std::uint32_t p) {
    for (std::uint32_t i = paths_.begin[p]; i + 1 < paths_.begin[p + 1]; ++i)
      unlink(paths_.chans[i], paths_.chans[i + 1]);
  }

 private:
  using Dep = std::pair<std::uint32_t, std::uint32_t>;  // (channel, paths making it)

  // Counts one more path making a -> b; true when the dependency is new.
  bool link(std::uint32_t a, std::uint32_t b) {
    auto& list = out_[a];
    auto it = std::ranges::find(list, b, &Dep::first);
    if (it != list.end()) return ++it->second, false;
    list.emplace_back(b, 1);
    in_[b].push_back(a);
    return true;
  }
  void unlink(std::uint32_t a, std::uint32_t b) {
    auto& list = out_[a];
    auto it = std::ranges::find(list, b, &Dep::first);
    if (--it->second > 0) return;
    list.erase(it);
    auto& back = in_[b];
    back.erase(std::ranges::find(back, a));
  }

  void sortTopologically() {
    std::vector<std::uint32_t> indegree(out_.size(), 0), ready;
    for (const auto& list : out_)
      for (const auto& [b, n] : list) ++indegree[b];
    for (std::uint32_t c = 0; c < out_.size(); ++c)
      if (indegree[c] == 0) ready.push_back(c);
    for (std::uint32_t next = 0; !ready.empty(); ++next) {
      const std::uint32_t c = ready.back();
      ready.pop_back();
      ord_[c] = next;
      for (const auto& [b, n] : out_[c])
        if (--indegree[b] == 0) ready.push_back(b);
    }
  }

  // Keeps the order topological with the new dependency a -> b; false (the
  // order untouched) when it closes a cycle.
  bool order(std::uint32_t a, std::uint32_t b) {
    if (ord_[a] < ord_[b]) return true;
    const std::uint32_t lo = ord_[b], hi = ord_[a];
    ++stamp_;
    std::vector<std::uint32_t> forward, backward;
    if (!collect(b, hi, true, a, forward)) return false;
    collect(a, lo, false, kNoChannel, backward);
    std::vector<std::uint32_t> slots;
    for (const auto* set : {&backward, &forward})
      for (const std::uint32_t c : *set) slots.push_back(ord_[c]);
    std::ranges::sort(slots);
    const auto byOrder = [&](std::uint32_t x, std::uint32_t y) { return ord_[x] < ord_[y]; };
    std::ranges::sort(backward, byOrder);
    std::ranges::sort(forward, byOrder);
    std::size_t k = 0;
    for (const auto* set : {&backward, &forward})
      for (const std::uint32_t c : *set) ord_[c] = slots[k++];
    return true;
  }

  // The channels reached from `from` (forward along out_, or back along
  // in_) ordered no later than `bound` (no earlier, going back); false when
  // `stop` is among them.
  bool collect(std::uint32_t from, std::uint32_t bound, bool ahead, std::uint32_t stop,
               std::vector<std::uint32_t>& found) {
    std::vector<std::uint32_t> stack{from};
    seen_[from] = stamp_;
    while (!stack.empty()) {
      const std::uint32_t c = stack.back();
      stack.pop_back();
      if (c == stop) return false;
      found.push_back(c);
      const auto visit = [&](std::uint32_t next) {
        const bool inside = ahead ? ord_[next] <= bound : ord_[next] >= bound;
        if (inside && seen_[next] != stamp_) {
          seen_[next] = stamp_;
          stack.push_back(next);
        }
      };
      if (ahead)
        for (const auto& [next, n] : out_[c]) visit(next);
      else
        for (const std::uint32_t next : in_[c]) visit(next);
    }
    return true;
  }

  const Paths& paths_;
  std::vector<std::vector<Dep>> out_;           // per channel: the channels it waits on
  std::vector<std::vector<std::uint32_t>> in_;  // per channel: those waiting on it
  std::vector<std::uint32_t> ord_;              // per channel, its place in the order
  std::vector<std::uint32_t> seen_;
  std::uint32_t stamp_{0};
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
                     std::uint8_t allowed) {
  const Paths paths = collectPaths(graph, channels, tables);
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
  for (std::size_t p = 0; p < paths.size(); ++p)
    if (layer[p] > 0) plan.raised.push_back({paths.lid[p], paths.from[p], layer[p]});
  return plan;
}

}  // namespace ibsm::routing::sssp
