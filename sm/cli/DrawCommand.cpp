#include "sm/cli/DrawCommand.h"

#include <fmt/format.h>
#include <ibsm/Topology.h>

#include "routing/draw/Layout.h"
#include "routing/draw/Svg.h"
#include "sm/cli/DrawInputs.h"
#include "sm/config/ConfigInUse.h"
#include "sm/config/ControlSocket.h"
#include "sm/control/ControlClient.h"
#include "sm/files/FileIo.h"

namespace ibsm::sm::cli {
namespace {

int inputError(const Error& e) {
  fmt::print(stderr, "ibsm draw: {}\n", e.message);
  return 2;
}

Result<draw::LayoutInputs> readInputs(const DrawArgs& args) {
  draw::LayoutInputs inputs;
  if (args.report) {
    inputs.loadsFrom = args.report->string();
    auto text = files::readFile(*args.report);
    if (!text) return std::unexpected(text.error());
    auto loads = parseReportLoads(*text, inputs.loadsFrom);
    if (!loads) return std::unexpected(loads.error());
    inputs.loads = std::move(*loads);
  }
  if (args.health) {
    inputs.marksFrom = args.health->string();
    auto text = files::readFile(*args.health);
    if (!text) return std::unexpected(text.error());
    auto marks = parseHealthMarks(*text, inputs.marksFrom);
    if (!marks) return std::unexpected(marks.error());
    inputs.marks = std::move(*marks);
  }
  return inputs;
}

Result<std::string> drawTopologyFile(const std::filesystem::path& topology, const DrawArgs& args) {
  auto read = readTopologyFile(topology);
  if (!read) return std::unexpected(read.error());
  for (const auto& w : read->warnings) fmt::print(stderr, "ibsm draw: warning: {}\n", w);
  auto inputs = readInputs(args);
  if (!inputs) return std::unexpected(inputs.error());
  auto layout = draw::layoutFabric(read->fabric, *inputs);
  if (!layout) return std::unexpected(layout.error());
  return draw::renderSvg(*layout, topology.filename().string());
}

// The daemon draws its last sweep itself (control request "draw"): it holds
// the fabric, the report and the health, none of which are files.
int drawFromDaemon(const DrawArgs& args) {
  std::filesystem::path socket;
  if (args.socket) {
    socket = *args.socket;
  } else {
    auto configured = config::controlSocketOf(args.config);
    if (!configured) return inputError(configured.error());
    for (const auto& w : configured->warnings) fmt::print(stderr, "ibsm draw: warning: {}\n", w);
    socket = configured->path;
  }
  auto answer = control::request(socket, "draw");
  if (!answer) return inputError(answer.error());
  if (answer->starts_with("error:")) {
    fmt::print(stderr, "ibsm draw: {}", *answer);
    return 1;
  }
  // The server drops what a full socket buffer does not take rather than
  // stall the SM: half a picture is no picture.
  if (!answer->ends_with("</svg>\n")) {
    fmt::print(stderr,
               "ibsm draw: the daemon's answer on {} was cut short after {} bytes; nothing "
               "written\n",
               socket.string(), answer->size());
    return 2;
  }
  if (auto ok = files::writeFileAtomically(args.out, *answer); !ok) return inputError(ok.error());
  return 0;
}

}  // namespace

void addDrawCommand(CLI::App& app, DrawArgs& args) {
  auto* cmd = app.add_subcommand(
      "draw", "Draw the fabric as SVG: switches by level or group, links by routed load");
  auto* topology = cmd->add_option("-t,--topology", args.topology,
                                   "ibnetdiscover output or ibsim net file (else: the running "
                                   "daemon's last sweep)");
  cmd->add_option("--report", args.report,
                  "report.json of `ibsm route -o DIR` for this topology: colour links by routes")
      ->needs(topology);
  cmd->add_option("--health", args.health,
                  "`ibsm health --json` output: mark its unhealthy links red dashed")
      ->needs(topology);
  cmd->add_option("-o,--out", args.out, "SVG file to write")->required();
  cmd->add_option("--socket", args.socket,
                  "Daemon's control socket (default: sm.control_socket of the config)")
      ->excludes(topology);
  cmd->add_option("-F,--config", args.config,
                  fmt::format("TOML config to read sm.control_socket from (default {} if present)",
                              config::kDefaultConfigPath))
      ->excludes(topology);
}

int runDraw(const DrawArgs& args) {
  if (!args.topology) return drawFromDaemon(args);
  auto svg = drawTopologyFile(*args.topology, args);
  if (!svg) return inputError(svg.error());
  if (auto ok = files::writeFileAtomically(args.out, *svg); !ok) return inputError(ok.error());
  return 0;
}

}  // namespace ibsm::sm::cli
