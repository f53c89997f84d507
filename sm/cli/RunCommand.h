// `ibsm run`: the live master SM. Everything the run needs (config, state,
// port) is read and checked before the first SMP goes out, so bad input
// changes nothing on the fabric.
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ibsm::sm::cli {

struct RunArgs {
  std::optional<std::filesystem::path> config;
  std::optional<std::filesystem::path> partitions;  // overrides sm.partitions_file
  std::optional<std::filesystem::path> qosPolicy;   // overrides qos.policy_file
  std::optional<std::string> guid;
  // --port: a port GUID or device:port ("mlx5_0:1"), what ibsm@.service's
  // instance name holds.
  std::optional<std::string> port;
  std::optional<std::filesystem::path> controlSocket;  // overrides sm.control_socket
  std::optional<int> priority;
  std::vector<std::string> engines;
  std::optional<int> lmc;
  bool once{false};
  std::optional<std::filesystem::path> stateDir;
  std::optional<std::filesystem::path> logFile;
  std::optional<std::string> logLevel;
  // Where to write the final status (StatusFormat's JSON, with `exit`) when
  // the run ends: --once has no control socket to ask.
  std::optional<std::filesystem::path> stats;
};

void addRunCommand(CLI::App& app, RunArgs& args);
// Exit status: 0 subnet up (--once) or clean stop (daemon); 1 the subnet
// could not be brought up (--once: also another SM has it, or a signal
// stopped it first); 2 bad input, nothing sent. Daemon and --once run the
// same SmDaemon (sm/manager/SmDaemon.h says how it is wired).
int runRun(const RunArgs& args);

}  // namespace ibsm::sm::cli
