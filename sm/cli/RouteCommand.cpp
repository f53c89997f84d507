#include "sm/cli/RouteCommand.h"

#include <fmt/format.h>
#include <ibsm/Dumps.h>
#include <ibsm/Engines.h>
#include <ibsm/ProgrammedSl2Vl.h>
#include <ibsm/QosOptions.h>
#include <ibsm/Report.h>
#include <ibsm/SubnetPlan.h>
#include <ibsm/Topology.h>
#include <sys/resource.h>

#include <bit>
#include <chrono>

#include "routing/analysis/CreditLoopsMulticast.h"
#include "routing/multicast/McSl.h"
#include "sm/cli/LftFiles.h"
#include "sm/cli/Progress.h"
#include "sm/cli/RouteMulticast.h"
#include "sm/cli/RouteOutput.h"
#include "sm/cli/RoutePrevious.h"
#include "sm/cli/RouteQos.h"
#include "sm/config/ConfigInUse.h"
#include "sm/config/PartitionSources.h"
#include "sm/config/PlanSettings.h"
#include "sm/config/QosPolicySource.h"
#include "sm/files/FileIo.h"
#include "sm/health/Isolation.h"

namespace ibsm::sm::cli {
namespace {

std::uint64_t peakRssKiB() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::uint64_t>(usage.ru_maxrss);  // KiB on Linux
}

double secondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

int inputError(const Error& e) {
  fmt::print(stderr, "ibsm route: {}\n", e.message);
  return 2;
}

// Everything the run needs, read and validated before anything is written.
struct Inputs {
  Fabric fabric;
  PlanInputs plan;
  partition::PartitionConfig partitions;            // as `ibsm run` reads them
  std::shared_ptr<const qos::QosPolicy> qosPolicy;  // null: none
  std::vector<std::string> warnings;                // the topology readers'
  std::optional<PreviousInputs> previous;
  qos::QosOptions qos;  // [qos]: the SL2VL and VLArbitration tables, as `ibsm run` plans them
};

// --isolate: the fabric as the live SM plans it with those links isolated,
// through the same filter; a link kept (the only way to a node) is a warning.
Result<void> isolate(Inputs& inputs, const std::vector<std::string>& ends) {
  if (ends.empty()) return {};
  std::vector<health::LinkKey> links;
  for (const auto& end : ends) {
    auto at = health::parseLinkEnd(inputs.fabric, end);
    if (!at) return fail(fmt::format("--isolate {}: {}", end, at.error().message));
    auto link = health::linkAt(inputs.fabric, *at);
    if (!link) return fail(fmt::format("--isolate {}: the port is not cabled", end));
    links.push_back(*link);
  }
  auto cut = health::isolateLinks(std::move(inputs.fabric), std::move(links));
  for (const auto& r : cut.refused)
    inputs.warnings.push_back(fmt::format("--isolate {}: not isolated: {}",
                                          health::describeLink(cut.fabric, r.link), r.why));
  inputs.fabric = std::move(cut.fabric);
  return {};
}

Result<Inputs> gatherInputs(const RouteArgs& args, Progress& progress) {
  auto loaded = config::loadConfigInUse(args.config);
  if (!loaded) return std::unexpected(loaded.error());
  // What `ibsm run` plans from the same config and flags, so the dry run
  // predicts what it programs.
  auto plan = config::planInputs(loaded->config,
                                 {.engines = args.engines,
                                  .lmc = args.lmc,
                                  .rootGuidFile = args.rootGuids,
                                  .guid2lid = args.guid2lid,
                                  .threads = args.threads},
                                 defaultRegistry());
  if (!plan) return std::unexpected(plan.error());
  auto partitions = config::readPartitionSources(*loaded, args.partitions);
  if (!partitions) return std::unexpected(partitions.error());
  auto qosPolicy = config::readQosPolicySource(loaded->config, args.qosPolicy);
  if (!qosPolicy) return std::unexpected(qosPolicy.error());

  progress.phase(fmt::format("reading {}", args.topology.string()));
  auto read = readTopologyFile(args.topology);
  if (!read) return std::unexpected(read.error());
  Inputs inputs{.fabric = std::move(read->fabric),
                .plan = std::move(*plan),
                .partitions = std::move(*partitions),
                .qosPolicy = std::move(*qosPolicy),
                .warnings = std::move(read->warnings),
                .previous = {},
                .qos = loaded->config.qosOptions};
  // partitions.strict = false: what the partitions file had that was read
  // past, as the live SM warns about it (SM-0443).
  for (const auto& i : inputs.partitions.ignored)
    inputs.warnings.push_back(
        fmt::format("{}: ignored (partitions.strict = false): {}", i.where, i.what));
  if (auto ok = isolate(inputs, args.isolate); !ok) return std::unexpected(ok.error());
  if (args.previous) {
    progress.phase(fmt::format("reading {}", args.previous->string()));
    auto previous = readPrevious(*args.previous, args.previousTopology, inputs.warnings);
    if (!previous) return std::unexpected(previous.error());
    // As the live SM routes from the tables it programmed.
    if (!args.rebalance && loaded->config.routing.stableRoutes)
      inputs.plan.previous = std::make_shared<const PreviousRoutes>(previousRoutes(*previous));
    inputs.previous = std::move(*previous);
  }
  return inputs;
}

// sl2vl.dump when the engine uses more than one VL or QoS programs every
// port's, pair-sls when the engine names pairs' SLs, vlarb.dump with QoS; a dump from an earlier
// run that this one would not write is removed, lest it be mistaken for this one's.
Result<void> writeVlTables(const std::filesystem::path& out, const SubnetPlan& plan) {
  std::error_code ec;
  const qos::QosTables* qos = plan.qosTables ? &*plan.qosTables : nullptr;
  if (plan.routing.sl2vl.empty() && qos == nullptr) {
    std::filesystem::remove(out / "sl2vl.dump", ec);
  } else if (auto ok = files::writeFileAtomically(out / "sl2vl.dump",
                                                  [&](const files::ChunkWriter& write) {
                                                    writeSl2VlDump(plan.fabric, plan.routing, qos,
                                                                   write);
                                                  });
             !ok) {
    return ok;
  }
  if (plan.routing.pairSls.empty()) {
    std::filesystem::remove(out / "pair-sls", ec);
  } else if (auto ok = files::writeFileAtomically(out / "pair-sls",
                                                  formatPairSls(plan.fabric, plan.routing));
             !ok) {
    return ok;
  }
  if (qos == nullptr) {
    std::filesystem::remove(out / "vlarb.dump", ec);
    return {};
  }
  return files::writeFileAtomically(out / "vlarb.dump", formatVlArbDump(plan.fabric, *qos));
}

// The LFTs in the form asked for; the other form's file from an earlier run
// is removed, lest it be read as this run's.
Result<void> writeLfts(const std::filesystem::path& out, const SubnetPlan& plan, LftDumpForm form) {
  const bool compact = form == LftDumpForm::Compact;
  std::error_code ec;
  std::filesystem::remove(out / lftFileName(compact ? LftDumpForm::OpenSm : LftDumpForm::Compact),
                          ec);
  return files::writeFileAtomically(out / lftFileName(form), [&](const files::ChunkWriter& write) {
    if (compact)
      writeCompactLftDump(plan.fabric, plan.routing, write, kCompactZstdLevel);
    else
      writeLftDump(plan.fabric, plan.routing, write);
  });
}

// The dumps of the run; report.json follows them, once writing them has
// counted toward the peak memory it reports.
Result<void> writeTables(const std::filesystem::path& out, const SubnetPlan& plan,
                         const DryRunMulticast& multicast, LftDumpForm form) {
  if (auto ok = writeLfts(out, plan, form); !ok) return ok;
  if (auto ok = writeVlTables(out, plan); !ok) return ok;
  if (auto ok = files::writeFileAtomically(out / "mcast-groups",
                                           formatMcGroups(plan.fabric, multicast.groups));
      !ok)
    return ok;
  if (auto ok = files::writeFileAtomically(out / "mfts.dump",
                                           formatMftDump(plan.fabric, multicast.plan.mfts));
      !ok)
    return ok;
  return files::writeFileAtomically(out / "guid2lid", formatGuid2Lid(toGuid2Lid(plan.lids)));
}

}  // namespace

void addRouteCommand(CLI::App& app, RouteArgs& args) {
  auto* cmd = app.add_subcommand("route", "Dry run: route a topology file offline and report");
  cmd->add_option("-t,--topology", args.topology, "ibnetdiscover output or ibsim net file")
      ->required();
  cmd->add_option("-R,--engine", args.engines,
                  "Routing engine(s) to try in order (minhop, updn, ftree, ftree-vl, dragonfly, "
                  "sssp, auto); "
                  "comma-separated or repeated")
      ->delimiter(',');
  cmd->add_option("--guid2lid", args.guid2lid, "OpenSM-format guid2lid file of LIDs to keep");
  cmd->add_option("--lmc", args.lmc, "LID Mask Control (0-7)");
  cmd->add_option("-a,--root-guids", args.rootGuids, "File of root switch GUIDs (updn, ftree)");
  cmd->add_option(
      "-o,--out", args.out,
      "Directory for opensm-lfts.dump (or lfts.ibsm), sl2vl.dump (dragonfly, qos.enabled), "
      "vlarb.dump "
      "(qos.enabled), mfts.dump, mcast-groups, "
      "guid2lid, report.json (default: a new ./ibsm-route-YYYYmmdd-HHMMSS); files there that "
      "ibsm route did not write are never replaced without --force");
  cmd->add_flag("--force", args.force,
                "Replace outputs in --out that ibsm route did not write (another program's "
                "guid2lid, say)");
  cmd->add_option("-F,--config", args.config,
                  fmt::format("TOML config (default {} if present)", config::kDefaultConfigPath));
  cmd->add_option("--qos-policy", args.qosPolicy,
                  "OpenSM's qos-policy.conf: report the QoS level of every CA pair's plain "
                  "PathRecord (overrides qos.policy_file)");
  cmd->add_option("-P,--partitions", args.partitions,
                  "OpenSM partitions.conf whose multicast groups to plan (overrides "
                  "sm.partitions_file; none: the default partition, as ibsm run)");
  auto* previous = cmd->add_option(
      "--previous", args.previous,
      "LFTs the fabric held before (opensm-lfts.dump, lfts.ibsm or dump_fts output): route from "
      "them as "
      "the live SM does (only entries whose path broke move) and report the entries and "
      "blocks that change");
  cmd->add_option("--isolate", args.isolate,
                  "Route around this link as the live SM's health policy isolates it (one end: "
                  "GUID/port or '\"node\"[port]'; repeatable)");
  cmd->add_option("--previous-topology", args.previousTopology,
                  "The fabric the --previous tables were routed for: report its busiest link "
                  "under them, and tell a lost cable from one that came back")
      ->needs(previous);
  cmd->add_flag("--rebalance", args.rebalance,
                "With --previous: compute the tables afresh (as `ibsm sweep --rebalance`) "
                "rather than keep the entries whose previous path still holds")
      ->needs(previous);
  cmd->add_option("--dump-format", args.dumpFormat,
                  "LFTs as opensm-lfts.dump (opensm, the default: OpenSM reads it) or as "
                  "lfts.ibsm (compact: binary, zstd; read back by --previous and ibsm path)")
      ->check(CLI::IsMember({"opensm", "compact"}));
  cmd->add_option("--threads", args.threads,
                  "Threads to route and analyse on (0: every core); overrides routing.threads. "
                  "Tables and report are the same for any count")
      ->check(CLI::Range(0u, 1024u));
  cmd->add_flag("--json", args.json, "Print the report as JSON on stdout instead of the summary");
  cmd->add_flag("--check", args.check,
                "Exit 1 when a pair is unrouted, the routes have a credit loop or a multicast "
                "tree is wrong");
}

namespace {

// The policy resolved and, with qos.enabled, the tables planned as the live
// SM plans them (MasterSweep::planQosTables: after the policy, whose
// qos-setup scopes apply on top). Before the walk: with an engine's VL
// layers the QoS classes go into its SL2VL, which the credit-loop analysis
// walks; classes that do not fit are refused here.
Result<std::optional<QosReport>> planQos(SubnetPlan& plan, const Inputs& inputs) {
  auto qos = planDryRunQos(plan, inputs.partitions, inputs.qosPolicy);
  if (!qos || !inputs.qos.enabled) return qos;
  auto tables = qos::planQosFor(plan.fabric, inputs.qos, plan.qos.get(), plan.routing);
  if (!tables) return std::unexpected(tables.error());
  plan.qosTables = std::move(*tables);
  return qos;
}

// Each multicast tree on its group's SL through the SL2VL tables the plan
// programs: a turn that drops it is a problem of the group. Where some turn
// drops the SL a group asks for, it travels on (and the SA answers) the
// lowest SL no turn drops (routing/multicast/McSl.h): one note, and the
// group's line in mcast-groups says so; where the engine gave the trees a VL
// of their own, every group travels on its SL (McSl.h kTreeSl). Returns
// each group's SL.
std::vector<std::uint8_t> checkTreesOnTheirSls(const SubnetPlan& plan, DryRunMulticast& multicast,
                                               MulticastReport& into) {
  std::vector<std::uint8_t> groupSls;
  for (const auto& g : multicast.groups) groupSls.push_back(g.params.sl);
  if (plan.routing.sl2vl.empty() && !plan.qosTables) return groupSls;
  const auto sl2vl =
      programmedSl2VlEntries(plan.routing.sl2vl, plan.qosTables ? &*plan.qosTables : nullptr);
  const std::uint16_t carried = routing::slsCarriedEverywhere(sl2vl);
  const bool ownVl =
      plan.routing.treesShareVl.has_value() || routing::treesHaveAVlOfTheirOwn(plan.fabric, sl2vl);
  std::size_t moved = 0;
  for (std::size_t i = 0; i < multicast.groups.size(); ++i) {
    auto& g = multicast.groups[i];
    const std::uint8_t sl = routing::groupTreeSl(g.params.sl, carried, ownVl);
    if (sl != g.params.sl) ++moved;
    g.params.sl = sl;
    groupSls[i] = sl;
  }
  if (moved > 0 && !ownVl)  // on a VL of their own: the engine's note says so
    into.warnings.push_back(fmt::format(
        "{} of {} groups travel on SL {}, not the SL their configuration gives: the engine's "
        "SL2VL drops that SL at some turn and carries SL {} at every turn (the engine's SL wins, "
        "as for unicast; the SA answers it in MCMemberRecord)",
        moved, multicast.groups.size(), std::countr_zero(carried), std::countr_zero(carried)));
  for (auto& p :
       checkMulticastSls(plan.fabric, multicast.plan.mfts, multicast.routes, groupSls, sl2vl))
    into.problems.push_back(std::move(p));
  return groupSls;
}

// The report of the routes, with every multicast tree, on its group's SL,
// judged for credit loops with them (CreditLoopsMulticast.h).
RouteReport analyseWithTrees(const SubnetPlan& plan, DryRunMulticast& multicast, unsigned threads,
                             Progress& progress) {
  MulticastReport multicastReport = multicast.report;
  const std::vector<std::uint8_t> groupSls = checkTreesOnTheirSls(plan, multicast, multicastReport);
  progress.phase("walking the tables for the report");
  const auto analysisStart = std::chrono::steady_clock::now();
  const McTreesToJudge trees{&multicast.plan.mfts, multicast.routes, groupSls};
  RouteReport report = analyseRoutes(plan.fabric, plan.routing, threads, trees);
  report.analysisSeconds = secondsSince(analysisStart);
  report.multicast = std::move(multicastReport);
  return report;
}

}  // namespace

int runRoute(const RouteArgs& args) {
  Progress progress;
  const auto outDir = checkOutputDir(args.out, args.force);
  if (!outDir) return inputError(outDir.error());
  const auto form = parseDumpForm(args.dumpFormat);
  if (!form) return inputError(form.error());
  auto inputs = gatherInputs(args, progress);
  if (!inputs) return inputError(inputs.error());
  for (const auto& w : inputs->warnings) fmt::print(stderr, "ibsm route: warning: {}\n", w);

  progress.phase(fmt::format("assigning LIDs and routing {} nodes", inputs->fabric.size()));
  const auto routeStart = std::chrono::steady_clock::now();
  auto plan = planSubnet(std::move(inputs->fabric), inputs->plan, defaultRegistry());
  const double routeSeconds = secondsSince(routeStart);
  if (!plan) return inputError(plan.error());
  auto qos = planQos(*plan, *inputs);
  if (!qos) return inputError(qos.error());
  const auto reportStart = std::chrono::steady_clock::now();
  progress.phase("planning and checking multicast trees");
  auto multicast = planDryRunMulticast(plan->fabric, inputs->partitions,
                                       {.oneTree = plan->routing.treesShareVl.has_value(),
                                        .upDownOrder = &plan->routing.upDownOrder});
  if (!multicast) return inputError(multicast.error());
  RouteReport report = analyseWithTrees(*plan, *multicast, inputs->plan.routing.threads, progress);
  report.routeSeconds = routeSeconds;
  report.inputWarnings = std::move(inputs->warnings);
  report.qos = std::move(*qos);
  if (plan->qosTables) report.qosVlLayers = plan->qosTables->layers;
  if (auto& held = inputs->previous; held) {
    progress.phase("comparing with the previous tables");
    auto previous = comparePrevious(std::move(*held), *plan, inputs->plan);
    if (!previous) return inputError(previous.error());
    report.previous = std::move(*previous);
  }
  report.reportSeconds = secondsSince(reportStart);

  const auto out = makeOutputDir(*outDir);
  if (!out) return inputError(out.error());
  // Named on stderr, where --json leaves it out of what scripts parse.
  if (!args.out) fmt::print(stderr, "ibsm route: writing into {}/\n", out->string());
  progress.phase(fmt::format("writing {}", out->string()));
  if (auto ok = writeTables(*out, *plan, *multicast, *form); !ok) return inputError(ok.error());

  report.peakRssKiB = peakRssKiB();
  const std::string json = reportJson(report);
  if (auto ok = files::writeFileAtomically(*out / "report.json", json); !ok)
    return inputError(ok.error());

  if (args.json)
    fmt::print("{}\n", json);
  else
    fmt::print("{}", reportSummary(report));
  if (args.check && (report.unreachablePairs() > 0 || !report.creditLoops.acyclic ||
                     !report.multicast->problems.empty()))
    return 1;
  return 0;
}

}  // namespace ibsm::sm::cli
