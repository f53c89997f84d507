// Min cuts between switches by augmenting paths; see MultipathBound.h.
#include "routing/analysis/MultipathBound.h"

#include <ibsm/ParallelFor.h>

#include <algorithm>

namespace ibsm::analysis {
namespace {

using routing::SwitchIndex;

// Directed cables as arcs of capacity 1, with the arcs into each switch.
struct Arcs {
  std::vector<SwitchIndex> tail, head;
  std::vector<std::uint32_t> outStart, inStart, in;  // CSR: out arcs by tail, in arcs by head

  explicit Arcs(const routing::SwitchGraph& g)
      : outStart(g.size() + 1, 0), inStart(g.size() + 1, 0) {
    for (SwitchIndex s = 0; s < g.size(); ++s) {
      g.forEachCable(s, [&](SwitchIndex t, const routing::Cable&) {
        if (t == s) return;
        tail.push_back(s);
        head.push_back(t);
        ++inStart[t + 1];
      });
      outStart[s + 1] = static_cast<std::uint32_t>(tail.size());
    }
    for (std::size_t s = 0; s < g.size(); ++s) inStart[s + 1] += inStart[s];
    in.resize(head.size());
    std::vector<std::uint32_t> at(inStart.begin(), inStart.end() - 1);
    for (std::uint32_t a = 0; a < head.size(); ++a) in[at[head[a]]++] = a;
  }
};

// One worker's residual graph and breadth-first search.
class MinCut {
 public:
  explicit MinCut(const Arcs& arcs)
      : arcs_(arcs), flow_(arcs.head.size(), 0), via_(arcs.outStart.size() - 1, kNone) {}

  // Edge-disjoint paths from s to t, at most cap.
  unsigned paths(SwitchIndex s, SwitchIndex t, unsigned cap) {
    std::ranges::fill(flow_, 0);
    unsigned found = 0;
    while (found < cap && augment(s, t)) ++found;
    return found;
  }

 private:
  static constexpr std::uint32_t kNone = 0xFFFFFFFF;

  // One path in the residual graph, its arcs flipped. via_[v]: the arc it
  // was reached by (bit 31: against the arc's direction).
  bool augment(SwitchIndex s, SwitchIndex t) {
    std::ranges::fill(via_, kNone);
    queue_.assign(1, s);
    via_[s] = kNone - 1;
    for (std::size_t q = 0; q < queue_.size() && via_[t] == kNone; ++q) {
      const SwitchIndex u = queue_[q];
      for (std::uint32_t a = arcs_.outStart[u]; a < arcs_.outStart[u + 1]; ++a)
        reach(arcs_.head[a], a, flow_[a] == 0);
      for (std::uint32_t i = arcs_.inStart[u]; i < arcs_.inStart[u + 1]; ++i) {
        const std::uint32_t a = arcs_.in[i];
        reach(arcs_.tail[a], a | 0x80000000u, flow_[a] == 1);
      }
    }
    if (via_[t] == kNone) return false;
    for (SwitchIndex v = t; v != s;) {
      const std::uint32_t a = via_[v] & 0x7FFFFFFFu;
      const bool back = (via_[v] & 0x80000000u) != 0;
      flow_[a] = back ? 0 : 1;
      v = back ? arcs_.head[a] : arcs_.tail[a];
    }
    return true;
  }

  void reach(SwitchIndex v, std::uint32_t by, bool open) {
    if (!open || via_[v] != kNone) return;
    via_[v] = by;
    queue_.push_back(v);
  }

  const Arcs& arcs_;
  std::vector<std::uint8_t> flow_;
  std::vector<std::uint32_t> via_;
  std::vector<SwitchIndex> queue_;
};

}  // namespace

std::vector<std::uint64_t> multipathBound(const routing::SwitchGraph& graph, unsigned cap,
                                          unsigned threads) {
  const Arcs arcs(graph);
  const std::size_t n = graph.size();
  const unsigned workers =
      std::max<unsigned>(1, static_cast<unsigned>(std::min<std::size_t>(
                                threadCount(threads), std::max<std::size_t>(n, 1))));
  std::vector<std::vector<std::uint64_t>> counts(workers, std::vector<std::uint64_t>(cap + 1, 0));
  std::vector<MinCut> cuts(workers, MinCut(arcs));
  parallelFor(workers, n, 4, [&](std::size_t begin, std::size_t end, unsigned w) {
    for (std::size_t s = begin; s < end; ++s) {
      const std::uint64_t from = graph.caCount(static_cast<SwitchIndex>(s));
      if (from == 0) continue;
      for (SwitchIndex t = 0; t < n; ++t) {
        const std::uint64_t to = graph.caCount(t);
        if (t == s || to == 0) continue;
        counts[w][cuts[w].paths(static_cast<SwitchIndex>(s), t, cap)] += from * to;
      }
    }
  });
  for (unsigned w = 1; w < workers; ++w)
    for (unsigned k = 0; k <= cap; ++k) counts[0][k] += counts[w][k];
  return counts[0];
}

}  // namespace ibsm::analysis
