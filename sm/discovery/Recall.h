// What a heavy sweep takes from the last one when the wire loses it
// (issue 17). On a fabric that loses MADs, a walk of a few thousand SMPs
// leaves a few unanswered even after every retry; each is a problem line
// that holds the subnet short of up, and a probe lost drops a cable or a
// whole CA, so the plan changes and the next sweep rewrites tables -- and
// loses a few other SMPs. Bring-up then never converges. So what the last
// sweep confirmed is not confirmed again from scratch: an answer lost on a
// route that loses MADs is taken from the last observation (as programming
// changed it) where this sweep's own answers vouch for it, and only there.
//
// The rules, each for a failure on a lossy route (lossyRoute()) only -- in a
// fabric that loses nothing a failure means a change, and nothing is kept:
// - NodeDescription of a node that answered NodeInfo: the last one's.
// - SwitchInfo of a switch whose port 0 answers with the LID it last held
//   (not 0: a reset switch holds none), and PortInfo of port 0 of a switch
//   whose SwitchInfo answers with the LinearFDBTop it last held.
// - PortInfo of a port whose cable to its last peer this sweep proved (a
//   probe crossed it, either way, and nothing else landed on it) and whose
//   peer answers in the state it last held itself: the last one's.
// - A probe lost out of a port that answers Armed or Active: the cable to
//   its last peer, when that peer's port answers Armed or Active too and
//   nothing contradicts it (no other probe landed on either end, neither
//   end's probe landed elsewhere); a CA peer not reached this sweep (it is
//   reached through that cable only) is taken with it. Armed and Active are
//   the proof: a link that goes down comes back in Init, and only this SM
//   arms it again, on a cable it saw from both ends; a port still Armed or
//   Active has kept its peer since.
// Everything taken is counted (RecallCounts), never logged line by line.
//
//   RecallCounts n = recallConfirmed(seen, held.observed(),
//                                    [&](const DrPath& p) { return lossyRoute(engine.loss(), p);
//                                    });
//   DiscoveredSubnet subnet = assembleSubnet(seen);
#pragma once

#include <cstddef>
#include <functional>

#include "sm/discovery/DiscoveredSubnet.h"
#include "sm/discovery/Observations.h"
#include "sm/mad/MadLoss.h"

namespace ibsm::sm::discovery {

struct RecallCounts {
  std::size_t descriptions{0};
  std::size_t switchInfos{0};
  std::size_t portInfos{0};
  std::size_t cables{0};
  std::size_t nodes{0};  // CAs reached through a recalled cable only
  std::size_t total() const { return descriptions + switchInfos + portInfos + cables + nodes; }
};

// Whether a failure on `path` may be the wire's: routes of its length lose
// MADs (MadLoss: at least 2% of attempts lately).
bool lossyRoute(const MadLoss& loss, const DrPath& path);

using LossyRoute = std::function<bool(const DrPath&)>;

// Fills in `seen` what the rules above take from `last`; the failures it
// covers leave seen.failedReads and seen.failedProbes.
RecallCounts recallConfirmed(Observations& seen, const DiscoveredSubnet& last,
                             const LossyRoute& lossy);

// Whether the walk should probe out of `port` of `node` although its
// PortInfo was lost on a lossy route: `last` saw it Armed or Active with a
// cable (the probe proves the cable again, and lets the rules above take
// the PortInfo).
bool wasLinked(const DiscoveredSubnet& last, Guid node, std::uint8_t port);

}  // namespace ibsm::sm::discovery
