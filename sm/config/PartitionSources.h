// The partitions an SM manages, read from their sources by one function so
// that `ibsm partitions` shows exactly what `ibsm run` programs (at start and
// on SIGHUP). The rule, the daemon's:
//   - the partitions file is --partitions, else sm.partitions_file of the
//     config in use;
//   - the [[partition]] tables of that config are added to it; a PKey (or
//     name) both define differently is an error naming both places;
//   - neither names a partition: the default partition as OpenSM manages it
//     then, `Default=0x7fff, ipoib : ALL=full` (partition::
//     defaultPartitionConfig()), so IPoIB's broadcast group exists out of
//     the box. A partitions file that defines nothing counts as named: the
//     planner then adds 0x7fff as OpenSM does beside a file (ALL limited,
//     the SM full, no broadcast group).
// Read in full before anything is sent, so a bad file refuses start-up and,
// on SIGHUP, keeps the running partitions.
#pragma once

#include <ibsm/Error.h>
#include <ibsm/Partitions.h>

#include <filesystem>
#include <optional>

#include "sm/config/ConfigInUse.h"

namespace ibsm::sm::config {

[[nodiscard]] Result<partition::PartitionConfig> readPartitionSources(
    const ConfigInUse& config, const std::optional<std::filesystem::path>& partitionsFile);

}  // namespace ibsm::sm::config
