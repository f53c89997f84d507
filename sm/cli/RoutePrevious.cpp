#include "sm/cli/RoutePrevious.h"

#include <fmt/format.h>
#include <ibsm/Lids.h>
#include <ibsm/Topology.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "sm/cli/LftFiles.h"
#include "sm/files/FileIo.h"

namespace ibsm::sm::cli {
namespace {

// The tables must be routed for the LIDs the previous fabric's switches hold,
// or every figure of the report on it would be about other destinations.
Result<void> checkSwitchLids(const PreviousInputs& p, const Fabric& before) {
  for (const DumpedLft& d : p.tables) {
    const auto id = before.findNode(d.switchGuid);
    if (!id || d.switchLid.value == 0) continue;  // no LID to disagree with
    const Lid held = before.node(*id).ports[0].lid;
    if (held != d.switchLid)
      return fail(fmt::format(
          "{}: switch '{}' ({}) has LID {} in these tables but LID {} in {} (LIDs planned as for "
          "this run, with its --guid2lid and --lmc): give the guid2lid of the run that wrote "
          "the tables",
          p.tablesFile.string(), d.description, d.switchGuid, d.switchLid, held,
          p.beforeFile.string()));
  }
  return {};
}

// The CA ports this run's engine routed apart, found again by port GUID, so
// that the busiest link before leaves out the same traffic as the one after.
std::vector<PortRef> apartIn(const Fabric& before, const SubnetPlan& plan) {
  std::vector<PortRef> out;
  for (const PortRef p : plan.routing.apart)
    if (const auto there = before.findPort(plan.fabric.port(p).guid)) out.push_back(*there);
  std::ranges::sort(out);
  return out;
}

Result<LinkLoadStats> loadsBefore(const PreviousInputs& p, Fabric before, const SubnetPlan& plan,
                                  const PlanInputs& inputs) {
  auto lids = planLids(before, inputs.guid2lid, inputs.lmc);
  if (!lids) return std::unexpected(lids.error());
  applyLids(before, *lids);
  auto lfts = lftsByNode(before, p.tables);
  if (!lfts)
    return fail(fmt::format("{}: the tables do not fit {}: {}", p.tablesFile.string(),
                            p.beforeFile.string(), lfts.error().message));
  if (auto ok = checkSwitchLids(p, before); !ok) return std::unexpected(ok.error());
  RoutingResult held;
  held.engine = "previous tables";
  held.lfts = std::move(*lfts);
  held.apart = apartIn(before, plan);
  if (!p.pairSls.empty()) {
    auto pairs = pairSlsByNode(before, p.pairSls, p.pairSlsFile.string());
    if (!pairs) return std::unexpected(pairs.error());
    held.pairSls = std::move(*pairs);
  }
  return analyseRoutes(before, held, inputs.routing.threads).linkLoad;
}

// pair-sls in the tables' directory, parsed (not yet matched to a fabric).
Result<void> readPairSlsBeside(PreviousInputs& p) {
  const auto path = p.tablesFile.parent_path() / "pair-sls";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return {};
  auto text = files::readFile(path);
  if (!text) return std::unexpected(text.error());
  auto parsed = parsePairSls(*text, path.string());
  if (!parsed) return std::unexpected(parsed.error());
  p.pairSlsFile = path;
  p.pairSls = std::move(*parsed);
  return {};
}

}  // namespace

Result<PreviousInputs> readPrevious(const std::filesystem::path& tables,
                                    const std::optional<std::filesystem::path>& topology,
                                    std::vector<std::string>& warnings) {
  PreviousInputs p{.tablesFile = tables,
                   .tables = {},
                   .cuts = {},
                   .beforeFile = {},
                   .pairSlsFile = {},
                   .pairSls = {},
                   .before = {}};
  // opensm-lfts.dump, dump_fts output or the compact form, told by its bytes.
  auto parsed = readLftFile(tables, LftRead::Held);
  if (!parsed) return std::unexpected(parsed.error());
  if (parsed->tables.empty())
    return std::unexpected(
        Error::at(tables.string(), 1,
                  "expected the LFTs the fabric held, as opensm-lfts.dump or dump_fts lists them "
                  "('Unicast lids [...] of switch ... guid 0x...' headers), but no whole table is "
                  "listed"));
  p.tables = std::move(parsed->tables);
  p.cuts = std::move(parsed->cuts);
  if (auto ok = readPairSlsBeside(p); !ok) return std::unexpected(ok.error());
  if (!topology) return p;
  auto read = readTopologyFile(*topology);
  if (!read) return std::unexpected(read.error());
  warnings.insert(warnings.end(), read->warnings.begin(), read->warnings.end());
  p.beforeFile = *topology;
  p.before = std::move(read->fabric);
  return p;
}

PreviousRoutes previousRoutes(const PreviousInputs& previous) {
  std::vector<std::pair<Guid, Lft>> tables;
  tables.reserve(previous.tables.size());
  for (const DumpedLft& d : previous.tables) tables.emplace_back(d.switchGuid, d.lft);
  return previousRoutesFrom(std::move(tables), previous.before);
}

Result<PreviousReport> comparePrevious(PreviousInputs previous, const SubnetPlan& plan,
                                       const PlanInputs& inputs) {
  PreviousReport out;
  out.tablesFile = previous.tablesFile.string();
  out.routedAs = routesHow(plan);
  if (plan.stable) {
    const StableRoutesStats& s = plan.stable->stats;
    out.change = changeName(plan.stable->change);
    out.entriesKept = s.kept;
    out.entriesRerouted = s.broken;
    out.blocksRerouted = s.brokenBlocks;
    out.why = s.why;
  }
  for (const LftDumpCut& c : previous.cuts)
    out.truncated.push_back(
        c.switchGuid.value == 0
            ? fmt::format("{}:{}: the dump stops between two tables: {}",
                          previous.tablesFile.string(), c.line, c.message)
            : fmt::format("{}:{}: the dump stops in the table of switch \"{}\" ({}), which is "
                          "left out: {}",
                          previous.tablesFile.string(), c.line, c.description, c.switchGuid,
                          c.message));
  out.tables = compareLfts(previous.tables, plan.fabric, plan.routing);
  if (!previous.before) return out;
  auto loads = loadsBefore(previous, std::move(*previous.before), plan, inputs);
  if (!loads) return std::unexpected(loads.error());
  out.linkLoadBefore = std::move(*loads);
  return out;
}

}  // namespace ibsm::sm::cli
