// The ibsm command: builds each module from its inputs and runs the
// subcommand asked for. Wiring is explicit here; modules never reach for
// globals (the logger aside).
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>

#include "sm/cli/ControlCommands.h"
#include "sm/cli/PartitionsCommand.h"
#include "sm/cli/RouteCommand.h"
#include "sm/cli/RunCommand.h"
#include "sm/cli/TopoCommand.h"

int main(int argc, char** argv) {
  CLI::App app{"ibsm: InfiniBand subnet manager"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "ibsm 0.1.0");

  ibsm::cli::RouteArgs route;
  ibsm::cli::addRouteCommand(app, route);
  ibsm::cli::RunArgs run;
  ibsm::cli::addRunCommand(app, run);
  ibsm::cli::TopoArgs topo;
  ibsm::cli::addTopoCommand(app, topo);
  ibsm::cli::PartitionsArgs partitions;
  ibsm::cli::addPartitionsCommand(app, partitions);
  ibsm::cli::ControlArgs status;
  ibsm::cli::addStatusCommand(app, status);
  ibsm::cli::ControlArgs sweep;
  ibsm::cli::addSweepCommand(app, sweep);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version end here with 0; any other command-line mistake is
    // bad input, exit 2 as for bad files (CLI11's own codes run past 100).
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (app.got_subcommand("route")) return ibsm::cli::runRoute(route);
  if (app.got_subcommand("run")) return ibsm::cli::runRun(run);
  if (app.got_subcommand("topo")) return ibsm::cli::runTopo(topo);
  if (app.got_subcommand("partitions")) return ibsm::cli::runPartitions(partitions);
  if (app.got_subcommand("status")) return ibsm::cli::runStatus(status);
  if (app.got_subcommand("sweep")) return ibsm::cli::runSweep(sweep);
  return 2;
}
