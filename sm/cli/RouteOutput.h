// Where `ibsm route` writes, so that a dry run never costs an operator a
// file. Without --out it makes a new directory, ./ibsm-route-YYYYmmdd-HHMMSS
// (a suffix -2, -3... when that exists); run in /var/cache/opensm it would
// otherwise have replaced OpenSM's guid2lid. With --out DIR it writes into a
// directory it made before (it leaves a .ibsm-route file there), a new one or
// one that holds none of its files; a file of the same name that another
// program wrote is refused, exit 2, unless --force.
//
//   auto dir = checkOutputDir(args.out, args.force);   // before routing
//   ...
//   auto path = makeOutputDir(*dir);                    // when writing
#pragma once

#include <ibsm/Error.h>

#include <filesystem>
#include <optional>

namespace ibsm::sm::cli {

struct OutputDir {
  std::filesystem::path path;  // empty: a new one, named when made
  // Leave the mark: the directory is new, marked already, or held none of
  // the outputs. Not where --force replaced another program's files, so
  // that a later run there is refused again.
  bool mark{true};
};

// The files the dry run writes into its directory, and the mark it leaves.
inline constexpr const char* kRouteOutputs[] = {"opensm-lfts.dump", "lfts.ibsm",  "sl2vl.dump",
                                                "pair-sls",         "vlarb.dump", "mfts.dump",
                                                "mcast-groups",     "guid2lid",   "report.json"};
inline constexpr const char* kRouteMark = ".ibsm-route";

// Fails, naming the file, when `asked` holds an output file that no earlier
// `ibsm route` wrote (and `force` is not set). Changes nothing.
[[nodiscard]] Result<OutputDir> checkOutputDir(const std::optional<std::filesystem::path>& asked,
                                               bool force);

// Creates the directory (a new one when none was asked for) and marks it as
// the dry run's; returns where to write.
[[nodiscard]] Result<std::filesystem::path> makeOutputDir(const OutputDir& dir);

}  // namespace ibsm::sm::cli
