// Which port an SMP reaches, learnt from what the ports said of themselves,
// so that the MAD engine can put that port's M_Key on every SMP sent to it
// (IBA 14.2.4: an SMA checks the M_Key of the port the SMP entered; a
// switch's external ports use port 0's). OpenSM resolves a path through
// the subnet it knows; here the engine learns the same from the answers
// going by, so no caller has to know keys:
// - a NodeInfo answered on a directed route names the port it entered
//   (NodeInfo:PortGUID: for a switch, port 0's);
// - a PortInfo answered for that port (a CA's entry port, a switch's port
//   0) names the LIDs it holds, which LID-routed SMPs are sent to.
// A route or LID never seen resolves to nothing: its SMPs carry key 0 --
// with protect bits 1 a Get still answers, and its NodeInfo teaches the
// port's GUID. A route that now leads elsewhere (a cable moved) is
// corrected by the next NodeInfo through it. Bounded by the routes and
// LIDs the SM uses.
#pragma once

#include <ibsm/Ids.h>
#include <ibsm/Mad.h>
#include <ibsm/MadPath.h>

#include <cstdint>
#include <map>
#include <optional>
#include <unordered_map>
#include <variant>

namespace ibsm::sm::mad {

class PortDirectory {
 public:
  // What an answered SMP sent to `to` says of the port it reached; returns
  // the port an SMP to `to` is checked by as known now (what portAt(to)
  // would say), so the engine looks the route up once per answer.
  std::optional<Guid> learn(const std::variant<DrPath, Lid>& to, const Smp& answer);
  // The GUID of the port an SMP to `to` is checked by, if known.
  std::optional<Guid> portAt(const std::variant<DrPath, Lid>& to) const;
  std::size_t routes() const { return byPath_.size(); }
  std::size_t lids() const { return byLid_.size(); }

 private:
  void learnLids(Guid port, Lid base, std::uint8_t lmc);

  struct Reached {
    Guid port;
    bool isSwitch{false};
  };
  // Hashed: a sweep looks a route up twice an SMP (its M_Key on the way
  // out and what its answer teaches), and an ordered map's ~15 comparisons
  // of 64-byte paths were ~8% of a bring-up's CPU (issue 32).
  std::unordered_map<DrPath, Reached> byPath_;
  std::map<Lid, Guid> byLid_;
  std::map<Guid, std::pair<Lid, std::uint8_t>> lidsOf_;  // to forget a port's old LIDs
};

}  // namespace ibsm::sm::mad
