#include "routing/engines/ftree/FatTreeHintedFlows.h"

#include <ibsm/ParallelFor.h>

#include <algorithm>

#include "routing/graph/BitParallelBfs.h"

namespace ibsm::routing::ftree {
namespace {

using Load = BalancedRoutes::Load;

// Per (switch, port): the switch behind it << 2, bit 0 set when the hop
// descends in the hub order, bit 1 when it climbs (none where no cable
// leads to another switch); and the cable.
class Hops {
 public:
  Hops(const FatTreeLayout& layout, const HubOrder& hub)
      : nowhere_(static_cast<std::uint32_t>(layout.switches()) << 2) {
    for (CableId c = 0; c < layout.cables(); ++c)
      stride_ = std::max<std::size_t>(stride_, layout.port[c] + 1u);
    hop_.assign(layout.switches() * stride_, nowhere_);
    // Where no cable is, the one past the last: a load slot nothing reads.
    cable_.assign(layout.switches() * stride_, static_cast<CableId>(layout.cables()));
    for (SwitchIndex s = 0; s < layout.switches(); ++s)
      for (CableId c = layout.cableBegin(s); c < layout.cableEnd(s); ++c) {
        const SwitchIndex t = layout.to[c];
        if (t == s) continue;
        hop_[s * stride_ + layout.port[c]] = (t << 2) | (hub.isUp(s, t) ? 2u : 1u);
        cable_[s * stride_ + layout.port[c]] = c;
      }
  }
  std::uint32_t hop(SwitchIndex s, std::uint8_t p) const {
    return p < stride_ ? hop_[s * stride_ + p] : nowhere_;
  }
  // Only asked where hop() found a cable.
  CableId cable(SwitchIndex s, std::uint8_t p) const { return cable_[s * stride_ + p]; }

 private:
  std::uint32_t nowhere_;
  std::size_t stride_{0};
  std::vector<std::uint32_t> hop_;
  std::vector<CableId> cable_;
};

struct Pass {
  const DegradedTree& tree;
  const HintColumns& hint;
  const std::vector<std::uint8_t>& watch;  // per cable, plus the "no cable" one
  const Hops& hops;
  std::span<const std::uint16_t> dist;
};

struct Scratch {
  std::vector<Load> flow;             // per switch, 64 lanes
  std::vector<std::uint16_t> length;  // per switch, 64 lanes: hops to the target
  std::vector<std::uint8_t> port;     // per switch, 64 lanes: its previous entry
};

// The hops of `s` that go `way` (1: descend, 2: climb) push their lanes'
// flows; the others (`2 / way`) take their length from the switch they lead
// to. The target's entry leads to its CA, no switch: neither. `port`: s's
// 64 entries, copied there from its table by the first sweep.
template <unsigned way>
void sweep(const Pass& p, SwitchIndex s, const std::uint8_t* port, Load* const* load,
           std::span<const std::size_t> tile, HeldFlows& my, Scratch& sc) {
  Load* flow = sc.flow.data();
  std::uint16_t* length = sc.length.data();
  for (std::size_t i = 0; i < tile.size(); ++i) {
    const std::uint32_t h = p.hops.hop(s, port[i]);
    const std::size_t at = s * 64 + i, to = (h >> 2) * 64 + i;
    if (h & (3u - way)) length[at] = static_cast<std::uint16_t>(length[to] + 1);
    const Load f = (h & way) ? flow[at] : 0;
    if (f == 0) continue;
    flow[to] += f;
    const CableId c = p.hops.cable(s, port[i]);
    if (p.watch[c])
      my.watched.push_back({tile[i], c, f});
    else
      load[i][c] += f;
  }
}

// One tile: `tile` (at most 64 held column numbers, by LID).
void countTile(const Pass& p, std::span<const std::size_t> held, std::span<const std::size_t> tile,
               HeldFlows& my, Scratch& sc) {
  const FatTreeLayout& layout = p.tree.layout;
  const auto& dests = p.tree.destinations;
  const std::size_t n = layout.switches(), count = tile.size();
  std::uint16_t lid[64];
  Load* load[64];
  sc.flow.assign((n + 1) * 64, 0);
  sc.length.assign((n + 1) * 64, 0);
  for (std::size_t i = 0; i < count; ++i) {
    const Destination& d = dests[held[tile[i]]];
    lid[i] = d.lid.value;
    load[i] = my.loads[d.layer].data();
    for (const SwitchIndex leaf : layout.leaves)
      if (leaf != d.leaf) sc.flow[leaf * 64 + i] = layout.computeCas[leaf];
  }
  sc.port.resize(n * 64);
  const auto& order = p.tree.hub.order;
  // Latest first: climbing hops push (every flow into a climbing switch
  // comes from a later one), descending ones count their length. The
  // entries are read here, the tables a few switches ahead asked for.
  constexpr std::size_t kAhead = 4;
  for (std::size_t k = order.size(); k-- > 0;) {
    if (k >= kAhead) {
      const std::uint8_t* ahead = p.hint.previousTable(order[k - kAhead]);
      __builtin_prefetch(ahead + lid[0]);
      __builtin_prefetch(ahead + lid[count - 1]);
    }
    const SwitchIndex s = order[k];
    const std::uint8_t* table = p.hint.previousTable(s);
    std::uint8_t* port = sc.port.data() + s * 64;
    for (std::size_t i = 0; i < count; ++i) port[i] = table[lid[i]];
    sweep<2>(p, s, port, load, tile, my, sc);
  }
  // Earliest first: the other way round.
  for (const SwitchIndex s : order) sweep<1>(p, s, sc.port.data() + s * 64, load, tile, my, sc);
  // Lengths::count's figures.
  const std::size_t leaves = layout.leaves.size();
  for (std::size_t i = 0; i < count; ++i) {
    const Destination& d = dests[held[tile[i]]];
    const std::uint16_t* fewest = p.dist.data() + layout.leafIndex[d.leaf] * leaves;
    for (std::size_t l = 0; l < leaves; ++l) {
      const SwitchIndex source = layout.leaves[l];
      const std::uint64_t sources = layout.computeCas[source] - (source == d.leaf ? 1 : 0);
      my.tally.caRoutes += sources;
      if (source != d.leaf && sources != 0 && sc.length[source * 64 + i] > fewest[l])
        my.tally.longer += sources;
    }
    my.tally.keptFromPrevious += n;
  }
}

}  // namespace

std::vector<std::uint16_t> leafDistances(const FatTreeLayout& layout,
                                         const std::vector<bool>& wanted, unsigned threads) {
  const std::size_t leaves = layout.leaves.size();
  std::vector<SwitchIndex> from;
  for (std::size_t l = 0; l < leaves; ++l)
    if (wanted[l]) from.push_back(layout.leaves[l]);
  std::vector<std::uint16_t> dist(leaves * leaves, kUnreachable);
  const auto neighbours = [&](SwitchIndex s, auto&& f) {
    for (CableId c = layout.cableBegin(s); c < layout.cableEnd(s); ++c) f(layout.to[c]);
  };
  const unsigned workers = threadCount(threads);
  std::vector<BitParallelBfs<1>> bfs(workers, BitParallelBfs<1>(layout.switches()));
  parallelFor(workers, (from.size() + 63) / 64, 1, [&](std::size_t b, std::size_t e, unsigned w) {
    for (; b < e; ++b) {
      const auto batch =
          std::span(from).subspan(b * 64, std::min<std::size_t>(64, from.size() - b * 64));
      bfs[w].run(batch, neighbours, [&](SwitchIndex s, std::uint16_t level, const auto& bits) {
        if (layout.leafIndex[s] == kNotLeaf) return;
        BitParallelBfs<1>::forEachBit(bits, [&](std::size_t k) {
          dist[layout.leafIndex[batch[k]] * leaves + layout.leafIndex[s]] = level;
        });
      });
    }
  });
  return dist;
}

void countLengths(const FatTreeLayout& layout, const Destination& d,
                  const std::vector<CableId>& column, const Legaliser& legaliser,
                  std::span<const std::uint16_t> dist, Tally& tally) {
  const std::size_t leaves = layout.leaves.size();
  const std::uint16_t* fewest = dist.data() + layout.leafIndex[d.leaf] * leaves;
  for (std::size_t l = 0; l < leaves; ++l) {
    const SwitchIndex leaf = layout.leaves[l];
    const std::uint64_t sources = layout.computeCas[leaf] - (leaf == d.leaf ? 1 : 0);
    tally.caRoutes += sources;
    if (column[leaf] != kNoCable && legaliser.hops(leaf) > fewest[l]) tally.longer += sources;
  }
}

std::vector<HeldFlows> countHeldColumns(const DegradedTree& tree, const HintColumns& hint,
                                        const std::vector<bool>& watch,
                                        std::span<const std::size_t> held, unsigned threads,
                                        std::span<const std::uint16_t> dist) {
  const FatTreeLayout& layout = tree.layout;
  const auto& dests = tree.destinations;
  std::size_t layers = 1;
  for (const Destination& d : dests) layers = std::max<std::size_t>(layers, d.layer + 1u);
  const unsigned workers = threadCount(threads);
  std::vector<HeldFlows> out(workers);
  for (HeldFlows& w : out) w.loads.assign(layers, std::vector<Load>(layout.cables(), 0));
  std::vector<std::uint8_t> watched(layout.cables() + 1, 0);
  for (CableId c = 0; c < layout.cables(); ++c) watched[c] = watch[c];
  if (held.empty()) return out;
  std::vector<std::uint16_t> found;
  if (dist.empty()) {
    std::vector<bool> wanted(layout.leaves.size(), false);
    for (const std::size_t i : held) wanted[layout.leafIndex[dests[i].leaf]] = true;
    found = leafDistances(layout, wanted, threads);
    dist = found;
  }
  const Hops hops(layout, tree.hub);
  // By LID: a tile's entries in a table lie in one or two cache lines.
  std::vector<std::size_t> byLid(held.size());
  for (std::size_t k = 0; k < held.size(); ++k) byLid[k] = k;
  std::ranges::sort(byLid, {}, [&](std::size_t k) { return dests[held[k]].lid.value; });
  const Pass pass{tree, hint, watched, hops, dist};
  std::vector<Scratch> scratch(workers);
  const std::size_t tiles = (byLid.size() + 63) / 64;
  parallelFor(workers, tiles, 1, [&](std::size_t b, std::size_t e, unsigned w) {
    for (; b < e; ++b)
      countTile(pass, held,
                std::span(byLid).subspan(b * 64, std::min<std::size_t>(64, byLid.size() - b * 64)),
                out[w], scratch[w]);
  });
  return out;
}

}  // namespace ibsm::routing::ftree
