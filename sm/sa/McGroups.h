// The multicast groups the SA keeps (IBA 15.2.5.17, o15-0.1.x and
// o15-0.2.x): ports join them with Set(MCMemberRecord), leave with Delete,
// and find them with Get/GetTable. Like the ServiceRecords they are the
// SA's own state, so they live in the SaResponder across snapshots; each
// request is checked against the snapshot it arrives on (the ports, their
// PKeys, MTUs and rates).
//
//   McGroups groups;
//   groups.setPrecreated(partition::multicastGroups(config));  // IPoIB broadcast...
//   auto answer = groups.join(subnet, {.record = r, .mask = m, .requester = port});
//   if (!answer) refuse(answer.error());                        // IBA status, nothing changed
//   if (groups.generation() != seen) program(planMulticast(fabric, groups.routes()));
//   for (const McGroupEvent& e : groups.takeEvents()) notifier...;  // traps 66/67
//
// Rules: JoinState bits OR on repeated joins and a Delete clears exactly
// the bits it names (bits the port does not hold: REQ_INVALID); only Full
// and SendOnlyFull members create a group and keep it alive, and a group
// left with neither is deleted, its MLID free again, unless the
// configuration pre-creates it. A refused request changes nothing.
// Not thread-safe: used on the thread that answers the SA's MADs.
#pragma once

#include <ibsm/Multicast.h>

#include <cstdint>
#include <expected>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "sm/sa/SaRecords.h"
#include "sm/sa/SaSubnet.h"

namespace ibsm::sm::sa {

struct McMember {
  Guid portGuid;
  Gid portGid{};  // as the port joined, with the subnet's prefix
  std::uint8_t joinState{0};
  bool proxyJoin{false};  // joined by another port on its behalf
};

struct McGroup {
  Gid mgid{};
  Lid mlid;
  McGroupParams params;
  bool precreated{false};
  std::map<Guid, McMember> members;
  // Whether some member keeps the group alive (Full or SendOnlyFull).
  bool kept() const;
};

// The parameters a group is answered and matched with on `subnet`: its
// own, but with a QoS policy the SL of its partition's level -- the level
// a PathRecord query naming only the group's PKey gets (the first rule
// that matches that PKey alone, else DEFAULT). The level's SL wins over
// the partition config's `sl` and the creator's, as it does for the
// partition's PathRecords (OpenSM's pr_rcv_get_path_parms: "QoS level SL
// overrides partition SL"), so that a partition's unicast and multicast
// share an SL. (OpenSM up to 3.3.20 likewise rewrote the SL of a
// partition's groups from the rules naming its PKey, the last one
// winning; since 2016, commit 2f4713da, it leaves group SLs alone.) Held
// per snapshot, not in the group: a new policy applies to existing groups.
// Over both, the engine's: where the routing's SL2VL drops that SL at some
// turn (ftree-vl's SL 0 where a route would descend then climb), the group
// is answered the lowest SL no turn drops (routing/multicast/McSl.h), so
// that its tree reaches members above the leaves; a join naming another SL
// in its component mask is refused with REQ_INVALID, as any join whose
// components do not match the group (o15-0.2.4).
McGroupParams paramsOn(const SaSubnet& subnet, const McGroup& group);

// A group created or deleted, for traps 66 and 67.
struct McGroupEvent {
  enum class Kind : std::uint8_t { Created, Deleted };
  Kind kind{Kind::Created};
  Gid mgid{};
  Lid mlid;
  std::uint16_t pkey{0};  // the group's partition: who may hear of it
  bool operator==(const McGroupEvent&) const = default;
};

// One MCMemberRecord request: the record, its component mask, the port the
// MAD came from and whether it presented the SA key (a trusted requester
// sees every member in a GetTable, the others one record per group).
struct McRequest {
  McMemberRecord record;
  std::uint64_t mask{0};
  PortRef requester;
  bool trusted{false};
};

using McAnswer = std::expected<McMemberRecord, std::uint16_t>;

class McGroups {
 public:
  // Set: joins the port of PortGID to the group of MGID, creating it when
  // no group has that MGID (a zero MGID: one the SA assigns). The answer
  // is the group's record with the port's JoinState after the join.
  [[nodiscard]] McAnswer join(const SaSubnet& subnet, const McRequest& request);
  // Delete: clears the JoinState bits named; the answer carries the bits
  // the port still holds (0: it left).
  [[nodiscard]] McAnswer leave(const SaSubnet& subnet, const McRequest& request);
  // Get/GetTable: the records matching the request's components, in MGID
  // order. A requester sees only groups of partitions it belongs to.
  std::vector<McMemberRecord> find(const SaSubnet& subnet, const McRequest& request) const;

  // The groups the configuration creates (load and reload): new ones are
  // created (their MLIDs the first free ones), existing ones keep their
  // MLID and members -- and their parameters while they have members --
  // and become pre-created; those no longer listed lose the flag and go
  // when no member keeps them.
  // Returns the specs that got no group, for want of a free MLID.
  std::size_t setPrecreated(const std::vector<McGroupSpec>& specs);
  // A port left the fabric: it leaves every group as if it had sent the
  // Deletes. Returns the memberships dropped.
  std::size_t dropPort(Guid portGuid);
  // This SM is no longer master: every member leaves, and every group not
  // pre-created goes with its MLID (the next master learns them again from
  // the hosts' re-registration; a group this SM kept would be stale when
  // it is master again). Pre-created groups stay, empty. Deleted events
  // are recorded as for any deletion: the caller, no longer master, drops
  // them. Returns the memberships dropped.
  std::size_t forgetJoins();

  // Every group with its MLID and members (receives: Full or NonMember),
  // by MGID; pre-created groups without members too.
  std::vector<McGroupRoute> routes() const;
  // Changes whenever routes() would return something else.
  std::uint64_t generation() const { return generation_; }
  // Groups created and deleted since the last call, in order.
  std::vector<McGroupEvent> takeEvents() { return std::exchange(events_, {}); }

  const McGroup* group(const Gid& mgid) const;
  std::size_t size() const { return groups_.size(); }
  std::uint64_t created() const { return created_; }
  std::uint64_t deleted() const { return deleted_; }
  // Joins refused because the port was already a member of
  // SaSettings::maxJoinsPerPort groups.
  std::uint64_t refusedOverCap() const { return refusedOverCap_; }
  // The groups `portGuid` is a member of.
  std::size_t membershipsOf(Guid portGuid) const;

 private:
  std::expected<McGroup, std::uint16_t> create(const SaSubnet& subnet, const McRequest& request,
                                               PortRef port);
  std::expected<Lid, std::uint16_t> allocateMlid(std::uint64_t mask, Lid requested) const;
  Gid assignMgid(const SaSubnet& subnet, std::uint8_t scope);
  void add(McGroup group);
  // Deletes the group when nothing keeps it.
  void collect(const Gid& mgid);
  void changed() { ++generation_; }

  std::map<Gid, McGroup> groups_;
  std::set<std::uint16_t> mlids_;  // in use
  std::vector<McGroupEvent> events_;
  std::uint64_t generation_{0};
  std::uint64_t created_{0};
  std::uint64_t deleted_{0};
  std::uint64_t refusedOverCap_{0};
  std::uint32_t nextAssigned_{0};  // the last 32 bits of the next SA-assigned MGID
};

}  // namespace ibsm::sm::sa
