// `ibsm status`, `ibsm sweep`, `ibsm health`, `ibsm metrics`, `ibsm log-level` and `ibsm keys
// rotate`: what an operator types to ask a running daemon how the subnet and its links are,
// and to make it sweep (or rotate its M_Keys) now. All talk to the daemon's control socket
// (sm/control), never to the fabric.
#pragma once

#include <ibsm/Error.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <optional>
#include <string>

namespace ibsm::sm::cli {

struct ControlArgs {
  std::optional<std::filesystem::path> socket;  // else the config's sm.control_socket
  std::optional<std::filesystem::path> config;
  bool json{false};       // status --json, health --json
  bool ports{false};      // health --ports
  bool heavy{false};      // sweep --heavy
  bool rebalance{false};  // sweep --rebalance
  std::string readmit;    // sweep --readmit LINK: an isolated link back into the routes
  std::string level;      // log-level LEVEL
};

void addStatusCommand(CLI::App& app, ControlArgs& args);
void addSweepCommand(CLI::App& app, ControlArgs& args);
void addHealthCommand(CLI::App& app, ControlArgs& args);
void addMetricsCommand(CLI::App& app, ControlArgs& args);
void addLogLevelCommand(CLI::App& app, ControlArgs& args);
void addKeysCommand(CLI::App& app, ControlArgs& args);
// Exit status: 0 answered; 1 the daemon answered with an error; 2 no daemon
// (nothing listens on the socket, or it did not answer) or bad input.
int runStatus(const ControlArgs& args);
int runSweep(const ControlArgs& args);
int runHealth(const ControlArgs& args);
int runMetrics(const ControlArgs& args);
int runLogLevel(const ControlArgs& args);
int runKeys(const ControlArgs& args);

// For other commands that ask the daemon (`ibsm dump`): the --socket and
// -F/--config options, and the socket they name, as the commands above
// take them.
void addControlSocketOptions(CLI::App* cmd, ControlArgs& args);
[[nodiscard]] Result<std::filesystem::path> controlSocketPath(std::string_view command,
                                                              const ControlArgs& args);

}  // namespace ibsm::sm::cli
