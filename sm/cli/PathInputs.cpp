#include "sm/cli/PathInputs.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <ibsm/Dumps.h>
#include <ibsm/Engines.h>
#include <ibsm/Lids.h>
#include <ibsm/Partitions.h>
#include <ibsm/ProgrammedSl2Vl.h>
#include <ibsm/QosOptions.h>
#include <ibsm/SubnetPlan.h>
#include <ibsm/Topology.h>

#include <charconv>
#include <sstream>

#include "sm/cli/LftFiles.h"
#include "sm/cli/RouteMulticast.h"
#include "sm/config/ConfigInUse.h"
#include "sm/config/PartitionSources.h"
#include "sm/config/PlanSettings.h"
#include "sm/config/QosPolicySource.h"
#include "sm/files/FileIo.h"
#include "sm/manager/QosPlan.h"

namespace ibsm::sm::cli {
namespace {

// mcast-groups: "mgid MGID mlid 0xMLID ..." per group; member lines are indented.
Result<std::vector<std::pair<Gid, Lid>>> parseGroups(const std::string& text,
                                                     const std::string& file) {
  std::vector<std::pair<Gid, Lid>> out;
  std::istringstream in(text);
  std::string line;
  for (std::size_t n = 1; std::getline(in, line); ++n) {
    if (!line.starts_with("mgid ")) continue;
    std::istringstream words(line);
    std::string key, mgid, mlidKey, mlid;
    words >> key >> mgid >> mlidKey >> mlid;
    Gid gid{};
    std::uint16_t value = 0;
    const bool gidOk = ::inet_pton(AF_INET6, mgid.c_str(), gid.data()) == 1;
    const bool mlidOk =
        mlidKey == "mlid" && mlid.starts_with("0x") &&
        std::from_chars(mlid.data() + 2, mlid.data() + mlid.size(), value, 16).ec == std::errc{};
    if (!gidOk || !mlidOk)
      return fail(fmt::format("{}:{}: expected 'mgid MGID mlid 0xMLID ...'", file, n));
    out.emplace_back(gid, Lid{value});
  }
  return out;
}

Result<std::string> readIfPresent(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::string{};
  return files::readFile(path);
}

Result<void> readDirExtras(const std::filesystem::path& dir, OfflineTables& out);

// The dry run's tables on the fabric, its LIDs from the run's guid2lid.
Result<void> readDir(const std::filesystem::path& dir, const PlanInputs& plan, OfflineTables& out) {
  const auto g2lPath = dir / "guid2lid";
  auto g2lText = files::readFile(g2lPath);
  if (!g2lText) return std::unexpected(g2lText.error());
  auto g2l = parseGuid2Lid(*g2lText, g2lPath.string());
  if (!g2l) return std::unexpected(g2l.error());
  auto lids = planLids(out.fabric, *g2l, plan.lmc);
  if (!lids) return std::unexpected(lids.error());
  for (const auto& a : lids->assignments)
    if (a.source == LidAssignment::Source::Fresh)
      return fail(
          fmt::format("{}: has no LID for port {}: is this the topology the dry run "
                      "was made from?",
                      g2lPath.string(), a.portGuid));
  applyLids(out.fabric, *lids);

  // opensm-lfts.dump or lfts.ibsm (--dump-format compact), told by its bytes.
  const auto lftPath = lftFileIn(dir);
  auto dumped = readLftFile(lftPath, LftRead::Whole);
  if (!dumped) return std::unexpected(dumped.error());
  auto lfts = lftsByNode(out.fabric, dumped->tables);
  if (!lfts) return fail(fmt::format("{}: {}", lftPath.string(), lfts.error().message));
  out.lfts = std::move(*lfts);

  return readDirExtras(dir, out);
}

// What a dry run writes only when it has it: SL2VL tables, per-pair SLs,
// multicast forwarding tables and groups.
Result<void> readDirExtras(const std::filesystem::path& dir, OfflineTables& out) {
  const auto sl2vlPath = dir / "sl2vl.dump";
  auto sl2vlText = readIfPresent(sl2vlPath);
  if (!sl2vlText) return std::unexpected(sl2vlText.error());
  if (!sl2vlText->empty()) {
    auto parsed = parseSl2VlDump(*sl2vlText, sl2vlPath.string(), /*withPortTables=*/true);
    if (!parsed) return std::unexpected(parsed.error());
    auto entries = sl2vlByNode(out.fabric, *parsed);
    if (!entries) return fail(fmt::format("{}: {}", sl2vlPath.string(), entries.error().message));
    out.sl2vl = std::move(*entries);
  }
  const auto pairPath = dir / "pair-sls";
  auto pairText = readIfPresent(pairPath);
  if (!pairText) return std::unexpected(pairText.error());
  if (!pairText->empty()) {
    auto parsed = parsePairSls(*pairText, pairPath.string());
    if (!parsed) return std::unexpected(parsed.error());
    auto pairs = pairSlsByNode(out.fabric, *parsed, pairPath.string());
    if (!pairs) return std::unexpected(pairs.error());
    out.pairSls = std::move(*pairs);
  }
  const auto mftPath = dir / "mfts.dump";
  auto mftText = readIfPresent(mftPath);
  if (!mftText) return std::unexpected(mftText.error());
  if (!mftText->empty()) {
    auto parsed = parseMftDump(*mftText, mftPath.string());
    if (!parsed) return std::unexpected(parsed.error());
    auto mfts = mftsByNode(out.fabric, *parsed);
    if (!mfts) return fail(fmt::format("{}: {}", mftPath.string(), mfts.error().message));
    out.mfts = std::move(*mfts);
  }
  const auto groupsPath = dir / "mcast-groups";
  auto groupsText = readIfPresent(groupsPath);
  if (!groupsText) return std::unexpected(groupsText.error());
  auto groups = parseGroups(*groupsText, groupsPath.string());
  if (!groups) return std::unexpected(groups.error());
  out.groups = std::move(*groups);
  return {};
}

// The policy resolved as `ibsm route` resolves it (RouteQos.h): through
// the partitions the live SM would plan, the SM port not known offline.
Result<std::shared_ptr<const qos::ResolvedQos>> resolvePolicy(
    const Fabric& fabric, const partition::PartitionConfig& partitions,
    const std::shared_ptr<const qos::QosPolicy>& policy) {
  if (!policy) return std::shared_ptr<const qos::ResolvedQos>{};
  auto planned = partition::planPartitions(fabric, partitions, std::nullopt);
  if (!planned) return std::unexpected(planned.error());
  sortByPort(planned->tables);
  return manager::resolvePlanQos(policy, fabric, &*planned, Guid{});
}

// Routed here as `ibsm route` routes it, with the QoS tables it plans;
// multicast planned only when asked.
Result<void> routeHere(const PathArgs& args, const config::ConfigInUse& loaded,
                       const PlanInputs& inputs,
                       const std::shared_ptr<const qos::QosPolicy>& policy, OfflineTables& out) {
  auto plan = planSubnet(std::move(out.fabric), inputs, defaultRegistry());
  if (!plan) return std::unexpected(plan.error());
  auto partitions = config::readPartitionSources(loaded, args.partitions);
  if (!partitions) return std::unexpected(partitions.error());
  auto qos = resolvePolicy(plan->fabric, *partitions, policy);
  if (!qos) return std::unexpected(qos.error());
  out.qos = std::move(*qos);
  // As `ibsm route` and the live SM plan them: after the policy is resolved.
  if (loaded.config.qosOptions.enabled) {
    auto tables =
        qos::planQosFor(plan->fabric, loaded.config.qosOptions, out.qos.get(), plan->routing);
    if (!tables) return std::unexpected(tables.error());
    plan->qosTables = std::move(*tables);
  }
  out.sl2vl =
      programmedSl2VlEntries(plan->routing.sl2vl, plan->qosTables ? &*plan->qosTables : nullptr);
  const MulticastOptions trees{.oneTree = plan->routing.treesShareVl.has_value(),
                               .upDownOrder = &plan->routing.upDownOrder};
  out.fabric = std::move(plan->fabric);
  out.lfts = std::move(plan->routing.lfts);
  out.pairSls = std::move(plan->routing.pairSls);
  if (!args.mgid) return {};
  auto multicast = planDryRunMulticast(out.fabric, *partitions, trees);
  if (!multicast) return std::unexpected(multicast.error());
  out.mfts = std::move(multicast->plan.mfts);
  for (const auto& g : multicast->routes) out.groups.emplace_back(g.mgid, g.mlid);
  return {};
}

}  // namespace

Result<OfflineTables> offlineTables(const PathArgs& args) {
  auto loaded = config::loadConfigInUse(args.config);
  if (!loaded) return std::unexpected(loaded.error());
  auto inputs = config::planInputs(loaded->config,
                                   {.engines = args.engines,
                                    .lmc = args.lmc,
                                    .rootGuidFile = args.rootGuids,
                                    .guid2lid = args.guid2lid},
                                   defaultRegistry());
  if (!inputs) return std::unexpected(inputs.error());
  auto policy = config::readQosPolicySource(loaded->config, args.qosPolicy);
  if (!policy) return std::unexpected(policy.error());
  auto read = readTopologyFile(*args.topology);
  if (!read) return std::unexpected(read.error());
  OfflineTables out{.fabric = std::move(read->fabric),
                    .lfts = {},
                    .sl2vl = {},
                    .pairSls = {},
                    .qos = {},
                    .mfts = {},
                    .groups = {},
                    .warnings = std::move(read->warnings)};
  if (!args.dir) {
    if (auto done = routeHere(args, *loaded, *inputs, *policy, out); !done)
      return std::unexpected(done.error());
    return out;
  }
  // The dry run's sl2vl.dump holds what it programs, QoS tables included.
  if (auto done = readDir(*args.dir, *inputs, out); !done) return std::unexpected(done.error());
  if (!*policy) return out;
  auto partitions = config::readPartitionSources(*loaded, args.partitions);
  if (!partitions) return std::unexpected(partitions.error());
  auto qos = resolvePolicy(out.fabric, *partitions, *policy);
  if (!qos) return std::unexpected(qos.error());
  out.qos = std::move(*qos);
  return out;
}

}  // namespace ibsm::sm::cli
