// `ibsm route`: the offline dry run. Reads a topology file, runs the same
// LID assignment and routing as the live SM, writes OpenSM-compatible dumps
// and a quality report computed by walking the tables it produced.
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ibsm::sm::cli {

struct RouteArgs {
  std::filesystem::path topology;
  std::vector<std::string> engines;  // empty: from the config
  std::optional<std::filesystem::path> guid2lid;
  std::optional<int> lmc;
  std::optional<std::filesystem::path> rootGuids;
  // Absent: a new directory ./ibsm-route-YYYYmmdd-HHMMSS (RouteOutput.h).
  std::optional<std::filesystem::path> out;
  bool force{false};  // replace outputs in --out that ibsm route did not write
  std::optional<std::filesystem::path> config;
  std::optional<std::filesystem::path> partitions;  // else sm.partitions_file of the config
  std::optional<std::filesystem::path> qosPolicy;   // else qos.policy_file of the config
  // The tables the fabric held before, and the fabric they were routed for:
  // the report then says what this run's tables would move.
  std::optional<std::filesystem::path> previous;
  std::optional<std::filesystem::path> previousTopology;
  bool rebalance{false};  // with --previous: fresh tables, compared only
  // Links routed around as the live SM's health policy isolates them
  // (health::isolateLinks): one end each, GUID/port or "node"[port].
  std::vector<std::string> isolate;
  bool json{false};
  bool check{false};
  // opensm: opensm-lfts.dump, as OpenSM reads it; compact: lfts.ibsm
  // (LftFiles.h), a fraction of the size and time on large fabrics.
  std::string dumpFormat{"opensm"};
  std::optional<unsigned> threads;  // else routing.threads of the config
};

void addRouteCommand(CLI::App& app, RouteArgs& args);
// Exit status: 0 done; 1 --check found unrouted pairs, a credit loop or a
// multicast tree problem;
// 2 bad input (nothing written).
int runRoute(const RouteArgs& args);

}  // namespace ibsm::sm::cli
