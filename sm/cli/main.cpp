// The ibsm command: builds each module from its inputs and runs the
// subcommand asked for. Wiring is explicit here; modules never reach for
// globals (the logger aside).
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>

#include "sm/cli/ConfigCommand.h"
#include "sm/cli/ControlCommands.h"
#include "sm/cli/DrawCommand.h"
#include "sm/cli/DumpCommand.h"
#include "sm/cli/PartitionsCommand.h"
#include "sm/cli/PathCommand.h"
#include "sm/cli/RouteCommand.h"
#include "sm/cli/RunCommand.h"
#include "sm/cli/TopoCommand.h"

int main(int argc, char** argv) {
  CLI::App app{"ibsm: InfiniBand subnet manager"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "ibsm 0.1.0");

  ibsm::sm::cli::RouteArgs route;
  ibsm::sm::cli::addRouteCommand(app, route);
  ibsm::sm::cli::RunArgs run;
  ibsm::sm::cli::addRunCommand(app, run);
  ibsm::sm::cli::TopoArgs topo;
  ibsm::sm::cli::addTopoCommand(app, topo);
  ibsm::sm::cli::PartitionsArgs partitions;
  ibsm::sm::cli::addPartitionsCommand(app, partitions);
  ibsm::sm::cli::DrawArgs draw;
  ibsm::sm::cli::addDrawCommand(app, draw);
  ibsm::sm::cli::PathArgs path;
  ibsm::sm::cli::addPathCommand(app, path);
  ibsm::sm::cli::ControlArgs status;
  ibsm::sm::cli::addStatusCommand(app, status);
  ibsm::sm::cli::ControlArgs sweep;
  ibsm::sm::cli::addSweepCommand(app, sweep);
  ibsm::sm::cli::ControlArgs health;
  ibsm::sm::cli::addHealthCommand(app, health);
  ibsm::sm::cli::ControlArgs metrics;
  ibsm::sm::cli::addMetricsCommand(app, metrics);
  ibsm::sm::cli::DumpArgs dump;
  ibsm::sm::cli::addDumpCommand(app, dump);
  ibsm::sm::cli::ControlArgs logLevel;
  ibsm::sm::cli::addLogLevelCommand(app, logLevel);
  ibsm::sm::cli::ControlArgs keys;
  ibsm::sm::cli::addKeysCommand(app, keys);
  ibsm::sm::cli::ConfigArgs configImport;
  ibsm::sm::cli::ConfigArgs configCheck;
  ibsm::sm::cli::addConfigCommand(app, configImport, configCheck);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version end here with 0; any other command-line mistake is
    // bad input, exit 2 as for bad files (CLI11's own codes run past 100).
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (app.got_subcommand("route")) return ibsm::sm::cli::runRoute(route);
  if (app.got_subcommand("run")) return ibsm::sm::cli::runRun(run);
  if (app.got_subcommand("topo")) return ibsm::sm::cli::runTopo(topo);
  if (app.got_subcommand("partitions")) return ibsm::sm::cli::runPartitions(partitions);
  if (app.got_subcommand("draw")) return ibsm::sm::cli::runDraw(draw);
  if (app.got_subcommand("path")) return ibsm::sm::cli::runPath(path);
  if (app.got_subcommand("status")) return ibsm::sm::cli::runStatus(status);
  if (app.got_subcommand("sweep")) return ibsm::sm::cli::runSweep(sweep);
  if (app.got_subcommand("health")) return ibsm::sm::cli::runHealth(health);
  if (app.got_subcommand("metrics")) return ibsm::sm::cli::runMetrics(metrics);
  if (app.got_subcommand("dump")) return ibsm::sm::cli::runDump(dump);
  if (app.got_subcommand("log-level")) return ibsm::sm::cli::runLogLevel(logLevel);
  if (app.got_subcommand("keys")) return ibsm::sm::cli::runKeys(keys);
  if (app.got_subcommand("config")) return ibsm::sm::cli::runConfig(app, configImport, configCheck);
  return 2;
}
