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
// (forEachTurn): it climbs, then descends, never climbs again, so those
// turns close no loop, and the trees none among themselves.
struct OneTree {
  std::vector<UpCable> up;  // by switch
  SwitchIndex firstRoot{0};

  // Every such turn, as f(from, its port toward `at`, at, at's port out).
  template <typename F>
  void forEachTurn(F&& f) const {
    std::vector<std::vector<SwitchIndex>> children(up.size());
    for (SwitchIndex c = 0; c < up.size(); ++c)
      if (up[c].parent != kNoSwitch) children[up[c].parent].push_back(c);
    for (SwitchIndex at = 0; at < up.size(); ++at) {
      const UpCable& mine = up[at];
      for (const SwitchIndex c : children[at]) {
        if (mine.parent != kNoSwitch) f(c, up[c].port, at, mine.port);  // on up
        for (const SwitchIndex d : children[at])
          if (d != c) f(c, up[c].port, at, up[d].remotePort);  // down another branch
      }
      if (mine.parent == kNoSwitch) continue;
      for (const SwitchIndex d : children[at])
        f(mine.parent, mine.remotePort, at, up[d].remotePort);  // on down
    }
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
  // Later builds climb `tree`'s cables (not owned; nullptr: the cables
  // toward the root by `hops`, rotated), with `hops` its depths.
  void follow(const OneTree* tree) { fixed_ = tree; }

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
  const OneTree* fixed_{nullptr};
};

}  // namespace ibsm::routing
