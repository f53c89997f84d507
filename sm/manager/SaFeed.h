// The SA's view of a sweep: the snapshot SaResponder answers from, made of
// what the sweep programmed (its plan: LIDs, LFTs, PKeys, SL2VL) and what
// the ports hold (the held subnet's PortInfo and SwitchInfo), after every
// sweep that programmed (SmDaemon::onSubnetProgrammed). Queries in the
// middle of a sweep keep answering from the last snapshot; the new one
// replaces it whole.
#pragma once

#include <ibsm/MadAttributes.h>

#include <memory>
#include <set>
#include <vector>

#include "sm/control/StatusFormat.h"
#include "sm/manager/GroupSource.h"
#include "sm/manager/MasterSweep.h"
#include "sm/manager/SmDaemon.h"
#include "sm/program/HeldSubnet.h"
#include "sm/sa/SaResponder.h"
#include "sm/sa/SaSubnet.h"

namespace ibsm::sm::manager {

// nullptr when the result carries no plan (nothing was programmed).
[[nodiscard]] std::shared_ptr<const sa::SaSubnet> saSnapshot(const SweepResult& result,
                                                             const program::HeldSubnet& held,
                                                             const SmInfo& self,
                                                             const sa::SaSettings& settings);

// The VLArbitration blocks the held model knows (read after programming,
// sm/program/VlArbDiff.cpp), for the SA's VLArbitrationTableRecords.
[[nodiscard]] std::vector<sa::HeldVlArbBlock> heldVlArb(const program::HeldSubnet& held);

// The end ports in service after a sweep that programmed, by port GUID
// (what the SA's trap 64/65 compare, sm/sa/Notifier.h): CA and router
// ports with a LID in the plan that the port, as last read or set, holds
// ACTIVE; switch ports 0 with a LID (they carry no link of their own). And
// the SM port's LID in the plan, the notices' issuer.
struct PortsInService {
  std::set<Guid> ports;
  Lid smLid{};
};
[[nodiscard]] PortsInService portsInService(const SweepResult& result,
                                            const program::HeldSubnet& held);

// The SA's multicast groups as the daemon manages them (SmDaemon::
// manageMulticast): routes and generation from its McGroups, the
// configuration's groups pre-created, traps 66/67's events, and members
// gone with their port -- absent from the fabric a sweep found, or Down.
[[nodiscard]] std::shared_ptr<GroupSource> multicastGroupsOf(
    std::shared_ptr<sa::SaResponder> responder);

// What the SA counts and holds, by name, into the status's `sa`.
void describeSa(const sa::SaResponder& responder, control::SaStatus& out);

}  // namespace ibsm::sm::manager
