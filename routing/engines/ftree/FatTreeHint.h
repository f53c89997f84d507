// The tables the switches held before a loss, as ftree's hint
// (RoutingOptions::previous): toward each destination, a switch keeps its
// previous next hop when the previous chain from it still reaches the
// destination over cables that exist; the others keep the fresh column's.
// The legaliser then checks every chain of the mix climbs and then descends
// in the hub order and reroutes those that do not, so the tables stay free
// of credit loops on one VL whatever was kept.
//
// With the verdicts judged already (RoutingOptions::previousHolds, from
// routeUnderChange) apply() reads them instead of walking the previous
// chains again, and may then run on several threads at once.
//
//   HintColumns hint(graph, layout, options.previous, options.previousHolds);
//   kept += hint.apply(lid, target, deliverPort, next);  // before legalise()
#pragma once

#include <ibsm/Fabric.h>
#include <ibsm/Routing.h>

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "routing/engines/ftree/FatTreeLayout.h"
#include "routing/graph/PreviousChains.h"
#include "routing/graph/SwitchGraph.h"

namespace ibsm::routing::ftree {

class HintColumns {
 public:
  HintColumns(const SwitchGraph& graph, const FatTreeLayout& layout, std::span<const Lft> previous,
              const PreviousHolds* holds = nullptr);

  bool empty() const { return chains_.empty(); }
  // Whether apply() may run on several threads at once: no hint, or its
  // verdicts judged already.
  bool concurrent() const { return empty() || holds_ != nullptr; }
  // Puts the previous next hop toward `lid` (delivered by `target` on
  // `deliverPort`, 0 for the switch itself) into `next` wherever its chain
  // holds; returns how many switches kept theirs. With judged verdicts, a
  // LID they do not cover keeps nothing.
  std::size_t apply(Lid lid, SwitchIndex target, std::uint8_t deliverPort,
                    std::vector<CableId>& next);

  // The hub of the order the previous tables followed (FatTreeHub.h): the
  // leaf that the previous chains between top switches pass through, since
  // in a legal chain only the hub leaf has both an earlier and a later
  // neighbour on it. None without a hint, or when no such chain holds.
  std::optional<SwitchIndex> previousHub(const SwitchGraph& graph);

  // The previous column toward `lid` holds whole (PreviousHolds::whole): it
  // is the answer, legal in the hub order the judge read it in.
  bool whole(Lid lid) const { return holds_ != nullptr && holds_->isWhole(lid.value); }
  // Where whole(lid): how many switches apply() would keep the previous
  // hop of (every switch the verdicts cover).
  std::size_t keptWhole(Lid lid) const;
  // The verdicts judged before routing, or null.
  const PreviousHolds* holds() const { return holds_; }
  // Where the column toward `lid` holds whole: s's previous hop as a cable
  // (s is not the target), and s's previous table.
  CableId previousCable(SwitchIndex s, Lid lid) const {
    return portCable_[s * stride_ + tables_[s][lid.value]];
  }
  const std::uint8_t* previousTable(SwitchIndex s) const { return tables_[s]; }

 private:
  std::size_t applyJudged(Lid lid, SwitchIndex target, std::vector<CableId>& next) const;

  const FatTreeLayout& layout_;
  const PreviousHolds* holds_;
  std::vector<const std::uint8_t*> tables_;  // per switch: its previous entries, or null
  PreviousChains chains_;
  // Per switch, `stride_` ports from s * stride_: the cable, or kNoCable.
  std::size_t stride_{0};
  std::vector<CableId> portCable_;
};

}  // namespace ibsm::routing::ftree
