// What the daemon answers to `ibsm dump KIND`: the tables the switches hold
// as far as the master knows them (HeldSubnet: every block a Set was
// acknowledged for or a Get read back), on the fabric and LIDs of its last
// plan, written by the dry run's own formatters (Dumps.h, Lids.h) so that
// a dump of a fabric that holds its plan is byte for byte the dry run's
// file of the same kind:
//
//   lfts      opensm-lfts.dump (LIDs 0..the plan's highest; entries past a
//             switch's LinearFDBTop are left out, as it forwards none)
//   mfts      mfts.dump (`ibroute -M`'s format)
//   guid2lid  guid2lid (the LIDs the plan assigned and programming wrote)
//   sl2vl     sl2vl.dump: the tables the plan programs (ProgrammedSl2Vl.h:
//             the engine's (switch, in port, out port) tables, and with
//             QoS every port's), as held; empty when neither gives one
//
// A block the SM does not know (a Set that failed, not read yet) is left out:
// its LIDs are not listed. A function of two values the daemon keeps, so it
// is tested without a daemon.
#pragma once

#include <ibsm/Error.h>
#include <ibsm/SubnetPlan.h>

#include <string>

#include "sm/control/DumpRequest.h"
#include "sm/program/HeldSubnet.h"

namespace ibsm::sm::manager {

// Fails when there is no plan (no sweep has programmed yet, or the tables
// were forgotten at a takeover), or when this SM, which was master, is not
// now (`master` false: the master may have rewritten the tables since).
[[nodiscard]] Result<std::string> dumpHeldTables(control::DumpKind kind, const SubnetPlan* plan,
                                                 const program::HeldSubnet& held, bool master);

}  // namespace ibsm::sm::manager
