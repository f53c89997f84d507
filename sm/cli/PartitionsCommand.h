// `ibsm partitions`: the partition plan offline. Reads a topology file and
// the partitions exactly as `ibsm run` would with the same --config and
// --partitions (config::readPartitionSources), runs the planner the live SM
// uses and prints, per partition, its members and, per port, the PKey table
// it would program.
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <optional>
#include <string>

namespace ibsm::sm::cli {

struct PartitionsArgs {
  std::filesystem::path topology;
  std::optional<std::filesystem::path> partitions;  // overrides sm.partitions_file
  std::optional<std::filesystem::path> config;      // unset: the default path if present
  bool configByDashC{false};                        // given as -c, the deprecated spelling of -F
  std::optional<std::string> smGuid;                // the SM's port GUID: SELF, full in 0x7fff
};

void addPartitionsCommand(CLI::App& app, PartitionsArgs& args);
// Exit status: 0 the plan fits; 2 bad input or a plan that does not fit
// (a port beyond its PartitionCap), with file:line where there is one.
int runPartitions(const PartitionsArgs& args);

}  // namespace ibsm::sm::cli
