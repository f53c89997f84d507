// The PMAs of a hand-made Fabric, for the counter sweep's tests: answers a
// PerfMgt GMP as the node at its LID would (ClassPortInfo with the
// capability mask given; PortCounters and PortCountersExtended of one port
// by PortSelect, or the switch-wide sum for 0xFF; a Set clears the
// CounterSelect'ed counters), records what it was asked, and stays silent
// for the nodes told to.
#pragma once

#include <ibsm/Fabric.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <vector>

#include "sm/mad/PerfCounters.h"

namespace ibsm::testing {

class FakePma {
 public:
  struct Asked {
    Lid lid;
    PerfMad mad;
  };

  FakePma(const Fabric& fabric, std::uint16_t capabilityMask)
      : fabric_(fabric), capabilityMask_(capabilityMask) {}

  PortCounters& counters(PortKey p) { return counters_[p]; }
  PortCountersExtended& extended(PortKey p) { return extended_[p]; }
  void silence(Guid node, bool silent = true) {
    if (silent) {
      silent_.insert(node);
    } else {
      silent_.erase(node);
    }
  }
  const std::vector<Asked>& asked() const { return asked_; }
  std::size_t count(std::uint16_t attribute, std::uint8_t method = perfMethod::kGet,
                    std::optional<std::uint8_t> portSelect = std::nullopt) const {
    return static_cast<std::size_t>(std::ranges::count_if(asked_, [&](const Asked& a) {
      return a.mad.attributeId == attribute && a.mad.method == method &&
             (!portSelect || a.mad.data[1] == *portSelect);
    }));
  }

  // The answer to `request` sent to `lid`, or nullopt (silent, no such LID).
  std::optional<PerfMadBytes> answer(std::span<const std::uint8_t> request, Lid lid) {
    std::optional<PerfMad> mad = decodePerfMad(request);
    if (!mad) return std::nullopt;
    asked_.push_back({lid, *mad});
    const std::optional<PortRef> at = portAt(lid);
    if (!at) return std::nullopt;
    const Node& node = fabric_.node(at->node);
    if (silent_.contains(node.guid)) return std::nullopt;
    PerfMad reply = *mad;
    reply.method = perfMethod::kGetResp;
    if (mad->attributeId == perfAttr::kClassPortInfo) {
      reply.data = encode(PerfClassPortInfo{.capabilityMask = capabilityMask_});
      return encode(reply);
    }
    const std::uint8_t select = mad->data[1];
    if (mad->attributeId == perfAttr::kPortCounters) {
      const PortCounters asked = decodePortCounters(mad->data);
      PortCounters out = select == kAllPortSelect ? sum(node) : counters_[{node.guid, select}];
      if (mad->method == perfMethod::kSet) {
        clear(counters_[{node.guid, select}], asked.counterSelect);
        out = counters_[{node.guid, select}];
      }
      out.portSelect = select;
      reply.data = encode(out);
    } else {
      PortCountersExtended out = extended_[{node.guid, select}];
      out.portSelect = select;
      reply.data = encode(out);
    }
    return encode(reply);
  }

 private:
  std::optional<PortRef> portAt(Lid lid) const {
    for (NodeId id = 0; id < fabric_.size(); ++id) {
      const Node& n = fabric_.node(id);
      for (std::uint8_t p = 0; p < n.ports.size(); ++p)
        if (n.ports[p].lid == lid && lid.value != 0) return PortRef{id, p};
    }
    return std::nullopt;
  }
  PortCounters sum(const Node& node) {
    PortCounters s;
    for (std::uint8_t p = 1; p <= node.numPorts(); ++p) {
      const PortCounters& c = counters_[{node.guid, p}];
      s.symbolErrorCounter = add16(s.symbolErrorCounter, c.symbolErrorCounter);
      s.portRcvErrors = add16(s.portRcvErrors, c.portRcvErrors);
      s.portXmitDiscards = add16(s.portXmitDiscards, c.portXmitDiscards);
      s.linkDownedCounter = static_cast<std::uint8_t>(
          std::min<unsigned>(0xFF, unsigned{s.linkDownedCounter} + c.linkDownedCounter));
      s.portXmitData += c.portXmitData;
    }
    return s;
  }
  static std::uint16_t add16(std::uint16_t a, std::uint16_t b) {
    return static_cast<std::uint16_t>(std::min<unsigned>(0xFFFF, unsigned{a} + b));
  }
  static void clear(PortCounters& c, std::uint16_t select) {
    if ((select & counterSelect::kSymbolErrorCounter) != 0) c.symbolErrorCounter = 0;
    if ((select & counterSelect::kLinkDownedCounter) != 0) c.linkDownedCounter = 0;
    if ((select & counterSelect::kPortRcvErrors) != 0) c.portRcvErrors = 0;
    if ((select & counterSelect::kPortXmitData) != 0) c.portXmitData = 0;
  }

  const Fabric& fabric_;
  std::uint16_t capabilityMask_;
  std::map<PortKey, PortCounters> counters_;
  std::map<PortKey, PortCountersExtended> extended_;
  std::set<Guid> silent_;
  std::vector<Asked> asked_;
};

}  // namespace ibsm::testing
