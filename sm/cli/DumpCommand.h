// `ibsm dump lfts|mfts|guid2lid|sl2vl|all [-o DIR]`: the running master's
// tables, in the files the dry run writes (`ibsm route -o DIR` names them
// alike), so that what the SM holds is compared with `dump_fts`, with a dry
// run or with OpenSM's dumps by the tools that already read those files.
// The daemon answers from what it knows the switches hold
// (sm/manager/DaemonDump.h); this asks and writes.
//
//   ibsm dump lfts > lfts.txt                 # one kind to stdout
//   ibsm dump all -o /tmp/held                # every kind, each to its file
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "sm/cli/ControlCommands.h"

namespace ibsm::sm::cli {

struct DumpArgs {
  std::vector<std::string> kinds;            // lfts, mfts, guid2lid, sl2vl, all
  std::optional<std::filesystem::path> out;  // none: stdout, one kind
  bool force{false};                         // overwrite files DIR already has
  ControlArgs control;                       // --socket, -F
};

void addDumpCommand(CLI::App& app, DumpArgs& args);
// Exit status: 0 printed or written; 1 the daemon answered with an error
// (nothing written); 2 bad input, a file that exists (without --force), no
// daemon or an answer cut short (nothing written).
int runDump(const DumpArgs& args);

}  // namespace ibsm::sm::cli
