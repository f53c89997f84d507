// The `--previous` part of `ibsm route`: what this run's routes would move on
// a fabric that holds other tables. The previous tables (an opensm-lfts.dump,
// or dump_fts output of what the switches hold) are compared with this run's
// by compareLfts(), whatever engine made either; with the fabric they were
// routed for (`--previous-topology`), the usual report runs on it with them,
// so the busiest link before is measured, not guessed.
//
// Unless --rebalance (or routing.stable_routes = false), the previous tables
// are also the hint this run routes from, as the live SM routes from the
// tables it programmed: only entries whose path no longer holds move. With
// the previous fabric the change is classified (capacity lost, gained,
// hosts only); without it, a broken previous path counts as a loss.
//
// That fabric gets its LIDs as this run's does (the same --guid2lid and
// --lmc), so they are the LIDs the run that wrote the tables gave it when it
// was given the same; a switch whose LID differs from the one the tables
// name is refused rather than judged against the wrong destinations.
#pragma once

#include <ibsm/Dumps.h>
#include <ibsm/Report.h>
#include <ibsm/SubnetPlan.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ibsm::sm::cli {

struct PreviousInputs {
  std::filesystem::path tablesFile;
  std::vector<DumpedLft> tables;
  std::vector<LftDumpCut> cuts;      // where ibroute or dump_fts stopped early
  std::filesystem::path beforeFile;  // empty: not given
  // pair-sls beside the tables (a dry run's directory), when there is one:
  // the report on the previous fabric walks those pairs on their SLs.
  std::filesystem::path pairSlsFile;  // empty: none
  std::vector<DumpedPairSl> pairSls;
  std::optional<Fabric> before;  // as read, LIDs not planned yet
};

// Reads and parses both files (`topology` may be absent), before anything
// is routed or written; the topology reader's warnings go to `warnings`.
[[nodiscard]] Result<PreviousInputs> readPrevious(
    const std::filesystem::path& tables, const std::optional<std::filesystem::path>& topology,
    std::vector<std::string>& warnings);

// The previous tables (by switch GUID) and fabric as the hint of routing
// under change, as the live SM gives its last plan (SubnetPlan.h).
[[nodiscard]] PreviousRoutes previousRoutes(const PreviousInputs& previous);

// The comparison with `plan`, and the busiest link before when the previous
// fabric was given. Fails when the tables do not fit that fabric.
[[nodiscard]] Result<PreviousReport> comparePrevious(PreviousInputs previous,
                                                     const SubnetPlan& plan,
                                                     const PlanInputs& inputs);

}  // namespace ibsm::sm::cli
