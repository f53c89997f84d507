#include "routing/engines/sssp/SsspRoutes.h"

#include <ibsm/ParallelFor.h>

#include <algorithm>
#include <limits>
#include <numeric>

#include "routing/engines/ftree/FatTreeEndpoints.h"

namespace ibsm::routing::sssp {

Channels::Channels(const SwitchGraph& graph) {
  const std::size_t n = graph.size();
  for (SwitchIndex s = 0; s < n; ++s)
    graph.forEachCable(s, [&](SwitchIndex, const Cable& c) {
      stride = std::max<std::size_t>(stride, c.port + 1u);
    });
  byPort.assign(n * stride, kNoChannel);
  start.reserve(n + 1);
  for (SwitchIndex s = 0; s < n; ++s) {
    start.push_back(static_cast<std::uint32_t>(target.size()));
    graph.forEachCable(s, [&](SwitchIndex t, const Cable& c) {
      byPort[s * stride + c.port] = static_cast<std::uint32_t>(target.size());
      target.push_back(t);
      port.push_back(c.port);
    });
  }
  start.push_back(static_cast<std::uint32_t>(target.size()));
}

namespace {

// One LID's routes: per switch the channel it forwards on, the order in
// which switches were decided (nearest the destination first).
class LidRouter {
 public:
  LidRouter(const SwitchGraph& graph, const Channels& channels, std::vector<std::uint64_t>& load,
            std::vector<std::uint64_t>& hostLoad, std::vector<std::uint64_t> hosts,
            double hostWeight)
      : graph_(graph),
        ch_(channels),
        load_(load),
        hostLoad_(hostLoad),
        hosts_(std::move(hosts)),
        hostWeight_(hostWeight),
        cost_(graph.size()),
        next_(graph.size()),
        flow_(graph.size()),
        hostFlow_(graph.size()) {}

  // Orders the switches by their distance to d (`dist`, switch hops).
  // `toHost`: the LID is a host's, not an aggregation node's.
  void toward(SwitchIndex d, const std::uint16_t* dist, bool toHost) {
    d_ = d;
    toHost_ = toHost;
    dist_ = dist;
    order_.clear();
    for (SwitchIndex s = 0; s < graph_.size(); ++s)
      if (dist[s] != kUnreachable) order_.push_back(s);
    std::ranges::stable_sort(order_, {}, [&](SwitchIndex s) { return dist[s]; });
  }
  std::size_t reached() const { return order_.size(); }

  // Every switch takes the channel one hop nearer whose path onward has the
  // least sum of its channels' loads cubed (what one more route adds to the
  // sum of the loads' fourth powers, near enough: a busy channel costs far
  // more than two half as busy), the host-to-host loads cubed added with
  // their weight; ties to the less loaded channel, then the lower port.
  void choose() {
    cost_[d_] = 0;
    next_[d_] = kNoChannel;
    for (const SwitchIndex s : order_) {
      if (s == d_) continue;
      double best = std::numeric_limits<double>::infinity();
      std::uint32_t pick = kNoChannel;
      for (std::uint32_t c = ch_.start[s]; c < ch_.start[s + 1]; ++c) {
        const SwitchIndex t = ch_.target[c];
        if (dist_[t] + 1 != dist_[s]) continue;
        const double l = static_cast<double>(load_[c]);
        const double h = static_cast<double>(hostLoad_[c]);
        const double v = cost_[t] + l * l * l + hostWeight_ * h * h * h;
        if (v < best || (v == best && pick != kNoChannel && load_[c] < load_[pick])) {
          best = v;
          pick = c;
        }
      }
      next_[s] = pick;
      cost_[s] = best;
    }
  }

  // Reads the routes toward `lid` back from the tables.
  void read(const SwitchGraph& graph, const std::vector<Lft>& lfts, Lid lid) {
    for (const SwitchIndex s : order_)
      next_[s] = s == d_ ? kNoChannel : ch_.at(s, lfts[graph.nodeId(s)].at(lid));
  }

  // Adds (sign +1) or takes away (-1) the CA-to-CA routes toward one CA LID.
  void addLoad(int sign) {
    for (const SwitchIndex s : order_) {
      flow_[s] = graph_.caCount(s);
      hostFlow_[s] = toHost_ ? hosts_[s] : 0;
    }
    const auto add = [sign](std::uint64_t& to, std::uint64_t v) {
      to = sign > 0 ? to + v : to - v;
    };
    for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
      const std::uint32_t c = next_[*it];
      if (c == kNoChannel) continue;
      add(load_[c], flow_[*it]);
      add(hostLoad_[c], hostFlow_[*it]);
      flow_[ch_.target[c]] += flow_[*it];
      hostFlow_[ch_.target[c]] += hostFlow_[*it];
    }
  }

  void write(std::vector<Lft>& lfts, Lid lid) const {
    for (const SwitchIndex s : order_)
      if (s != d_) lfts[graph_.nodeId(s)].port[lid.value] = ch_.port[next_[s]];
  }

 private:
  const SwitchGraph& graph_;
  const Channels& ch_;
  std::vector<std::uint64_t>& load_;
  std::vector<std::uint64_t>& hostLoad_;
  const std::vector<std::uint64_t> hosts_;  // per switch, its CA ports that are no aggregation node
  const double hostWeight_;
  SwitchIndex d_{kNoSwitch};
  bool toHost_{true};
  const std::uint16_t* dist_{nullptr};
  std::vector<SwitchIndex> order_;
  std::vector<double> cost_;
  std::vector<std::uint32_t> next_;
  std::vector<std::uint64_t> flow_;
  std::vector<std::uint64_t> hostFlow_;
};

// The CA LIDs of aggregation nodes (true) and per switch its CA ports that
// are not one.
std::vector<bool> aggregationLids(const Fabric& fabric, const SwitchGraph& graph, std::size_t lids,
                                  std::vector<std::uint64_t>& hosts) {
  const ftree::CaRoles roles(fabric, graph);
  std::vector<bool> out(lids, false);
  hosts.assign(graph.size(), 0);
  for (SwitchIndex s = 0; s < graph.size(); ++s) {
    hosts[s] = roles.hosts(s);
    const auto cas = graph.endpoints(s).subspan(1);
    for (std::size_t i = 0; i < cas.size(); ++i)
      if (roles.of(s)[i] == ftree::CaRole::Aggregation)
        for (std::size_t k = 0; k < (std::size_t{1} << cas[i].lmc); ++k)
          if (cas[i].base.value + k < lids) out[cas[i].base.value + k] = true;
  }
  return out;
}

// The LIDs in the order they are routed: by LID, or by LID within rounds
// that take one LID of each destination switch in turn (so that no switch's
// LIDs all come first, on the emptiest links).
std::vector<std::size_t> routingOrder(const std::vector<LidTarget>& targets, std::size_t switches,
                                      bool roundRobin) {
  std::vector<std::size_t> order(targets.size() - 1);
  std::iota(order.begin(), order.end(), std::size_t{1});
  if (!roundRobin) return order;
  std::vector<std::size_t> rank(targets.size(), 0), seen(switches + 1, 0);
  for (std::size_t l = 1; l < targets.size(); ++l) {
    const std::size_t sw = targets[l].sw == kNoSwitch ? switches : targets[l].sw;
    rank[l] = seen[sw]++ * (switches + 1) + sw;
  }
  std::ranges::stable_sort(order, {}, [&](std::size_t l) { return rank[l]; });
  return order;
}

std::uint64_t busiest(const std::vector<std::uint64_t>& load) {
  return load.empty() ? 0 : *std::ranges::max_element(load);
}

// Switch hops between every pair (cables run both ways: hops from d = to d).
std::vector<std::uint16_t> switchHops(const SwitchGraph& graph, unsigned threads) {
  const std::size_t n = graph.size();
  std::vector<std::uint16_t> dist(n * n);
  parallelFor(threads, n, 8, [&](std::size_t begin, std::size_t end, unsigned) {
    for (std::size_t d = begin; d < end; ++d)
      std::ranges::copy(graph.hopsFrom(static_cast<SwitchIndex>(d)), dist.begin() + d * n);
  });
  return dist;
}

}  // namespace

SsspTables routeBalanced(const Fabric& fabric, const SwitchGraph& graph, const Channels& channels,
                         unsigned passes, unsigned threads, const Balance& balance) {
  const std::size_t n = graph.size();
  SsspTables out;
  out.targets = lidTargets(fabric, graph);
  out.load.assign(channels.size(), 0);
  out.hostLoad.assign(channels.size(), 0);
  out.lfts.resize(fabric.size());
  for (SwitchIndex s = 0; s < n; ++s)
    out.lfts[graph.nodeId(s)].port.assign(out.targets.size(), kNoRoute);

  const auto dist = switchHops(graph, threads);

  std::vector<std::uint64_t> hosts;
  const auto aggregation = aggregationLids(fabric, graph, out.targets.size(), hosts);
  LidRouter router(graph, channels, out.load, out.hostLoad, std::move(hosts), balance.hostWeight);
  std::vector<Lft> bestLfts;
  std::vector<std::uint64_t> bestLoad, bestHostLoad;
  const auto order = routingOrder(out.targets, n, balance.roundRobin);
  for (unsigned pass = 0; pass < std::max(passes, 1u); ++pass) {
    for (const std::size_t l : order) {
      const LidTarget& t = out.targets[l];
      const Lid lid{static_cast<std::uint16_t>(l)};
      if (t.sw == kNoSwitch) {
        if (pass == 0 && t.owned) {
          out.unroutedEntries += n;
          ++out.unreachableLids;
        }
        continue;
      }
      const bool ca = t.kind == LidKind::Ca;
      if (pass > 0 && !ca) continue;
      router.toward(t.sw, dist.data() + std::size_t{t.sw} * n, !aggregation[l]);
      if (pass > 0) {
        router.read(graph, out.lfts, lid);
        router.addLoad(-1);
      } else {
        out.lfts[graph.nodeId(t.sw)].port[l] = t.switchPort;
        if (router.reached() < n) {
          out.unroutedEntries += n - router.reached();
          ++out.unreachableLids;
        }
      }
      router.choose();
      if (ca) router.addLoad(+1);
      router.write(out.lfts, lid);
    }
    if (bestLoad.empty() || busiest(out.load) < busiest(bestLoad)) {
      bestLfts = out.lfts;
      bestLoad = out.load;
      bestHostLoad = out.hostLoad;
    }
  }
  out.lfts = std::move(bestLfts);
  out.load = std::move(bestLoad);
  out.hostLoad = std::move(bestHostLoad);
  return out;
}

std::uint64_t busiestChannel(const SwitchGraph& graph, const Channels& channels,
                             const std::vector<Lft>& lfts) {
  std::vector<std::uint64_t> load(channels.size(), 0);
  const std::size_t n = graph.size();
  for (SwitchIndex d = 0; d < n; ++d)
    for (const Endpoint& e : graph.endpoints(d)) {
      if (e.switchPort == 0 || e.base.value == 0) continue;
      for (SwitchIndex s = 0; s < n; ++s) {
        const auto weight = graph.caCount(s);
        SwitchIndex at = s;
        for (std::size_t hops = 0; weight > 0 && at != d && hops <= n; ++hops) {
          const std::uint32_t c = channels.at(at, lfts[graph.nodeId(at)].at(e.base));
          if (c == kNoChannel) break;
          load[c] += weight;
          at = channels.target[c];
        }
      }
    }
  return load.empty() ? 0 : *std::ranges::max_element(load);
}

}  // namespace ibsm::routing::sssp
