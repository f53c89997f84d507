// The tables `ibsm path` walks offline, as a value: a topology file routed
// as `ibsm route` routes it (same config, engines, LIDs and multicast
// planning), or the same file with the tables a dry run wrote (`--dir`:
// opensm-lfts.dump, guid2lid, and sl2vl.dump, pair-sls, mfts.dump and
// mcast-groups where present). The dry run records no topology: the operator gives the
// file it was made from, and a dump naming a switch it lacks is an error.
// The QoS policy (--qos-policy, else qos.policy_file) is resolved on the
// fabric as `ibsm route` resolves it, for the SL the SA would answer; the
// SL2VL tables are those the plan programs (the engine's and, with
// qos.enabled, every port's QoS table: ProgrammedSl2Vl.h).
#pragma once

#include <ibsm/Error.h>
#include <ibsm/Fabric.h>
#include <ibsm/Multicast.h>
#include <ibsm/QosPolicy.h>
#include <ibsm/Routing.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sm/cli/PathCommand.h"
#include "sm/mad/Gmp.h"

namespace ibsm::sm::cli {

struct OfflineTables {
  Fabric fabric;  // with LIDs
  std::vector<Lft> lfts;
  std::vector<Sl2VlEntry> sl2vl;                  // as programmed: engine's and QoS
  std::vector<PairSl> pairSls;                    // the engine's (--dir: pair-sls), sorted
  std::shared_ptr<const qos::ResolvedQos> qos{};  // null: no policy
  std::vector<SwitchMft> mfts;
  std::vector<std::pair<Gid, Lid>> groups;  // MGID -> MLID
  std::vector<std::string> warnings;
};

// Needs args.topology. Errors name the file (and line) that was wrong.
[[nodiscard]] Result<OfflineTables> offlineTables(const PathArgs& args);

}  // namespace ibsm::sm::cli
