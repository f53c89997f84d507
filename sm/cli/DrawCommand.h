// `ibsm draw`: a picture of the fabric as one SVG file, from a topology
// file (with the routes per link of its `ibsm route` report and a health
// JSON) or from the running daemon's last sweep. Layout and SVG are
// routing/draw's; this reads the inputs and writes the file.
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <optional>

namespace ibsm::sm::cli {

struct DrawArgs {
  std::optional<std::filesystem::path> topology;  // none: ask the daemon
  std::optional<std::filesystem::path> report;
  std::optional<std::filesystem::path> health;
  std::filesystem::path out;
  std::optional<std::filesystem::path> socket;  // else the config's sm.control_socket
  std::optional<std::filesystem::path> config;
};

void addDrawCommand(CLI::App& app, DrawArgs& args);
// Exit status: 0 written; 1 the daemon answered with an error; 2 bad input
// or no daemon (nothing written).
int runDraw(const DrawArgs& args);

}  // namespace ibsm::sm::cli
