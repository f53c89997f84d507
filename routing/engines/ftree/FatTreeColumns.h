// The pieces of the ftree engine that fill tables column by column: the
// shortest-path search for switch targets (now the closed form's reference),
// the tally of what was routed how, the writer that gathers columns into
// tiles before writing the tables, and the count of routes longer than the
// fewest hops. Each owns its state, so
// every thread of the engine has its own.
#pragma once

#include <ibsm/Routing.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "routing/engines/ftree/FatTreeDestinations.h"
#include "routing/engines/ftree/FatTreeLayout.h"
#include "routing/engines/ftree/FatTreeLegalise.h"
#include "routing/engines/ftree/FatTreeReach.h"
#include "routing/graph/BitParallelBfs.h"
#include "routing/graph/SwitchGraph.h"

namespace ibsm::routing::ftree {

// The search ftree routed switch LIDs with before their closed form
// (FatTreeSwitchColumns.h), kept as the reference its test measures the
// closed form against: shortest legal path by a pass over every up cable per
// target, least used cable among equals (counters of their own).
class ShortestRoutes {
 public:
  // `turn`: where each switch starts looking among equally used cables, so
  // that routes started afresh (each block of targets the engine routes
  // with counters of its own) do not all begin on the first cable.
  ShortestRoutes(const FatTreeLayout& layout, const FatTreeReach& reach, std::size_t turn)
      : layout_(layout), reach_(reach), used_(layout.cables(), 0), turn_(turn) {}

  void column(SwitchIndex target, std::vector<CableId>& next) {
    legalDistances(layout_, reach_, target, dist_);
    const std::uint64_t* above = reach_.above(target);
    for (SwitchIndex s = 0; s < layout_.switches(); ++s) {
      next[s] = s == target ? kDeliver : kNoCable;
      if (s == target || dist_[s] == kFar) continue;
      const auto cables = BitRows::test(above, s) ? layout_.downCables(s) : layout_.upCables(s);
      // From cable turn_ mod size on, wrapping once.
      const std::size_t n = cables.size();
      for (std::size_t k = 0, i = n == 0 ? 0 : turn_ % n; k < n; ++k, i = i + 1 == n ? 0 : i + 1) {
        const CableId c = cables[i];
        if (dist_[layout_.to[c]] + 1 != dist_[s]) continue;
        if (next[s] == kNoCable || used_[c] < used_[next[s]]) next[s] = c;
      }
      if (next[s] != kNoCable) ++used_[next[s]];
    }
  }

 private:
  const FatTreeLayout& layout_;
  const FatTreeReach& reach_;
  std::vector<std::uint32_t> used_;
  std::size_t turn_;
  std::vector<std::uint16_t> dist_;
};

struct Tally {
  std::size_t hubRoutedCa{0};         // (switch, CA LID) entries the hub order routed
  std::size_t hubRoutedSwitch{0};     // (switch, switch LID) entries
  std::size_t hubRoutedOther{0};      // (switch, aggregation node or upper CA LID) entries
  std::uint64_t keptFromPrevious{0};  // entries the hint's still-valid chains kept
  std::size_t unrouted{0};
  std::uint64_t caRoutes{0};     // CA->CA (source port, destination LID) routes
  std::uint64_t longer{0};       // of those, longer than the fewest switch hops
  std::size_t byDmodk{0};        // CA LIDs of a degraded tree given D-mod-K's column
  std::size_t shortSwitches{0};  // switches of that tree that lost a cable

  // What routing in blocks (each its own tally) adds up to.
  Tally& operator+=(const Tally& o) {
    hubRoutedCa += o.hubRoutedCa;
    hubRoutedSwitch += o.hubRoutedSwitch;
    hubRoutedOther += o.hubRoutedOther;
    keptFromPrevious += o.keptFromPrevious;
    unrouted += o.unrouted;
    caRoutes += o.caRoutes;
    longer += o.longer;
    byDmodk += o.byDmodk;
    return *this;
  }
};

// Writes one destination's next hops into every switch's table. Columns are
// gathered 256 at a time and written out switch by switch: one write per
// switch per LID straight into 1620 tables of 13 KB would miss the cache on
// nearly every byte.
class TableWriter {
 public:
  TableWriter(const SwitchGraph& graph, const FatTreeLayout& layout, RoutingResult& result)
      : layout_(layout), rows_(layout.switches()), tile_(kTile * layout.switches()) {
    for (SwitchIndex s = 0; s < layout.switches(); ++s)
      rows_[s] = result.lfts[graph.nodeId(s)].port.data();
  }
  void write(Lid lid, std::uint8_t deliverPort, const std::vector<CableId>& next, Tally& tally) {
    std::uint8_t* out = column(lid);
    for (SwitchIndex s = 0; s < layout_.switches(); ++s) {
      const CableId c = next[s];
      out[s] = c == kDeliver ? deliverPort : c == kNoCable ? kNoRoute : layout_.port[c];
      tally.unrouted += c == kNoCable;
    }
  }

  // Every switch's entry toward each of `lids` (ascending) copied from
  // `from(s)`, its table of the same LIDs: columns that are the answer as
  // they stand. Runs of consecutive LIDs are copied whole.
  template <typename From>
  void copy(std::span<const std::uint16_t> lids, From&& from, SwitchIndex begin,
            SwitchIndex end) const {
    for (SwitchIndex s = begin; s < end; ++s) {
      const std::uint8_t* in = from(s);
      for (std::size_t k = 0, e = 0; k < lids.size(); k = e) {
        for (e = k + 1; e < lids.size() && lids[e] == lids[e - 1] + 1;) ++e;
        std::memcpy(rows_[s] + lids[k], in + lids[k], e - k);
      }
    }
  }

  // Room for the out port of every switch toward `lid`, to be filled now.
  std::uint8_t* column(Lid lid) {
    if (lids_.size() == kTile) flush();
    lids_.push_back(lid.value);
    return tile_.data() + (lids_.size() - 1) * layout_.switches();
  }

  // Eight switches at a time, each getting the whole tile's LIDs in a row
  // (a table's page stays in the TLB while it is written), eight LIDs by
  // eight switches transposed in registers, so that a run of eight
  // consecutive LIDs goes into a table as one store: byte stores that
  // missed the cache and the TLB were most of the cost.
  void flush() {
    const std::size_t n = layout_.switches(), m = lids_.size(), whole = m - m % 8;
    const std::uint8_t* tile = tile_.data();
    std::uint8_t* const* rows = rows_.data();
    const std::uint16_t* lids = lids_.data();
    runs_.resize(whole / 8);
    for (std::size_t j = 0; j < whole; j += 8) {
      bool run = true;  // eight consecutive LIDs, in order
      for (std::size_t r = 1; r < 8; ++r) run = run && lids[j + r] == lids[j] + r;
      runs_[j / 8] = run;
    }
    SwitchIndex s = 0;
    for (; s + 8 <= n; s += 8) {
      for (std::size_t j = 0; j < whole; j += 8) {
        std::uint64_t w[8];
        for (std::size_t r = 0; r < 8; ++r) std::memcpy(&w[r], tile + (j + r) * n + s, 8);
        transpose8x8(w);
        for (std::size_t c = 0; c < 8; ++c) {
          if (runs_[j / 8]) {
            std::memcpy(rows[s + c] + lids[j], &w[c], 8);
          } else {
            for (std::size_t r = 0; r < 8; ++r)
              rows[s + c][lids[j + r]] = static_cast<std::uint8_t>(w[c] >> (8 * r));
          }
        }
      }
      for (std::size_t c = 0; c < 8; ++c)
        for (std::size_t k = whole; k < m; ++k) rows[s + c][lids[k]] = tile[k * n + s + c];
    }
    for (; s < n; ++s)
      for (std::size_t k = 0; k < m; ++k) rows[s][lids[k]] = tile[k * n + s];
    lids_.clear();
  }

 private:
  // Word r's byte c <-> word c's byte r (little-endian byte order).
  static void transpose8x8(std::uint64_t (&w)[8]) {
    const auto swap = [&](std::size_t a, std::size_t b, unsigned bytes, std::uint64_t mask) {
      const std::uint64_t t = ((w[a] >> (8 * bytes)) ^ w[b]) & mask;
      w[b] ^= t;
      w[a] ^= t << (8 * bytes);
    };
    for (std::size_t r = 0; r < 4; ++r) swap(r, r + 4, 4, 0x00000000FFFFFFFFull);
    for (const std::size_t r : {0, 1, 4, 5}) swap(r, r + 2, 2, 0x0000FFFF0000FFFFull);
    for (const std::size_t r : {0, 2, 4, 6}) swap(r, r + 1, 1, 0x00FF00FF00FF00FFull);
  }

  static constexpr std::size_t kTile = 256;
  const FatTreeLayout& layout_;
  std::vector<std::uint8_t*> rows_;  // per switch: its table
  std::vector<std::uint8_t> tile_;   // kTile columns of one port per switch
  std::vector<std::uint16_t> lids_;
  std::vector<std::uint8_t> runs_;  // per eight LIDs of the tile: consecutive
};

// The CA->CA routes toward one destination and how many of them are
// longer than the fewest switch hops, once its column is legalised.
class Lengths {
 public:
  explicit Lengths(const FatTreeLayout& layout) : layout_(layout) {}
  void count(const Destination& d, const std::vector<CableId>& next, const Legaliser& legaliser,
             Tally& tally) {
    if (shortestFrom_ != d.leaf) hopsFrom(d.leaf);
    for (const SwitchIndex leaf : layout_.leaves) {
      const std::uint64_t sources = layout_.computeCas[leaf] - (leaf == d.leaf ? 1 : 0);
      tally.caRoutes += sources;
      if (next[leaf] != kNoCable && legaliser.hops(leaf) > shortest_[leaf]) tally.longer += sources;
    }
  }

 private:
  // Breadth first over every cable, into buffers kept from leaf to leaf
  // (kFar where none).
  static_assert(kFar == kUnreachable);
  void hopsFrom(SwitchIndex from) {
    shortestFrom_ = from;
    const auto neighbours = [this](SwitchIndex s, auto&& f) {
      for (CableId c = layout_.cableBegin(s); c < layout_.cableEnd(s); ++c) f(layout_.to[c]);
    };
    hopsFromOne(layout_.switches(), from, neighbours, shortest_, queue_);
  }

  const FatTreeLayout& layout_;
  SwitchIndex shortestFrom_{kNoSwitch};
  std::vector<std::uint16_t> shortest_;
  std::vector<SwitchIndex> queue_;
};

}  // namespace ibsm::routing::ftree
