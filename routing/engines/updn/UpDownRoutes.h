// updn's routes toward one destination: the length and the mode of every
// switch, and the out ports it may take, over the order of UpDownOrder.h.
//
// An LFT is indexed by destination only, so the switch cannot know whether a
// packet came in going up or going down. The tables must therefore make the
// route that any switch starts legal as a whole: a switch that a packet may
// enter on a down hop must itself forward down. The routes grow outward from
// the switches already settled (the destination; with the previous tables
// as the hint, also every switch whose previous chain still holds and is
// still legal in the current order), nearest first:
//
// * a switch next to a settled switch u gets a route of one more hop: a
//   "down" route if its hop to u goes down and u routes down, an "up" route if
//   its hop to u goes up (u may route either way after an up hop);
// * at equal length a down route wins, since it also serves switches above.
//
// Each switch so takes the shortest route that the choices of the switches
// nearer to d leave open. On fat trees and Clos fabrics every route from a
// switch with hosts to a host is then a shortest path; on rings and meshes
// some switches take a longer one where the shortest would pass a switch
// that forwards up. Every switch that can reach d gets a route: the order's
// one minimum per component reaches d going down only, and every switch
// climbs to the minimum.
//
// Candidates: a down switch uses the down hops to down-routing switches one
// hop nearer to d; an up switch the up hops one hop nearer. A down switch that
// no down switch hands packets to on a down hop ("uncommitted") may also use
// its up hops of the same length: nothing enters it going down. A kept switch
// has one candidate, its previous port. Since every chain, kept or grown,
// climbs and then only descends in the order, the tables stay free of credit
// loops on one VL whatever was kept.
//
//   UpDownRoutes routes(graph, order);
//   routes.toward(d);                  // or, with the hint judged for one LID:
//   routes.toward(d, chains);
//   routes.length(s); routes.candidates(s, ports);
#pragma once

#include <cstdint>
#include <vector>

#include "routing/engines/updn/UpDownOrder.h"
#include "routing/graph/PreviousChains.h"
#include "routing/graph/SwitchGraph.h"

namespace ibsm::routing::updn {

class UpDownRoutes {
 public:
  UpDownRoutes(const SwitchGraph& graph, const UpDownOrder& order);

  // Toward destination switch d, the same for every LID behind it.
  void toward(SwitchIndex d);
  // Toward one LID behind d, `chains` judged for it: every switch whose
  // previous chain holds and climbs then descends in the order keeps it.
  void toward(SwitchIndex d, const PreviousChains& chains);

  std::uint16_t length(SwitchIndex s) const {
    return mode_[s] == Mode::None ? kUnreachable : length_[s];
  }
  // Appends the allowed out ports of s (s != d).
  void candidates(SwitchIndex s, std::vector<std::uint8_t>& out) const;
  // Switches that kept their previous entry in the last toward().
  std::size_t kept() const { return kept_; }

 private:
  enum class Mode : std::uint8_t {
    None,   // no legal path to d
    Down,   // forwards down only; packets may enter going down
    Up,     // forwards up
    Either  // down-routing, but no packet enters going down: up hops of equal length too
  };

  void start(SwitchIndex d);
  void settle(SwitchIndex s, Mode mode, std::uint16_t length);
  void keepLegal(SwitchIndex d, const PreviousChains& chains);
  void grow();
  void relaxUncommitted(SwitchIndex d);
  std::vector<SwitchIndex>& bucket(std::size_t length);

  const SwitchGraph& graph_;
  const UpDownOrder& order_;
  std::vector<std::uint16_t> length_;
  std::vector<Mode> mode_;
  std::vector<std::uint8_t> offer_;     // bit 1: a down route offered, bit 2: an up route
  std::vector<std::uint8_t> keptPort_;  // kNoRoute unless the switch kept its previous entry
  std::vector<bool> committed_;
  std::vector<std::vector<SwitchIndex>> buckets_;  // switches by length, settled or offered
  std::vector<SwitchIndex> byLength_;
  std::size_t kept_{0};
};

}  // namespace ibsm::routing::updn
