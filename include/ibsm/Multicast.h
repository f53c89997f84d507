// Multicast: the groups the SA keeps and the pure planner that turns a
// Fabric and those groups into every switch's multicast forwarding table,
// shared by the live SM and the dry run (as planSubnet() is for unicast).
//
//   auto groups = partition::multicastGroups(config);       // pre-created
//   std::vector<McGroupRoute> routes = sa.groups().routes();  // live joins
//   auto plan = planMulticast(fabric, routes);               // pure
//   subnetPlan.multicast = std::move(*plan);                 // sm/program diffs it
//   for (auto& p : checkMulticast(fabric, subnetPlan.multicast->mfts, routes)) ...
//
// A group's tree is a spanning tree of the switches that lead to its
// members: every member that receives gets exactly one copy of a packet any
// member sends, no packet comes back to a switch it left, and no port that
// leads to no receiver (a non-member CA, a dead branch) is in a mask.
#pragma once

#include <ibsm/Error.h>
#include <ibsm/Fabric.h>
#include <ibsm/Ids.h>

#include <bitset>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ibsm {

// MCMemberRecord:JoinState bits (IBA 15.2.5.17).
namespace joinState {
inline constexpr std::uint8_t kFull = 1U << 0;
inline constexpr std::uint8_t kNonMember = 1U << 1;
inline constexpr std::uint8_t kSendOnlyNonMember = 1U << 2;
inline constexpr std::uint8_t kSendOnlyFull = 1U << 3;
// The bits that receive what the group carries (the others only send).
inline constexpr std::uint8_t kReceives = kFull | kNonMember;
// The bits that create a group and keep it alive.
inline constexpr std::uint8_t kKeepsAlive = kFull | kSendOnlyFull;
}  // namespace joinState

// Multicast LIDs: 0xC000 up to 0xFFFE (0xFFFF is the permissive LID).
inline constexpr Lid kFirstMlid{0xC000};
inline constexpr Lid kLastMlid{0xFFFE};

// Multicast address scopes (the MGID's second byte, low nibble).
namespace mcScope {
inline constexpr std::uint8_t kLinkLocal = 0x2;
inline constexpr std::uint8_t kSiteLocal = 0x5;
inline constexpr std::uint8_t kOrganizationLocal = 0x8;
inline constexpr std::uint8_t kGlobal = 0xE;
}  // namespace mcScope

// What a group is created with and every join must agree with. Codes as
// the IBA writes them (mtu 4 = 2048, rate 3 = 10 Gb/s).
struct McGroupParams {
  std::uint32_t qkey{0x0b1b};
  std::uint16_t pkey{0xffff};  // membership bit set, as a full member presents it
  std::uint8_t mtu{4};
  std::uint8_t rate{3};
  std::uint8_t sl{0};
  std::uint8_t tclass{0};
  std::uint32_t flowLabel{0};
  std::uint8_t hopLimit{0};
  std::uint8_t packetLifeTime{18};
  std::uint8_t scope{mcScope::kLinkLocal};
  auto operator<=>(const McGroupParams&) const = default;
};

// A group the configuration creates before anyone joins (partitions.conf:
// the IPoIB broadcast group of an `ipoib` partition, `mgid=` lines). It
// lives with no member, and its parameters are the configuration's.
struct McGroupSpec {
  Gid mgid{};
  McGroupParams params;
  std::string where;  // "file:line" that asked for it
  bool operator==(const McGroupSpec&) const = default;
};

// The IPoIB broadcast group of a partition: ff1<scope>:401b:<pkey>::ffff:ffff
// (RFC 4391), PKey with the membership bit set.
Gid ipoibBroadcastMgid(std::uint16_t pkey, std::uint8_t scope = mcScope::kLinkLocal);

// One member as routing sees it: the port by its GUID and whether it only
// sends (SendOnly*), whose own port then gets no copies but whose switch
// must still reach the tree.
struct McRouteMember {
  Guid portGuid;
  bool receives{true};
  auto operator<=>(const McRouteMember&) const = default;
};

// A group to route: its MLID and its members (sorted by GUID).
struct McGroupRoute {
  Gid mgid{};
  Lid mlid;
  std::vector<McRouteMember> members;
};

// Ports 0..255 of a switch, bit i = port i (MFT entries cover 16 positions
// of 16 ports).
using McPortMask = std::bitset<256>;

// What every switch should forward, by MLID: the entries that are not
// empty. Index = NodeId; empty for non-switches.
struct SwitchMft {
  std::map<std::uint16_t, McPortMask> entries;
};

struct McTree {
  Lid mlid;
  // The central switch the tree grows from (nullopt: no member in the
  // fabric). When every member hangs below one of its branches the tree is
  // cut at the first switch where branches meet, so the root itself may
  // hold no entry; `switches` counts the switches below the cut.
  std::optional<NodeId> root;
  std::size_t switches{0};   // in the tree
  std::size_t receivers{0};  // member ports that get copies
};

struct MulticastPlan {
  std::vector<SwitchMft> mfts;        // index = NodeId
  std::vector<McTree> trees;          // one per group routed, by MLID
  std::vector<std::string> warnings;  // members not in the fabric...
  // Trees planned along MulticastOptions::upDownOrder: each part of one
  // rooted at the order's first switch (the other groups' trees spread).
  std::size_t alongUpDown{0};
};

// What planMulticast() derives from the topology alone: the switch graph,
// where trees are rooted (the most central switches: a BFS from every
// switch, 256 switches to a pass, most of a plan's time on a large fabric)
// and the hops from those roots. Given to successive plans, it is computed again only when the
// switch graph differs from the one it was computed on (compared in full,
// not hashed), so the SM's passes for joins and leaves do not redo it.
// Opaque; not thread-safe: one per planner.
class McTopologyCache {
 public:
  McTopologyCache();
  ~McTopologyCache();
  McTopologyCache(McTopologyCache&&) noexcept;
  McTopologyCache& operator=(McTopologyCache&&) noexcept;
  // Plans that reused it and plans that (re)computed it, for tests.
  std::uint64_t reused() const;
  std::uint64_t computed() const;

  struct State;
  std::unique_ptr<State> state;
};

struct MulticastOptions {
  // Spread the trees' roots over the most central switches (default), or
  // root every tree at the one most central switch (OpenSM's choice, kept
  // for comparisons).
  bool spreadRoots{true};
  // Every tree a subtree of one: rooted at the most central switch, each
  // switch climbing the same cable for every group (routing/multicast/
  // McTreeBuilder.h OneTree). Where the trees share a VL with unicast routes
  // (RoutingResult::treesShareVl): the engine proved that tree's turns free
  // of credit loops with them. Overrides spreadRoots.
  bool oneTree{false};
  // The order the routes climb, then descend in (RoutingResult::upDownOrder:
  // updn's, ftree's hub order; not owned). A group whose spread tree could,
  // for some membership, pass copies down into a switch and up out of it
  // (routing/multicast/McUpDownTree.h OrderCheck: decided from its MLID's
  // root and rotation, never from its members, so joins move no tree to
  // the other plan) is planned as part of one tree that only descends from
  // the order's first switch: with the routes, no credit loop on one VL
  // (MulticastPlan::alongUpDown counts those groups).
  const std::vector<std::uint32_t>* upDownOrder{nullptr};
  // Not owned; nullptr: computed for this plan alone.
  McTopologyCache* cache{nullptr};
};

// Pure. A group whose members are all outside the fabric gets no tree and
// a warning; a member port that is not a CA or router port is a warning.
[[nodiscard]] Result<MulticastPlan> planMulticast(const Fabric& fabric,
                                                  const std::vector<McGroupRoute>& groups,
                                                  const MulticastOptions& options = {});

// What is wrong with `mfts` for `groups`, one line each (empty: every tree
// is right): a receiver reached twice or never from some member, a loop, a
// port in a mask that leads to no receiver, an MLID in a table that no
// group uses. The report's multicast check and the tests' judge.
std::vector<std::string> checkMulticast(const Fabric& fabric, const std::vector<SwitchMft>& mfts,
                                        const std::vector<McGroupRoute>& groups);

}  // namespace ibsm
