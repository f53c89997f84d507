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
