#include "routing/engines/sssp/SsspRefine.h"

#include <algorithm>

namespace ibsm::routing::sssp {
namespace {

using ftree::CaRole;
using Flow = std::array<std::int64_t, 4>;  // all, compute, upper, aggregation

class Refiner {
 public:
  Refiner(const Fabric& fabric, const SwitchGraph& graph, const Channels& channels,
          SsspTables& tables)
      : graph_(graph),
        ch_(channels),
        t_(tables),
        load_(channels.size()),
        cost_(channels.size()),
        next_(graph.size()),
        flow_(graph.size()) {
    roles_ = lidRoles(fabric, graph, tables.targets.size(), hosts_);
    for (std::size_t c = 0; c < ch_.size(); ++c) {
      const auto all = static_cast<std::int64_t>(t_.load[c]);
      const auto host = static_cast<std::int64_t>(t_.hostLoad[c]);
      const auto comp = static_cast<std::int64_t>(t_.computeLoad[c]);
      load_[c] = {all, comp, host - comp, all - host};
    }
    const std::size_t n = graph.size();
    dist_.resize(n * n);
    for (SwitchIndex d = 0; d < n; ++d)
      std::ranges::copy(graph.hopsFrom(d), dist_.begin() + std::size_t{d} * n);
  }

  // One sweep over every CA LID; the entries moved.
  std::size_t sweep() {
    for (std::size_t k = 0; k < 4; ++k) {
      std::int64_t most = 0;
      for (const Flow& l : load_) most = std::max(most, l[k]);
      inverse_[k] = most > 0 ? 1.0 / static_cast<double>(most) : 0.0;
    }
    for (std::size_t c = 0; c < ch_.size(); ++c) cost_[c] = cost(load_[c]);
    std::size_t moves = 0;
    for (std::size_t l = 1; l < t_.targets.size(); ++l)
      if (t_.targets[l].sw != kNoSwitch && t_.targets[l].kind == LidKind::Ca) moves += refineLid(l);
    return moves;
  }

  void write() const {
    for (std::size_t c = 0; c < ch_.size(); ++c) {
      t_.load[c] = static_cast<std::uint64_t>(load_[c][0]);
      t_.computeLoad[c] = static_cast<std::uint64_t>(load_[c][1]);
      t_.hostLoad[c] = static_cast<std::uint64_t>(load_[c][1] + load_[c][2]);
    }
  }

 private:
  // Each class's load over its busiest at the sweep's start, to the 8th power.
  double cost(const Flow& l) const {
    double v = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      const double r = static_cast<double>(l[k]) * inverse_[k];
      const double r2 = r * r, r4 = r2 * r2;
      v += r4 * r4;
    }
    return v;
  }
  static Flow plus(Flow a, const Flow& b, std::int64_t sign) {
    for (std::size_t k = 0; k < 4; ++k) a[k] += sign * b[k];
    return a;
  }

  // The CA-to-CA routes a switch's own CAs send toward a LID of `role`.
  Flow own(SwitchIndex s, CaRole role) const {
    const auto ca = static_cast<std::int64_t>(graph_.caCount(s));
    const auto comp = static_cast<std::int64_t>(hosts_.compute[s]);
    const auto up = static_cast<std::int64_t>(hosts_.upper[s]);
    if (role == CaRole::Aggregation) return {ca, 0, 0, ca};
    if (role == CaRole::Upper) return {ca, 0, comp + up, ca - comp - up};
    return {ca, comp, up, ca - comp - up};
  }

  // What moving flow v from channel a's path to channel b's (both from one
  // switch, fewest hops) changes the cost by, up to where the paths meet;
  // `apply`: moves it.
  double move(std::uint32_t a, std::uint32_t b, const Flow& v, bool apply) {
    double delta = 0;
    for (;;) {
      const Flow la = plus(load_[a], v, -1), lb = plus(load_[b], v, +1);
      if (apply) {
        load_[a] = la;
        load_[b] = lb;
        cost_[a] = cost(la);
        cost_[b] = cost(lb);
      } else {
        delta += cost(la) - cost_[a] + cost(lb) - cost_[b];
      }
      const SwitchIndex pa = ch_.target[a], pb = ch_.target[b];
      if (pa == pb) return delta;
      if (apply) {
        flow_[pa] = plus(flow_[pa], v, -1);
        flow_[pb] = plus(flow_[pb], v, +1);
      }
      a = next_[pa];
      b = next_[pb];
    }
  }

  std::size_t refineLid(std::size_t l) {
    const LidTarget& target = t_.targets[l];
    const SwitchIndex d = target.sw;
    const std::size_t n = graph_.size();
    const std::uint16_t* dist = dist_.data() + std::size_t{d} * n;
    const Lid lid{static_cast<std::uint16_t>(l)};
    order_.clear();
    for (SwitchIndex s = 0; s < n; ++s)
      if (dist[s] != kUnreachable) order_.push_back(s);
    std::ranges::stable_sort(order_, {}, [&](SwitchIndex s) { return dist[s]; });
    for (const SwitchIndex s : order_) {
      next_[s] = s == d ? kNoChannel : ch_.at(s, t_.lfts[graph_.nodeId(s)].at(lid));
      flow_[s] = own(s, roles_[l]);
    }
    for (auto it = order_.rbegin(); it != order_.rend(); ++it)
      if (next_[*it] != kNoChannel) {
        const SwitchIndex to = ch_.target[next_[*it]];
        flow_[to] = plus(flow_[to], flow_[*it], +1);
      }
    std::size_t moves = 0;
    for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
      const SwitchIndex s = *it;
      if (s == d || next_[s] == kNoChannel || flow_[s][0] == 0) continue;
      double best = -1e-9;
      std::uint32_t pick = kNoChannel;
      for (std::uint32_t c = ch_.start[s]; c < ch_.start[s + 1]; ++c) {
        if (c == next_[s] || dist[ch_.target[c]] + 1 != dist[s]) continue;
        const double delta = move(next_[s], c, flow_[s], false);
        if (delta < best) {
          best = delta;
          pick = c;
        }
      }
      if (pick == kNoChannel) continue;
      move(next_[s], pick, flow_[s], true);
      next_[s] = pick;
      t_.lfts[graph_.nodeId(s)].port[l] = ch_.port[pick];
      ++moves;
    }
    return moves;
  }

  const SwitchGraph& graph_;
  const Channels& ch_;
  SsspTables& t_;
  HostCounts hosts_;
  std::vector<CaRole> roles_;
  std::vector<Flow> load_;
  std::vector<double> cost_;  // per channel, cost(load_)
  std::vector<std::uint16_t> dist_;
  std::array<double, 4> inverse_{};
  std::vector<SwitchIndex> order_;
  std::vector<std::uint32_t> next_;
  std::vector<Flow> flow_;
};

}  // namespace

std::array<std::uint64_t, 4> classBusiest(const SsspTables& t) {
  std::array<std::uint64_t, 4> out{};
  for (std::size_t c = 0; c < t.load.size(); ++c) {
    out[0] = std::max(out[0], t.load[c]);
    out[1] = std::max(out[1], t.computeLoad[c]);
    out[2] = std::max(out[2], t.hostLoad[c] - t.computeLoad[c]);
    out[3] = std::max(out[3], t.load[c] - t.hostLoad[c]);
  }
  return out;
}

RefineStats refineByClass(const Fabric& fabric, const SwitchGraph& graph, const Channels& channels,
                          SsspTables& tables, unsigned sweeps) {
  Refiner refiner(fabric, graph, channels, tables);
  RefineStats stats;
  while (stats.sweeps < sweeps) {
    ++stats.sweeps;
    const std::size_t moved = refiner.sweep();
    stats.moves += moved;
    if (moved == 0) break;
  }
  refiner.write();
  return stats;
}

}  // namespace ibsm::routing::sssp
