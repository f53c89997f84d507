// updn: Up*/Down* routing over the order of UpDownOrder.h, complete (every
// switch reaches every LID of its component) and free of credit loops on any
// topology, on one VL.
//
// An LFT is indexed by destination only, so the switch cannot know whether a
// packet came in going up or going down. The tables must therefore make the
// route that any switch starts legal as a whole: a switch that a packet may
// enter on a down hop must itself forward down. Per destination switch d we
// build the routes outward from d, level by level (a BFS):
//
// * a switch next to a finished switch u gets a route of one more hop: a
//   "down" route if its hop to u goes down and u routes down, an "up" route if
//   its hop to u goes up (u may route either way after an up hop);
// * at equal length a down route wins, since it also serves switches above.
//
// Each switch so takes the shortest route that the choices of the switches
// nearer to d leave open. On fat trees and Clos fabrics every route from a
// switch with hosts to a host is then a shortest path; on rings and meshes
// some switches take a longer one where the shortest would pass a switch
// that forwards up. Every switch that can
// reach d gets a route: the order's one minimum per component reaches d going
// down only, and every switch climbs to the minimum.
//
// Candidates: a down switch uses the down hops to down-routing switches one
// hop nearer to d; an up switch the up hops one hop nearer. A down switch that
// no down switch hands packets to on a down hop ("uncommitted") may also use
// its up hops of the same length: nothing enters it going down.
#include <ibsm/Engines.h>

#include <algorithm>

#include "routing/engines/BalancedLfts.h"
#include "routing/engines/updn/UpDownOrder.h"
#include "routing/graph/SwitchGraph.h"

namespace ibsm {
namespace {

using routing::Cable;
using routing::SwitchGraph;
using routing::SwitchIndex;

enum class Mode : std::uint8_t {
  None,   // no legal path to d
  Down,   // forwards down only; packets may enter going down
  Up,     // forwards up
  Either  // down-routing, but no packet enters going down: up hops of equal length too
};

// Route length and mode of every switch toward one destination switch at a
// time (fillBalancedLfts asks destination by destination), so memory stays
// linear in the switches.
class UpDownPlan {
 public:
  UpDownPlan(const SwitchGraph& graph, const routing::updn::UpDownOrder& order)
      : graph_(graph),
        order_(order),
        length_(graph.size()),
        mode_(graph.size()),
        offer_(graph.size(), 0),
        committed_(graph.size()) {}

  std::uint16_t length(SwitchIndex s, SwitchIndex d) {
    toward(d);
    return mode_[s] == Mode::None ? routing::kUnreachable : length_[s];
  }

  void candidates(SwitchIndex s, SwitchIndex d, std::vector<std::uint8_t>& out) {
    toward(d);
    const Mode mode = mode_[s];
    if (mode == Mode::None) return;
    const auto nearer = static_cast<std::uint16_t>(length_[s] - 1);
    const bool down = mode == Mode::Down || mode == Mode::Either;
    const bool up = mode == Mode::Up || mode == Mode::Either;
    graph_.forEachCable(s, [&](SwitchIndex t, const Cable& cable) {
      const Mode next = mode_[t];
      if (t == s || next == Mode::None || length_[t] != nearer) return;
      // A down hop must land on a switch that forwards down in turn.
      const bool allowed = order_.isUp(s, t) ? up : (down && next == Mode::Down);
      if (allowed) out.push_back(cable.port);
    });
  }

 private:
  void toward(SwitchIndex d) {
    if (d == current_) return;
    current_ = d;
    std::ranges::fill(mode_, Mode::None);
    std::ranges::fill(length_, 0);
    mode_[d] = Mode::Down;
    level_.assign(1, d);
    for (std::uint16_t len = 1; !level_.empty(); ++len) {
      next_.clear();
      for (const SwitchIndex u : level_) {
        graph_.forEachCable(u, [&](SwitchIndex x, const Cable&) {
          if (x == u || mode_[x] != Mode::None) return;
          // From x the hop to u goes up when u comes first in the order.
          const std::uint8_t bit = order_.isUp(x, u) ? 2 : (mode_[u] == Mode::Down ? 1 : 0);
          if (bit == 0) return;
          if (offer_[x] == 0) next_.push_back(x);
          offer_[x] |= bit;
        });
      }
      for (const SwitchIndex x : next_) {
        mode_[x] = (offer_[x] & 1) ? Mode::Down : Mode::Up;
        length_[x] = len;
        offer_[x] = 0;
      }
      level_.swap(next_);
    }
    relaxUncommitted(d);
  }

  // A down switch that no down switch feeds on a down hop may also climb.
  void relaxUncommitted(SwitchIndex d) {
    committed_.assign(committed_.size(), false);
    for (SwitchIndex s = 0; s < mode_.size(); ++s) {
      if (mode_[s] != Mode::Down || s == d) continue;
      graph_.forEachCable(s, [&](SwitchIndex t, const Cable&) {
        if (!order_.isUp(s, t) && t != s && mode_[t] == Mode::Down && length_[t] + 1 == length_[s])
          committed_[t] = true;
      });
    }
    for (SwitchIndex s = 0; s < mode_.size(); ++s) {
      if (mode_[s] != Mode::Down || s == d || committed_[s]) continue;
      bool climbs = false;
      graph_.forEachCable(s, [&](SwitchIndex t, const Cable&) {
        climbs = climbs || (order_.isUp(s, t) && length_[t] + 1 == length_[s]);
      });
      if (climbs) mode_[s] = Mode::Either;
    }
  }

  const SwitchGraph& graph_;
  const routing::updn::UpDownOrder& order_;
  SwitchIndex current_{routing::kNoSwitch};
  std::vector<std::uint16_t> length_;
  std::vector<Mode> mode_;
  std::vector<std::uint8_t> offer_;  // bit 1: a down route offered, bit 2: an up route
  std::vector<bool> committed_;
  std::vector<SwitchIndex> level_;
  std::vector<SwitchIndex> next_;
};

class UpDownEngine final : public RoutingEngine {
 public:
  std::string_view name() const override { return "updn"; }

  Result<RoutingResult> route(const Fabric& fabric, const RoutingOptions& options) const override {
    const SwitchGraph graph(fabric);
    auto order = routing::updn::upDownOrder(fabric, graph, options.rootGuids);
    if (!order) return std::unexpected(order.error());
    UpDownPlan plan(graph, *order);
    auto tables = routing::fillBalancedLfts(
        fabric, graph,
        routing::PathChoices{
            .length = [&](SwitchIndex s, SwitchIndex d) { return plan.length(s, d); },
            .candidates = [&](SwitchIndex s, SwitchIndex d,
                              std::vector<std::uint8_t>& out) { plan.candidates(s, d, out); }});

    RoutingResult result;
    result.engine = std::string(name());
    result.lfts = std::move(tables.lfts);
    result.notes = std::move(order->notes);
    if (auto note = routing::unroutedNote(tables)) result.notes.push_back(std::move(*note));
    return result;
  }
};

}  // namespace

std::unique_ptr<RoutingEngine> makeUpDownEngine() {
  return std::make_unique<UpDownEngine>();
}

}  // namespace ibsm
