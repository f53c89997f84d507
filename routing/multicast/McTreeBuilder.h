// One group's tree: the union of every member switch's path toward the
// group's root over a BFS tree of the switch graph, cut below the root when
// all members hang under one branch, and each tree switch's port mask. A
// switch's parent depends only on the root, the MLID and the switch, so a
// join adds only the new member's branch and a leave removes only its own.
#pragma once

#include <ibsm/Multicast.h>

#include <vector>

#include "routing/multicast/McMembers.h"
#include "routing/multicast/McRoots.h"

namespace ibsm::routing {

// The cable switch `v` climbs toward the root whose BFS hops are `hops`:
// among the cables to switches one hop nearer (several parents, parallel
// cables) the choice is rotated by switch and `rotation`; parent kNoSwitch
// at the root.
struct UpCable {
  SwitchIndex parent{kNoSwitch};
  std::uint8_t port{0};        // on v
  std::uint8_t remotePort{0};  // on the parent
};
UpCable upCable(const SwitchGraph& graph, SwitchIndex v, std::uint32_t rotation,
                const std::vector<std::uint16_t>& hops);

// Every tree a subtree of one (MulticastOptions::oneTree): rooted at each
// component's first candidate, each switch climbing its rotation-0 cable.
// A copy then enters a switch from a child and leaves toward its parent or
// another child, or enters from the parent and leaves toward a child
// (oneTreeTurn): it climbs, then descends, never climbs again, so those
// turns close no loop, and the trees none among themselves.
struct OneTree {
  std::vector<UpCable> up;  // by switch
  SwitchIndex firstRoot{0};

  // Whether the cable out of `from` by `port` climbs (is from's up cable)
  // or descends (is the up cable of the switch it lands on, `to`, whose
  // port there is `remotePort`).
  bool climbs(SwitchIndex from, std::uint8_t port) const {
    return up[from].parent != kNoSwitch && up[from].port == port;
  }
  bool descends(SwitchIndex to, std::uint8_t remotePort) const {
    return up[to].parent != kNoSwitch && up[to].port == remotePort;
  }
  // A turn from cable a (climbs or descends) onto cable b, never back onto
  // the neighbour a came from.
  static bool turn(bool aClimbs, bool aDescends, bool bClimbs, bool bDescends) {
    return (aClimbs && (bClimbs || bDescends)) || (aDescends && bDescends);
  }
};
OneTree oneTree(McRoots& roots, const SwitchGraph& graph);

class McTreeBuilder {
 public:
  explicit McTreeBuilder(const SwitchGraph& graph);

  // Adds the tree of `members` (all in root's component) to `mfts` (index =
  // NodeId) and returns how many switches it holds. `rotation` turns the
  // choice among equal parents so trees sharing a root use other up-links.
  std::size_t build(Lid mlid, SwitchIndex root, std::uint32_t rotation,
                    const std::vector<std::uint16_t>& hops,
                    const std::vector<PlacedMember>& members, std::vector<SwitchMft>& mfts);

 private:
  void climb(SwitchIndex from, SwitchIndex root, std::uint32_t rotation,
             const std::vector<std::uint16_t>& hops);
  SwitchIndex cutTop(SwitchIndex root) const;
  void reset();

  const SwitchGraph& graph_;
  // Scratch per switch, reset after each group through touched_.
  std::vector<SwitchIndex> parent_;
  std::vector<std::uint8_t> upPort_;    // this switch's port toward its parent
  std::vector<std::uint8_t> downPort_;  // the parent's port toward this switch
  std::vector<std::uint32_t> below_;    // receivers in the subtree
  std::vector<std::uint32_t> here_;     // members hanging off this switch
  std::vector<std::uint32_t> children_;
  std::vector<bool> inTree_;
  std::vector<SwitchIndex> touched_;
};

}  // namespace ibsm::routing
