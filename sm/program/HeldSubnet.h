// The one model of what the subnet holds, as far as the SM knows: the last
// observation (a discovery, or the held one edited by a light sweep) as
// replies have since changed it, and for each kind of table the blocks
// known, unknown or stale. Programming is diff(plan, held) (Diff.h), then
// send, then apply() of each reply -- the one place that records what a
// reply proves a device now holds. It outlives sweeps (MasterSweep keeps
// one), so a second sweep sends only what changed.
//
//   HeldSubnet held;
//   held.observe(discovery.run());                // each heavy sweep
//   auto d = diff(plan, held, options);           // pure
//   for (step : d->phase(...)) ... held.apply(step, reply);
//   held.observed().portInfo.at(port).lid        // what the port holds now
//
// What an observation changes (observe()):
// - a switch seen for the first time, or whose LinearFDBTop is not what the
//   SM last wrote or read (it rebooted, or another SM programmed it), is
//   taken afresh: with LinearFDBTop 0 it forwards nothing; otherwise its
//   blocks up to LinearFDBTop are Unknown (read before writing) and those
//   past it Stale (written outright) -- unless its port 0 names another SM
//   as MasterSMLID (a takeover): then every block is Stale. A read costs
//   what a write does (one SMP a block) and is followed by the write
//   wherever the tables differ, so writing outright never sends more, and
//   sends half where the other SM routed otherwise (OpenSM's minhop against
//   ftree); reading pays only where this SM wrote the tables (a restart):
//   a fabric that holds the plan is then sent no Set. Its MFT blocks are all Stale: written
//   outright where the plan uses them. Reading first would cost a Get per
//   block and then the Set anyway on a fresh fabric (empty tables), twice
//   what OpenSM sends, which writes every block of the MLIDs in use;
//   writing outright costs at most that. But on a switch first seen with no
//   LID and no M_Key (no SM configured it since its reset) they are Known
//   empty, as the reset leaves them: only the blocks a tree fills are
//   written (issue 32: 1,440 Sets of empty blocks at radix 24);
// - a node that holds no LID (on switch port 0, or on a CA port) was reset:
//   its PKey, SL2VL and VLArbitration tables are back to the vendor's defaults, so what was
//   known of them is dropped (read again before writing), and so is the
//   quirk below; a switch's MFT blocks are Stale again;
// - a port whose PKey table now has another number of blocks is dropped too;
// - but a node seen for the first time with no LID and no M_Key (one no SM
//   has configured since its reset) has its PKey tables Known to hold the
//   reset's contents (IBA 10.9.2: 0xFFFF at index 0, every other entry 0),
//   so a plan that wants the default partition only sends them nothing, and
//   any other plan writes them unread. Read first (Unknown) are the tables
//   of a port that holds a LID or an M_Key (an SM configured it: a restart,
//   or a takeover after forget()), and of a node tracked before that lost
//   its LID (what this SM wrote may or may not have been reset). A plan that
//   changes (partitions.conf) writes only the blocks it changes, against
//   what was written or read.
// - the SL2VL tables of a switch or CA port seen with no LID and no M_Key
//   are Stale (written outright) until the node holds a LID: the IBA leaves
//   their reset contents to the vendor, and a table is one block, so a read
//   costs what the write does and is followed by it wherever they differ
//   (issue 32: a Get and a Set per CA port at bring-up on layered fabrics,
//   ibsim's reset tables map SL n to VL n). Once the node holds a LID, a
//   table not yet written is read first, as after a restart.
// What a reply proves (apply()): an answered Get or an acknowledged Set
// means the device holds what the reply carries (a Set's reply carries the
// attribute as the device now has it), so that is recorded -- not what was
// asked. A failed Set leaves the block Stale: written again, unread.
//
// Which CA ports should be told to re-register with the SA: those this
// model has not seen before -- every one on a master's first sweep and
// after forget() (takeover), later the ports that appear -- that advertise
// IsClientReregistrationSupported. A port stays due until a PortInfo Set
// carrying ClientReregister is acknowledged (a failed one is sent again).
//
// The device quirks kept here: a switch port that acknowledges a PortInfo
// Set but keeps its partition-enforcement bits (ibsim does) is remembered,
// and diff() stops asking it until the node is reset; so is a port that
// acknowledges a Set of its M_Key but answers with no key and no protect
// bits (ibsim keeps no M_Key): diff() stops writing it its key; and so is
// a port that acknowledges a Set of VLHighLimit but answers another (ibsim
// keeps none): diff() stops asking it for one, else every sweep would.
#pragma once

#include <ibsm/MadAttributes.h>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "sm/discovery/DiscoveredSubnet.h"
#include "sm/program/BlockTable.h"
#include "sm/program/ProgramSteps.h"
#include "sm/program/TableKinds.h"
#include "sm/security/KeyCache.h"

namespace ibsm::sm::program {

class HeldSubnet {
 public:
  // A new observation of the whole subnet; see the header comment.
  void observe(discovery::DiscoveredSubnet seen);
  // Another SM may have programmed the devices (takeover): the observation
  // and every table are forgotten; the next observe() starts afresh.
  void forget();

  bool hasObservation() const { return observed_.has_value(); }
  // Moves on with each observe() and forget() (never back to an earlier
  // value): what was worked out from one observation, e.g. which ports
  // show an M_Key (MKeyTakeover), is stale once it differs.
  std::uint64_t generation() const { return generation_; }
  // The observation as replies changed it. Only with hasObservation().
  const discovery::DiscoveredSubnet& observed() const { return *observed_; }
  // Descriptions read after the observation (its describedFromBefore, read
  // once up: discovery/Descriptions.h), by node; none is from before now.
  void describe(const std::vector<std::pair<NodeId, std::string>>& read);

  // What `reply` to `step` proves; see the header comment. Returns true when
  // the reply showed the enforcement quirk for the first time.
  bool apply(const ProgramStep& step, const SmpReply& reply);

  template <typename Kind>
  const BlockTable<typename Kind::Owner, typename Kind::Block>& table() const {
    return const_cast<HeldSubnet*>(this)->mutableTable<Kind>();
  }
  // What diff() and the read-ahead take a block to be: its table's state,
  // but an SL2VL table this model does not track on a node seen
  // unconfigured is Stale (see the header comment).
  template <typename Kind>
  BlockState state(const typename Kind::Owner& owner, std::uint16_t index) const {
    const BlockState s = table<Kind>().state(owner, index);
    if constexpr (std::is_same_v<Kind, Sl2VlKind>) {
      if (s == BlockState::Unknown && sl2vlAsReset(owner)) return BlockState::Stale;
    }
    return s;
  }
  // LinearFDBTop as the SM last wrote or read it; nullopt after a failed
  // SwitchInfo Set (then the next observation's value is taken as it is).
  std::optional<Lid> lftTop(Guid sw) const;
  bool ignoresEnforcement(PortKey port) const { return ignoresEnforcement_.contains(port); }
  bool reregisterDue(PortKey port) const { return reregisterDue_.contains(port); }
  bool keepsNoMKey(PortKey port) const { return keepsNoMKey_.contains(port); }
  bool keepsNoHighLimit(PortKey port) const { return keepsNoHighLimit_.contains(port); }
  // The M_Keys diff() writes, each port's HMAC worked out once per scheme
  // rather than once per diff (security/KeyCache.h; a memo, hence on a
  // const model). forget() starts an empty one, as a takeover must. The
  // daemon's loop thread only, as diff() runs there.
  security::KeyCache& keyCache() const { return *keyCache_; }

 private:
  template <typename Kind>
  BlockTable<typename Kind::Owner, typename Kind::Block>& mutableTable() {
    if constexpr (std::is_same_v<Kind, LftKind>) return lfts_;
    if constexpr (std::is_same_v<Kind, PKeyKind>) return pkeys_;
    if constexpr (std::is_same_v<Kind, Sl2VlKind>) return sl2vl_;
    if constexpr (std::is_same_v<Kind, VlArbKind>) return vlarb_;
    if constexpr (std::is_same_v<Kind, MftKind>) return mfts_;
  }
  template <typename Kind>
  void applyBlock(const BlockTarget<Kind>& target, const SmpReply& reply);
  bool applyPortInfo(PortRef port, const PortInfo& asked, const PortInfo& now);
  void applySwitchInfo(NodeId sw, Method method, const SmpReply& reply);
  void admitLfts(const discovery::DiscoveredSubnet& seen);
  void dropResetNodes(const discovery::DiscoveredSubnet& seen, const std::set<Guid>& newSwitches);
  void admitDefaultPKeys(const discovery::DiscoveredSubnet& seen, NodeId n, std::uint8_t port);
  void admitCaPorts(const discovery::DiscoveredSubnet& seen);
  void markSl2VlAsReset(const discovery::DiscoveredSubnet& seen, PortRef lidPort, PortKey key);
  bool sl2vlAsReset(const PortPairKey& owner) const {
    return sl2vlAsReset_.contains(PortKey{owner.node, 0}) ||
           (owner.in == 0 && sl2vlAsReset_.contains(PortKey{owner.node, owner.out}));
  }

  std::optional<discovery::DiscoveredSubnet> observed_;
  std::uint64_t generation_{0};
  BlockTable<Guid, LftBlock> lfts_;
  std::map<Guid, std::optional<Lid>> lftTops_;
  BlockTable<PortKey, PKeyBlock> pkeys_;
  BlockTable<PortPairKey, SlToVlTable> sl2vl_;
  BlockTable<PortKey, VlArbitrationBlock> vlarb_;
  BlockTable<Guid, MftBlock> mfts_;
  std::set<PortKey> ignoresEnforcement_;
  std::set<PortKey> keepsNoMKey_;
  std::set<PortKey> keepsNoHighLimit_;
  std::set<PortKey> caPortsSeen_;
  std::set<PortKey> reregisterDue_;
  // Whose SL2VL tables are as their reset left them: a switch (as port 0)
  // or a CA port seen with no LID and no M_Key. (A CA's ports are 1 and up.)
  std::set<PortKey> sl2vlAsReset_;
  std::shared_ptr<security::KeyCache> keyCache_ = std::make_shared<security::KeyCache>();
};

// PKey entries a port's table has: NodeInfo:PartitionCap for CA ports and
// switch port 0, SwitchInfo:PartitionEnforcementCap for switch external
// ports (0: the switch keeps none there).
std::uint16_t pkeyEntries(const discovery::DiscoveredSubnet& seen, NodeId n, std::uint8_t port);

}  // namespace ibsm::sm::program
