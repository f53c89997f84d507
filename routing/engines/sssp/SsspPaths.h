// What sssp's layering works on (SsspLayers.h, SsspTreeLayer.h): every
// route as its path of channels, and one layer's dependencies kept acyclic
// as paths are added to it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "routing/engines/sssp/SsspRoutes.h"
#include "routing/multicast/McTreeBuilder.h"

namespace ibsm::routing::sssp {

// Every route of two channels or more (a shorter one makes no dependency),
// its channels in order.
struct Paths {
  std::vector<std::uint16_t> lid;
  std::vector<SwitchIndex> from;
  std::vector<std::uint32_t> begin{0};  // into chans; size() + 1 entries
  std::vector<std::uint32_t> chans;

  std::size_t size() const { return lid.size(); }
};

Paths collectPaths(const SwitchGraph& graph, const Channels& ch, const SsspTables& tables);

// Appends every turn a copy of one of the trees of `tree` may take
// (routing/multicast/McTreeBuilder.h OneTree::forEachTurn) as a path of two
// channels from kNoSwitch: pinned where it is put, never moved.
void appendTreeTurns(const Channels& channels, const OneTree& tree, Paths& paths);

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

}  // namespace ibsm::routing::sssp
