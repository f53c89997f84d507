#include "routing/analysis/ForwardingView.h"

#include <fmt/format.h>
#include <ibsm/ParallelFor.h>

#include <algorithm>
#include <tuple>

#include "routing/multicast/McSl.h"

namespace ibsm::analysis {
namespace {

// SL2VL's VL 15 (routing::kDropVl) drops the packet: such a hop holds no buffer.
using routing::kDropVl;

}  // namespace

ForwardingView::ForwardingView(const Fabric& fabric, const RoutingResult& result, unsigned threads,
                               const std::vector<bool>* only)
    : fabric_(fabric), graph_(fabric) {
  rows_.resize(graph_.size());
  indexPorts(result.apart);
  indexDestinations(result.apart);
  transposeTables(result, threads, only);
  indexSl2Vl(result);
  pairSls_ = result.pairSls;
  if (!std::ranges::is_sorted(pairSls_)) {
    sortedPairSls_.assign(pairSls_.begin(), pairSls_.end());
    std::ranges::sort(sortedPairSls_);
    pairSls_ = sortedPairSls_;
  }
}

ForwardingView::Entry ForwardingView::entryOf(PortRef source) const {
  const auto it = std::ranges::lower_bound(entries_, source, {}, &std::pair<PortRef, Entry>::first);
  return it != entries_.end() && it->first == source ? it->second : Entry{};
}

void ForwardingView::indexPorts(const std::vector<PortRef>& apart) {
  const std::size_t n = graph_.size();
  channelStart_.resize(n + 1, 0);
  caSources_.resize(n, 0);
  apartSources_.resize(n, 0);
  switchSource_.resize(n, 0);
  for (SwitchIndex s = 0; s < n; ++s) {
    const Node& sw = fabric_.node(graph_.nodeId(s));
    rows_[s].numPorts = sw.numPorts();
    rows_[s].firstTarget = static_cast<std::uint32_t>(targets_.size());
    channelStart_[s] = static_cast<ChannelId>(channels_.size());
    targets_.push_back(PortTarget{PortTarget::Kind::Self});
    for (std::size_t p = 1; p < sw.ports.size(); ++p) {
      const auto& remote = sw.ports[p].remote;
      // A cable back into the switch leads nowhere: planSubnet() routes
      // without it, and its two idle channels are no inter-switch links.
      if (!remote || remote->node == graph_.nodeId(s)) {
        targets_.push_back(PortTarget{});
      } else if (fabric_.node(remote->node).isSwitch()) {
        const auto c = static_cast<ChannelId>(channels_.size());
        const SwitchIndex to = graph_.index(remote->node);
        channels_.push_back(Channel{s, to, static_cast<std::uint8_t>(p), remote->port});
        targets_.push_back(PortTarget{PortTarget::Kind::Switch, to, c});
      } else {
        targets_.push_back(PortTarget{PortTarget::Kind::Endpoint});
      }
    }
    const auto endpoints = graph_.endpoints(s);
    switchSource_[s] = endpoints[0].base.value != 0;
    entries_.emplace_back(PortRef{graph_.nodeId(s), 0}, Entry{s, 0});
    for (const auto& e : endpoints.subspan(1)) {
      if (e.base.value == 0) continue;
      entries_.emplace_back(e.owner, Entry{s, e.switchPort});
      ++caSources_[s];
      if (std::ranges::binary_search(apart, e.owner)) ++apartSources_[s];
    }
    apartPorts_ += apartSources_[s];
    caPorts_ += caSources_[s];
  }
  channelStart_[n] = static_cast<ChannelId>(channels_.size());
  std::ranges::sort(entries_, {}, &std::pair<PortRef, Entry>::first);
  indexSteps();
}

void ForwardingView::indexSteps() {
  steps_.resize(targets_.size(), kStepMissing);
  for (SwitchIndex s = 0; s < graph_.size(); ++s) {
    rows_[s].firstChannel = channelStart_[s];
    for (std::size_t p = 0; p <= rows_[s].numPorts; ++p) {
      const PortTarget& t = targets_[rows_[s].firstTarget + p];
      std::uint16_t& step = steps_[rows_[s].firstTarget + p];
      if (t.kind == PortTarget::Kind::Switch)
        step = static_cast<std::uint16_t>(t.channel - channelStart_[s]);
      else if (t.kind != PortTarget::Kind::Missing)
        step = kStepWrong;
    }
  }
  channelTo_.reserve(channels_.size());
  for (const Channel& c : channels_) channelTo_.push_back(c.to);
}

void ForwardingView::indexDestinations(const std::vector<PortRef>& apart) {
  for (SwitchIndex s = 0; s < graph_.size(); ++s) {
    for (const auto& e : graph_.endpoints(s)) {
      if (e.base.value == 0) continue;
      const std::uint32_t count = 1u << e.lmc;
      for (std::uint32_t k = 0; k < count && e.base.value + k <= kMaxUnicastLid; ++k)
        destinations_.push_back(Destination{Lid{static_cast<std::uint16_t>(e.base.value + k)},
                                            e.owner, s, e.switchPort, e.switchPort == 0, k == 0,
                                            std::ranges::binary_search(apart, e.owner)});
    }
  }
  // A CA port cabled to another CA holds LIDs no switch can deliver to.
  for (const NodeId id : fabric_.endNodes()) {
    const Node& node = fabric_.node(id);
    for (const std::uint8_t p : node.endpointPorts()) {
      const Port& port = node.ports[p];
      if (port.lid.value == 0 || !port.remote || fabric_.node(port.remote->node).isSwitch())
        continue;
      const std::uint32_t count = 1u << port.lmc;
      for (std::uint32_t k = 0; k < count && port.lid.value + k <= kMaxUnicastLid; ++k)
        destinations_.push_back(Destination{Lid{static_cast<std::uint16_t>(port.lid.value + k)},
                                            PortRef{id, p}, kNoSwitch, 0, false, k == 0});
    }
  }
  orderDestinations();
}

void ForwardingView::orderDestinations() {
  // A stable order that does not depend on how the graph numbers switches:
  // switch LIDs, then CA LIDs grouped by their switch (the report runs one
  // BFS per group), groups in the order of their lowest LID.
  std::vector<std::uint16_t> firstLid(graph_.size() + 1, 0xFFFF);
  const auto group = [](SwitchIndex s) { return s == kNoSwitch ? SwitchIndex{0} : s + 1; };
  for (const Destination& d : destinations_)
    if (!d.ownerIsSwitch) firstLid[group(d.sw)] = std::min(firstLid[group(d.sw)], d.lid.value);
  const auto key = [&](const Destination& d) {
    // Switch LIDs first, then CA groups, undeliverable LIDs last.
    const std::uint32_t rank = d.ownerIsSwitch ? 0u : (d.sw == kNoSwitch ? 2u : 1u);
    const std::uint16_t groupLid = d.ownerIsSwitch ? d.lid.value : firstLid[group(d.sw)];
    return std::tuple{rank, groupLid, group(d.sw), d.lid.value};
  };
  std::ranges::sort(destinations_,
                    [&](const Destination& a, const Destination& b) { return key(a) < key(b); });
}

void ForwardingView::transposeTables(const RoutingResult& result, unsigned threads,
                                     const std::vector<bool>* only) {
  const std::size_t n = graph_.size();
  std::size_t lids = 0;
  for (const Destination& d : destinations_) lids = std::max<std::size_t>(lids, d.lid.value + 1u);
  // The rows copied: every LID below the highest, or those of `only`.
  std::vector<std::uint16_t> copied;
  if (only != nullptr)
    for (std::size_t lid = 0; lid < std::min(lids, only->size()); ++lid)
      if ((*only)[lid]) copied.push_back(static_cast<std::uint16_t>(lid));
  const std::size_t rows = only != nullptr ? copied.size() : lids;
  const auto lidOf = [&](std::size_t row) { return only != nullptr ? copied[row] : row; };
  byLid_ = std::make_unique_for_overwrite<std::uint8_t[]>(lids * n);
  // Each switch's table, or none (size 0): the copy below reads them
  // directly.
  std::vector<const std::uint8_t*> table(n, nullptr);
  std::vector<std::size_t> size(n, 0);
  for (SwitchIndex s = 0; s < n; ++s) {
    const NodeId id = graph_.nodeId(s);
    if (id >= result.lfts.size()) continue;
    table[s] = result.lfts[id].port.data();
    size[s] = result.lfts[id].port.size();
  }
  // Rows of LIDs per worker (each writes its own rows); within them a block
  // of switches at a time, so that each written cache line is filled whole
  // while the block's source rows stream in.
  constexpr SwitchIndex kBlock = 64;
  constexpr std::size_t kLidsPerChunk = 256;
  parallelFor(threads, rows, kLidsPerChunk, [&](std::size_t lo, std::size_t hi, unsigned) {
    for (SwitchIndex first = 0; first < n; first += kBlock) {
      const SwitchIndex last = std::min<SwitchIndex>(static_cast<SwitchIndex>(n), first + kBlock);
      for (std::size_t row = lo; row < hi; ++row) {
        const std::size_t lid = lidOf(row);
        std::uint8_t* out = byLid_.get() + lid * n;
        for (SwitchIndex s = first; s < last; ++s)
          out[s] = lid < size[s] ? table[s][lid] : kNoRoute;
      }
    }
  });
}

void ForwardingView::indexSl2Vl(const RoutingResult& result) {
  if (result.sl2vl.empty()) return;
  sl2vl_ = result.sl2vl;
  const std::size_t n = graph_.size();
  sl2vlStart_.resize(n + 1, 0);
  for (SwitchIndex s = 0; s < n; ++s) {
    const std::size_t width = std::size_t{rows_[s].numPorts} + 1;
    sl2vlStart_[s + 1] = sl2vlStart_[s] + width * width;
  }
  sl2vlIndex_.assign(sl2vlStart_[n], kNoEntry);
  for (std::uint32_t i = 0; i < sl2vl_.size(); ++i) {
    const Sl2VlEntry& e = sl2vl_[i];
    const SwitchIndex s = graph_.index(e.sw);
    if (s == kNoSwitch || e.inPort > rows_[s].numPorts || e.outPort > rows_[s].numPorts) continue;
    sl2vlIndex_[sl2vlStart_[s] + (std::size_t{rows_[s].numPorts} + 1) * e.inPort + e.outPort] = i;
    for (const std::uint8_t v : e.vl)
      if (v < kDropVl) vlCount_ = std::max<std::uint8_t>(vlCount_, v + 1);
  }

  // Traffic that starts at a switch enters it through a CA port or port 0;
  // precomputing those masks keeps the per-destination pass at one lookup.
  originVls_.resize(targets_.size() * 16, 0);
  for (SwitchIndex s = 0; s < n; ++s) {
    // Port 0 always counts: every switch may originate traffic, so every
    // LFT chain holds buffers, as in the single-VL analysis.
    std::vector<std::uint8_t> inPorts{0};
    for (const auto& e : graph_.endpoints(s).subspan(1))
      if (e.base.value != 0) inPorts.push_back(e.switchPort);
    for (std::size_t out = 0; out <= rows_[s].numPorts; ++out) {
      for (std::uint8_t sl = 0; sl < 16; ++sl) {
        std::uint16_t mask = 0;
        for (const std::uint8_t in : inPorts) {
          const std::uint8_t v = vl(s, in, static_cast<std::uint8_t>(out), sl);
          if (v < kDropVl) mask |= static_cast<std::uint16_t>(1u << v);
        }
        originVls_[(rows_[s].firstTarget + out) * 16 + sl] = mask;
      }
    }
  }
}

std::string ForwardingView::switchName(SwitchIndex s) const {
  const Node& n = fabric_.node(graph_.nodeId(s));
  return fmt::format("\"{}\" ({})", n.description, n.guid);
}

std::string ForwardingView::channelName(ChannelId c) const {
  const Channel& ch = channels_[c];
  return fmt::format("\"{}\"[{}] -> \"{}\"[{}]", fabric_.node(graph_.nodeId(ch.from)).description,
                     ch.port, fabric_.node(graph_.nodeId(ch.to)).description, ch.remotePort);
}

}  // namespace ibsm::analysis
