// `ibsm topo generate`: synthetic fabrics as ibsim net files, for tests,
// benchmarks and trying routing on shapes one does not own yet.
#pragma once

#include <ibsm/TopologyGenerator.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ibsm::sm::cli {

struct TopoArgs {
  FatTreeSpec fatTree;
  DragonflySpec dragonfly;
  DragonflyPlusSpec dragonflyPlus;
  std::vector<std::string> ioHosts;  // --io-hosts LEVEL:COUNT, read into fatTree by runTopo
  Degradation degrade;
  std::optional<std::filesystem::path> out;  // stdout when absent
  CLI::App* fatTreeCmd{nullptr};
  CLI::App* dragonflyCmd{nullptr};
  CLI::App* dragonflyPlusCmd{nullptr};
};

void addTopoCommand(CLI::App& app, TopoArgs& args);
int runTopo(const TopoArgs& args);

}  // namespace ibsm::sm::cli
