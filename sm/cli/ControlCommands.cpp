#include "sm/cli/ControlCommands.h"

#include <fmt/format.h>

#include "sm/config/ConfigInUse.h"
#include "sm/config/ControlSocket.h"
#include "sm/control/ControlClient.h"

namespace ibsm::sm::cli {
namespace {

// --socket wins; else the socket the daemon was configured with, read from
// the same config file (so a non-default path needs no flag); else the
// default. Of the file only sm.control_socket counts (ControlSocket.h): a
// typo elsewhere is a warning, never a lock-out.
Result<std::filesystem::path> socketPath(std::string_view command, const ControlArgs& args) {
  if (args.socket) return *args.socket;
  auto socket = config::controlSocketOf(args.config);
  if (!socket) return std::unexpected(socket.error());
  for (const auto& w : socket->warnings) fmt::print(stderr, "ibsm {}: warning: {}\n", command, w);
  return socket->path;
}

int ask(std::string_view command, const ControlArgs& args, std::string_view line) {
  auto socket = socketPath(command, args);
  if (!socket) {
    fmt::print(stderr, "ibsm {}: {}\n", command, socket.error().message);
    return 2;
  }
  auto answer = control::request(*socket, line);
  if (!answer) {
    fmt::print(stderr, "ibsm {}: {}\n", command, answer.error().message);
    return 2;
  }
  if (answer->starts_with("error:")) {
    // "ibsm sweep: refused: changing requests need root (...)": the daemon
    // answered, but not this user.
    constexpr std::string_view kError = "error: ";
    const std::string_view text(*answer);
    fmt::print(stderr, "ibsm {}: {}", command,
               text.substr(text.starts_with("error: refused:") ? kError.size() : 0));
    return 1;
  }
  fmt::print("{}", *answer);
  return 0;
}

void addCommon(CLI::App* cmd, ControlArgs& args) {
  cmd->add_option("--socket", args.socket,
                  "Daemon's control socket (default: sm.control_socket of the config)");
  cmd->add_option("-F,--config", args.config,
                  fmt::format("TOML config to read sm.control_socket from (default {} if present)",
                              config::kDefaultConfigPath));
}

}  // namespace

void addStatusCommand(CLI::App& app, ControlArgs& args) {
  auto* cmd = app.add_subcommand("status", "Show the running daemon's state and last sweeps");
  addCommon(cmd, args);
  cmd->add_flag("--json", args.json, "Print one JSON object instead of key: value lines");
}

void addSweepCommand(CLI::App& app, ControlArgs& args) {
  auto* cmd = app.add_subcommand("sweep", "Ask the running daemon to sweep now");
  addCommon(cmd, args);
  cmd->add_flag("--heavy", args.heavy,
                "Rediscover the whole fabric and reroute (default: a light sweep)");
  cmd->add_flag("--rebalance", args.rebalance,
                "A heavy sweep whose routes are computed afresh for the whole fabric, rather "
                "than kept through the changes since the last fresh computation");
  cmd->add_option("--readmit", args.readmit,
                  "Put an isolated link back into the routes now: GUID/port or "
                  "'\"node description\"[port]'");
}

void addHealthCommand(CLI::App& app, ControlArgs& args) {
  auto* cmd = app.add_subcommand(
      "health", "Show the fabric's health: unhealthy ports and links, the counter sweep");
  addCommon(cmd, args);
  auto* json = cmd->add_flag("--json", args.json,
                             "Print the whole health view (every port's counters) as JSON");
  cmd->add_flag("--ports", args.ports,
                "List every port's error counters, totals and rates, and data rates")
      ->excludes(json);
}

void addMetricsCommand(CLI::App& app, ControlArgs& args) {
  auto* cmd = app.add_subcommand(
      "metrics", "Print the daemon's Prometheus metrics (what health.metrics_file holds)");
  addCommon(cmd, args);
}

void addLogLevelCommand(CLI::App& app, ControlArgs& args) {
  auto* cmd = app.add_subcommand(
      "log-level",
      "Set the running daemon's log level now (shown by ibsm status; a SIGHUP re-applies the "
      "configuration's log.level)");
  addCommon(cmd, args);
  cmd->add_option("LEVEL", args.level, "trace, debug, info, warn, error, critical or off")
      ->required();
}

int runStatus(const ControlArgs& args) {
  return ask("status", args, args.json ? "status json" : "status");
}

int runSweep(const ControlArgs& args) {
  if (!args.readmit.empty()) return ask("sweep", args, "sweep readmit " + args.readmit);
  if (args.rebalance) return ask("sweep", args, "sweep rebalance");
  return ask("sweep", args, args.heavy ? "sweep heavy" : "sweep");
}

int runHealth(const ControlArgs& args) {
  if (args.json) return ask("health", args, "health json");
  return ask("health", args, args.ports ? "health ports" : "health");
}

int runMetrics(const ControlArgs& args) {
  return ask("metrics", args, "metrics");
}

void addControlSocketOptions(CLI::App* cmd, ControlArgs& args) {
  addCommon(cmd, args);
}

Result<std::filesystem::path> controlSocketPath(std::string_view command, const ControlArgs& args) {
  return socketPath(command, args);
}

}  // namespace ibsm::sm::cli

namespace ibsm::sm::cli {

int runLogLevel(const ControlArgs& args) {
  return ask("log-level", args, "log-level " + args.level);
}

void addKeysCommand(CLI::App& app, ControlArgs& args) {
  auto* cmd = app.add_subcommand("keys", "M_Keys of the running daemon");
  cmd->require_subcommand(1);
  auto* rotate = cmd->add_subcommand(
      "rotate",
      "Move every port to M_Keys of a new secret (root only): the previous secret is kept until "
      "every port holds its new key; progress in ibsm status (m_keys)");
  addCommon(rotate, args);
}

int runKeys(const ControlArgs& args) {
  return ask("keys rotate", args, "keys rotate");
}

}  // namespace ibsm::sm::cli
