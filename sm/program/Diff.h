// Programming as a pure function: the SMPs that would make the subnet hold
// the plan, given what it is known to hold (HeldSubnet.h), grouped in
// OpenSM's phase order (ProgramSteps.h). No I/O; SubnetProgrammer sends them.
//
//   auto d = diff(plan, held, options);   // reads of blocks worth knowing, and every write
//   ... send d->phase(ProgramPhase::ReadTables), held.apply() each reply ...
//   settleAfterReads(plan, held, options, *d);  // the writes, now against what was read
//
// A block is read (ReadTables) when its contents are Unknown, and written
// when it is not Known to hold what the plan wants; so once the reads are
// in, settleAfterReads() drops the writes of blocks found holding the plan,
// and what is left is what a second diff() would give, for a fraction of
// its work (issue 32: a takeover at radix 24 spent ~70 ms on that diff). Which PortInfo fields are
// whose: a PortInfo Set writes back the PortInfo as held, changing only LID,
// LMC, MasterSMLID and GidPrefix (ports that carry a LID: switch port 0, CA
// ports), NeighborMTU and OperationalVLs (link ports still in Init),
// SubnetTimeout (LID-carrying ports; no Set for it alone), HOQLife (switch
// external ports, by what the cable leads to; with the state Sets of a port
// coming up, a Set of its own only on a port already up), ClientReregister
// (CA ports due, see HeldSubnet.h), PartitionEnforcementInbound/Outbound (switch
// external ports listed in plan.pkeys: on where `enforce` and the switch
// can, off otherwise; left as held on ports known to ignore them),
// VLHighLimit (ports plan.qosTables gives VLArbitration tables; left as
// held on ports known to keep none) and
// PortState (only in the state phases). Enable fields (width, speed,
// physical and link-down state) are written as 0, "no change", so a Set
// never retrains a link.
#pragma once

#include <ibsm/SubnetPlan.h>

#include <optional>
#include <set>
#include <vector>

#include "sm/program/HeldSubnet.h"
#include "sm/program/ProgramOptions.h"
#include "sm/program/ProgramSteps.h"

namespace ibsm::sm::program {

// Fails only when the plan was not made from the held observation (other
// nodes, PKey or SL2VL tables naming ports it lacks), nothing was observed,
// or the SM's port is not part of it. With plan.pkeys nullopt no PKey table
// is touched; with plan.routing.sl2vl empty and plan.qosTables nullopt no
// SL2VL table is, and no VLArbitration table or VLHighLimit is written.
//
// `scope` leaves out what the caller will not send: program() never sends
// ReadVlArb (tens of thousands of Gets made and dropped at a takeover:
// issue 32), readForSa() sends nothing else.
enum class DiffScope : std::uint8_t {
  All,
  Program,  // every phase but ReadVlArb
  SaReads,  // ReadVlArb only
};
[[nodiscard]] Result<ProgramDiff> diff(const SubnetPlan& plan, const HeldSubnet& held,
                                       const ProgramOptions& options,
                                       DiffScope scope = DiffScope::All);
// `d`, made by diff() before its ReadTables phase was sent and the replies
// applied to `held`, made what diff() would give now: the writes of blocks
// the reads found holding what the plan wants are dropped (a Set's bytes
// are the planned block); VLArbitration writes, whose blocks keep the
// entries past those QoS plans as read, are made again. The ReadTables
// phase is emptied. Nothing else in a diff depends on what was read.
[[nodiscard]] Result<void> settleAfterReads(const SubnetPlan& plan, const HeldSubnet& held,
                                            const ProgramOptions& options, ProgramDiff& d);
// Only the MFT phases of diff(), for `mfts` in place of plan.multicast:
// what a multicast pass between sweeps writes (a join or a leave changes
// nothing else, so the pass keeps the last plan and brings only its trees).
// Empty when `mfts` is null.
[[nodiscard]] Result<ProgramDiff> diffMulticast(const SubnetPlan& plan, const MulticastPlan* mfts,
                                                const HeldSubnet& held,
                                                const ProgramOptions& options);

// The PortStateChange phase (ProgramSteps.h): a SwitchInfo Set of each
// switch whose SwitchInfo, as `seen` holds it now, flags PortStateChange:
// that SwitchInfo with the flag written 1, so every other field is what the
// switch was last known to hold (this run's Sets included, HeldSubnet
// applies their replies). Computed after the Active phase, not by diff():
// the LinearFDBTop and MulticastFDBTop it carries are the ones written by
// then. `skip`: switches whose SwitchInfo or tables a failed write left
// unknown.
[[nodiscard]] std::vector<ProgramStep> portStateChangeClears(
    const discovery::DiscoveredSubnet& seen, const std::set<NodeId>& skip);

// A directed route that enters the node through `port`: the only way to
// Set a CA port (a CA accepts Sets of PortInfo only for the port the SMP
// came in on); any route to a switch does. nullopt when none is known.
std::optional<DrPath> pathToPort(const discovery::DiscoveredSubnet& seen, PortRef port);

}  // namespace ibsm::sm::program
