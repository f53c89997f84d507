// checkMulticast() against a judge of the test's own: a packet from every
// member, flooded through the masks (out by every port of a switch's mask
// but the one it came in by). Planned trees are damaged at random (a bit
// set or cleared, a cable added to or cut from the tree, an entry dropped);
// the check must name a loop, a missing member or a double copy exactly
// when some member's packet reaches a switch twice or a receiver other than
// one copy. The check proves a right tree without flooding it once per
// source switch, so this is what keeps that proof honest.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <ibsm/Multicast.h>

#include <map>
#include <random>

#include "tests/routing/engines/ShapeFabrics.h"
#include "tests/routing/multicast/McTestGroups.h"

namespace ibsm {
namespace {

using testing::everyCa;

// Whether every member's packet reaches each other receiving member once
// and no switch twice.
bool floodsDeliverOnce(const Fabric& f, const std::vector<SwitchMft>& mfts,
                       const McGroupRoute& group) {
  const auto maskAt = [&](NodeId id) -> const McPortMask* {
    const auto it = mfts[id].entries.find(group.mlid.value);
    return it == mfts[id].entries.end() ? nullptr : &it->second;
  };
  for (const McRouteMember& source : group.members) {
    const PortRef at = *f.findPort(source.portGuid);
    // Into its switch by the member's cable, or from the switch itself.
    const PortRef entry = f.node(at.node).isSwitch() ? PortRef{at.node, 0} : *f.port(at).remote;
    std::map<Guid, int> copies;
    std::map<NodeId, int> visits;
    std::vector<PortRef> queue{entry};
    for (std::size_t i = 0; i < queue.size(); ++i) {
      const auto [id, in] = queue[i];
      if (++visits[id] > 1) return false;
      const McPortMask* mask = maskAt(id);
      for (std::size_t p = 0; mask != nullptr && p <= f.node(id).numPorts(); ++p) {
        if (!mask->test(p) || (p == in && p != 0)) continue;
        const auto& peer = f.node(id).ports[p].remote;
        if (p == 0)
          ++copies[f.node(id).guid];
        else if (peer && f.node(peer->node).isSwitch())
          queue.push_back(*peer);
        else if (peer)
          ++copies[f.port(*peer).guid];
      }
    }
    for (const McRouteMember& r : group.members)
      if (r.receives && r.portGuid != source.portGuid && copies[r.portGuid] != 1) return false;
  }
  return true;
}

bool checkFindsAFloodProblem(const std::vector<std::string>& problems) {
  return std::ranges::any_of(problems, [](const std::string& p) {
    return p.find("loop:") != std::string::npos || p.find("missing member") != std::string::npos ||
           p.find("double copy") != std::string::npos;
  });
}

// One random damage to the tree of `mlid`.
void damage(const Fabric& f, std::vector<SwitchMft>& mfts, std::uint16_t mlid, std::mt19937& rng) {
  std::vector<NodeId> switches;
  for (NodeId id = 0; id < f.size(); ++id)
    if (f.node(id).isSwitch()) switches.push_back(id);
  const NodeId sw = switches[rng() % switches.size()];
  const std::size_t p = 1 + rng() % f.node(sw).numPorts();
  const auto& peer = f.node(sw).ports[p].remote;
  const auto kind = rng() % 4;
  switch (kind) {
    case 0:  // one bit flipped, any port
      mfts[sw].entries[mlid].flip(rng() % (f.node(sw).numPorts() + 1));
      break;
    case 1:  // a cable added to the tree (both ends)
    case 2:  // or cut from it
      if (!peer || !f.node(peer->node).isSwitch()) return;
      mfts[sw].entries[mlid].set(p, kind == 1);
      mfts[peer->node].entries[mlid].set(peer->port, kind == 1);
      break;
    default:  // a switch's entry dropped
      mfts[sw].entries.erase(mlid);
  }
}

TEST(MulticastCheckFlood, NamesAFloodProblemExactlyWhenAPacketArrivesWrong) {
  const std::vector<Fabric> shapes{testing::threeLevelFatTree(4), testing::randomGraph(12, 6, 7),
                                   testing::twoLevelFatTree(4, 2, 2, /*trunk=*/2),
                                   testing::ring(5, 2)};
  std::mt19937 rng(31);
  int right = 0;
  int wrong = 0;
  for (const Fabric& f : shapes) {
    const auto all = everyCa(f, 0xC000).members;
    for (int round = 0; round < 150; ++round) {
      McGroupRoute g{.mgid = {}, .mlid = Lid{0xC000}, .members = {}};
      for (auto m : all) {
        if (rng() % 3 == 0) continue;
        m.receives = rng() % 5 != 0;
        g.members.push_back(m);
      }
      const std::vector groups{g};
      const auto plan = planMulticast(f, groups);
      ASSERT_TRUE(plan);
      auto mfts = plan->mfts;
      for (std::size_t d = rng() % 3; d > 0; --d) damage(f, mfts, 0xC000, rng);
      const bool once = floodsDeliverOnce(f, mfts, g);
      const auto problems = checkMulticast(f, mfts, groups);
      EXPECT_EQ(checkFindsAFloodProblem(problems), !once)
          << "round " << round << ": " << ::testing::PrintToString(problems);
      ++(once ? right : wrong);
    }
  }
  // Both answers were asked for often enough to mean something.
  EXPECT_GT(right, 100);
  EXPECT_GT(wrong, 100);
}

}  // namespace
}  // namespace ibsm
