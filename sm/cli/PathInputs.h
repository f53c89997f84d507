// The tables `ibsm path` walks offline, as a value: a topology file routed
// as `ibsm route` routes it (same config, engines, LIDs and multicast
// planning), or the same file with the tables a dry run wrote (`--dir`:
// opensm-lfts.dump, guid2lid, and sl2vl.dump, mfts.dump and mcast-groups
// where present). The dry run records no topology: the operator gives the
// file it was made from, and a dump naming a switch it lacks is an error.
#pragma once

#include <ibsm/Error.h>
#include <ibsm/Fabric.h>
#include <ibsm/Multicast.h>
#include <ibsm/Routing.h>

#include <string>
#include <utility>
#include <vector>

#include "sm/cli/PathCommand.h"
#include "sm/mad/Gmp.h"

namespace ibsm::sm::cli {

struct OfflineTables {
  Fabric fabric;  // with LIDs
  std::vector<Lft> lfts;
  std::vector<Sl2VlEntry> sl2vl;
  std::vector<SwitchMft> mfts;
  std::vector<std::pair<Gid, Lid>> groups;  // MGID -> MLID
  std::vector<std::string> warnings;
};

// Needs args.topology. Errors name the file (and line) that was wrong.
[[nodiscard]] Result<OfflineTables> offlineTables(const PathArgs& args);

}  // namespace ibsm::sm::cli
