// A Fabric and its RoutingResult flattened into arrays indexed by switch
// index, so that the per-destination passes of the report are plain array
// lookups: what lies behind each switch port, the directed inter-switch
// cables ("channels") numbered densely, which endpoints may originate
// traffic where, each destination LID's delivery point, and SL2VL lookups.
#pragma once

#include <ibsm/Fabric.h>
#include <ibsm/Routing.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "routing/graph/SwitchGraph.h"

namespace ibsm::analysis {

using routing::kNoSwitch;
using routing::SwitchIndex;

using ChannelId = std::uint32_t;
inline constexpr ChannelId kNoChannel = ~ChannelId{0};

// What one switch port leads to.
struct PortTarget {
  enum class Kind : std::uint8_t { Missing, Self, Endpoint, Switch };
  Kind kind{Kind::Missing};
  SwitchIndex next{kNoSwitch};    // the switch at the other end (Kind::Switch)
  ChannelId channel{kNoChannel};  // the directed cable through this port (Kind::Switch)
};

// A directed inter-switch cable.
struct Channel {
  SwitchIndex from{kNoSwitch};
  SwitchIndex to{kNoSwitch};
  std::uint8_t port{0};        // out port on `from`
  std::uint8_t remotePort{0};  // in port on `to`
};

// A LID to deliver, and where a correct table delivers it: out of `port` of
// switch `sw` (port 0 for the switch's own LID). sw is kNoSwitch when the
// owning port hangs off no switch, so nothing can deliver it.
struct Destination {
  Lid lid;
  PortRef owner;
  SwitchIndex sw{kNoSwitch};
  std::uint8_t port{0};
  bool ownerIsSwitch{false};
  bool isBase{false};  // the base LID of the owner's LMC range
  bool apart{false};   // the owner is in RoutingResult::apart
};

class ForwardingView {
 public:
  // `threads` (0: all cores) copy the tables into their LID-major form.
  // `only` (by LID; null: all): the destination LIDs whose entries() and
  // entry() will be read, the only ones copied, so that a pass over a few
  // LIDs (the verdict under change) does not pay for every LID's copy;
  // another LID's entries must not be read.
  ForwardingView(const Fabric& fabric, const RoutingResult& result, unsigned threads = 1,
                 const std::vector<bool>* only = nullptr);

  const Fabric& fabric() const { return fabric_; }
  const routing::SwitchGraph& graph() const { return graph_; }
  std::size_t switches() const { return graph_.size(); }

  // What the per-destination passes read of a switch, in one place.
  struct Row {
    std::uint32_t firstTarget{0};   // its port 0 in targets_ and steps_
    std::uint32_t firstChannel{0};  // = firstChannel(s)
    std::uint8_t numPorts{0};
  };
  // target(s, port) in two bytes, for the per-destination pass: the
  // channel's offset from firstChannel(s) when the port leads to another
  // switch, else one of the codes below (the table then stays in cache).
  static constexpr std::uint16_t kStepMissing = 0xFFFF;
  static constexpr std::uint16_t kStepWrong = 0xFFFE;  // Self or Endpoint
  std::uint16_t step(SwitchIndex s, std::uint8_t port) const {
    return steps_[rows_[s].firstTarget + port];
  }
  SwitchIndex channelTo(ChannelId c) const { return channelTo_[c]; }
  const Row& row(SwitchIndex s) const { return rows_[s]; }

  std::uint8_t numPorts(SwitchIndex s) const { return rows_[s].numPorts; }
  // Port 0..numPorts(s).
  const PortTarget& target(SwitchIndex s, std::uint8_t port) const {
    return targets_[rows_[s].firstTarget + port];
  }
  // Asks for step(s, port) to be brought into the cache (any port value),
  // and, once it is there, the far end of the channel it names.
  void prefetchStep(SwitchIndex s, std::uint8_t port) const {
    __builtin_prefetch(&steps_[rows_[s].firstTarget + std::min(port, rows_[s].numPorts)]);
  }
  void prefetchChannelTo(SwitchIndex s, std::uint8_t port) const {
    const std::uint16_t step = steps_[rows_[s].firstTarget + std::min(port, rows_[s].numPorts)];
    if (step < kStepWrong) __builtin_prefetch(&channelTo_[rows_[s].firstChannel + step]);
  }
  // Every switch's LFT entry for a destination LID, index = switch index.
  std::span<const std::uint8_t> entries(Lid lid) const {
    return {byLid_.get() + std::size_t{lid.value} * switches(), switches()};
  }
  // The LFT entry of s for a destination LID; kNoRoute when the table has none.
  std::uint8_t entry(SwitchIndex s, Lid lid) const {
    return byLid_[std::size_t{lid.value} * switches() + s];
  }

  std::size_t channelCount() const { return channels_.size(); }
  const Channel& channel(ChannelId c) const { return channels_[c]; }
  // Channels leaving s are numbered firstChannel(s) .. firstChannel(s+1)-1.
  ChannelId firstChannel(SwitchIndex s) const { return channelStart_[s]; }

  // Endpoints that originate traffic at s: CA ports with a LID, and s itself
  // when it has a LID.
  std::uint32_t caSources(SwitchIndex s) const { return caSources_[s]; }
  // Of those, the ports in RoutingResult::apart.
  std::uint32_t apartSources(SwitchIndex s) const { return apartSources_[s]; }
  std::size_t apartPorts() const { return apartPorts_; }
  bool switchIsSource(SwitchIndex s) const { return switchSource_[s] != 0; }
  std::size_t caPorts() const { return caPorts_; }

  // Every LID owned by some port: switch LIDs, then CA LIDs grouped by the
  // switch that delivers them, then LIDs no switch can deliver.
  std::span<const Destination> destinations() const { return destinations_; }

  // VLs the SL2VL entries map to (1 when the result has none).
  std::uint8_t vlCount() const { return vlCount_; }
  bool hasSl2Vl() const { return !sl2vlIndex_.empty(); }
  // Inline: the credit-loop walk asks once per switch, destination and SL.
  std::uint8_t vl(SwitchIndex s, std::uint8_t inPort, std::uint8_t outPort, std::uint8_t sl) const {
    if (sl2vlIndex_.empty()) return 0;
    const std::uint32_t i =
        sl2vlIndex_[sl2vlStart_[s] + (std::size_t{rows_[s].numPorts} + 1) * inPort + outPort];
    return i == kNoEntry ? 0 : sl2vl_[i].vl[sl & 0xF];
  }
  // VLs on which traffic that originates at s (at its CA ports or port 0)
  // leaves through outPort, as a bit mask.
  std::uint16_t originVls(SwitchIndex s, std::uint8_t outPort, std::uint8_t sl) const {
    if (originVls_.empty()) return 1;  // everything on VL 0
    return originVls_[(rows_[s].firstTarget + outPort) * 16 + (sl & 0xF)];
  }

  // RoutingResult::pairSls, sorted by (dlid, source); those of one
  // destination LID (empty: every source sends it on SL 0).
  std::span<const PairSl> pairSls() const { return pairSls_; }
  std::span<const PairSl> pairSlsOf(Lid lid) const {
    const auto [lo, hi] = std::ranges::equal_range(pairSls_, lid, {}, &PairSl::dlid);
    return {lo, hi};
  }
  // Where a source port's traffic enters the switches: the switch it hangs
  // off and the in port there (0 for a switch's own port 0); sw is
  // kNoSwitch for a port that originates nothing (no LID, no switch).
  struct Entry {
    SwitchIndex sw{kNoSwitch};
    std::uint8_t inPort{0};
  };
  Entry entryOf(PortRef source) const;

  std::string switchName(SwitchIndex s) const;
  std::string channelName(ChannelId c) const;

 private:
  void indexPorts(const std::vector<PortRef>& apart);
  void indexSteps();
  void indexDestinations(const std::vector<PortRef>& apart);
  void orderDestinations();
  void transposeTables(const RoutingResult& result, unsigned threads,
                       const std::vector<bool>* only);
  void indexSl2Vl(const RoutingResult& result);

  const Fabric& fabric_;
  routing::SwitchGraph graph_;
  std::vector<Row> rows_;
  // The LFTs transposed, LID-major, for destination LIDs only: a
  // destination's pass then reads one contiguous run instead of touching a
  // cache line and a page of every switch's table. Left uninitialised
  // where nothing is copied: pages no row is written to are never touched.
  std::unique_ptr<std::uint8_t[]> byLid_;
  std::vector<PortTarget> targets_;
  std::vector<std::uint16_t> steps_;    // targets_ for the per-destination pass (step())
  std::vector<SwitchIndex> channelTo_;  // per channel: channel(c).to
  std::vector<Channel> channels_;
  std::vector<ChannelId> channelStart_;
  std::vector<std::uint32_t> caSources_;
  std::vector<std::uint32_t> apartSources_;
  std::size_t apartPorts_{0};
  std::vector<std::uint8_t> switchSource_;
  std::size_t caPorts_{0};
  std::vector<Destination> destinations_;

  static constexpr std::uint32_t kNoEntry = ~std::uint32_t{0};
  std::uint8_t vlCount_{1};
  std::span<const Sl2VlEntry> sl2vl_;
  std::vector<std::size_t> sl2vlStart_;    // per switch, into sl2vlIndex_
  std::vector<std::uint32_t> sl2vlIndex_;  // (in, out) -> entry of sl2vl_, or kNoEntry
  std::vector<std::uint16_t> originVls_;   // per switch: (out port, SL) -> VL mask

  std::span<const PairSl> pairSls_;
  std::vector<PairSl> sortedPairSls_;               // a sorted copy when the result's were not
  std::vector<std::pair<PortRef, Entry>> entries_;  // sorted by port
};

}  // namespace ibsm::analysis
