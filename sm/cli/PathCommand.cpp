#include "sm/cli/PathCommand.h"

#include <fmt/format.h>
#include <ibsm/Lids.h>

#include "routing/analysis/PathFormat.h"
#include "routing/analysis/PathSl.h"
#include "routing/analysis/PathWalk.h"
#include "sm/cli/ControlCommands.h"
#include "sm/cli/PathInputs.h"
#include "sm/config/ConfigInUse.h"
#include "sm/control/ControlClient.h"
#include "sm/control/PathRequest.h"

namespace ibsm::sm::cli {
namespace {

int inputError(std::string_view message) {
  fmt::print(stderr, "ibsm path: {}\n", message);
  return 2;
}

// Exit 1 unless the pair is delivered or the tree has no problem, read off
// the answer both sides format alike (PathFormat.h).
bool walkedClean(std::string_view answer, bool json, bool multicast) {
  constexpr auto npos = std::string_view::npos;
  if (multicast)
    return json ? answer.find("\"problems\":[]") != npos : answer.find("problem: ") == npos;
  return answer.find(json ? "\"end\":\"delivered\"" : ": delivered,") != npos;
}

// The query's fields as the SA takes them; the error names the option.
Result<analysis::PathSlQuery> slQuery(const PathArgs& args) {
  analysis::PathSlQuery q;
  if (args.sl) q.sl = static_cast<std::uint8_t>(*args.sl);
  if (args.qosClass) q.qosClass = static_cast<std::uint8_t>(*args.qosClass);
  if (args.pkey) {
    auto pkey = control::parsePathNumber(*args.pkey, 0xFFFF, "a PKey");
    if (!pkey) return fail(fmt::format("--pkey: {}", pkey.error().message));
    q.pkey = static_cast<std::uint16_t>(*pkey);
  }
  if (args.serviceId) {
    auto sid = control::parsePathNumber(*args.serviceId, ~std::uint64_t{0}, "a ServiceID");
    if (!sid) return fail(fmt::format("--service-id: {}", sid.error().message));
    q.serviceId = *sid;
  }
  return q;
}

int walkOffline(const PathArgs& args, const analysis::PathSlQuery& query) {
  auto tables = offlineTables(args);
  if (!tables) return inputError(tables.error().message);
  for (const auto& w : tables->warnings) fmt::print(stderr, "ibsm path: warning: {}\n", w);
  const Fabric& fabric = tables->fabric;
  auto from = analysis::findEndPort(fabric, args.from);
  if (!from) return inputError(from.error().message);
  if (args.mgid) {
    auto mlid = analysis::resolveMlid(*args.mgid, tables->groups);
    if (!mlid) return inputError(mlid.error().message);
    const auto walk = analysis::walkMulticast(fabric, tables->mfts, *from, *mlid);
    fmt::print("{}", args.json ? analysis::multicastPathJson(fabric, walk)
                               : analysis::formatMulticastPath(fabric, walk));
    return walk.problems.empty() ? 0 : 1;
  }
  auto to = analysis::findDestinationLid(fabric, args.to);
  if (!to) return inputError(to.error().message);
  const auto chosen =
      analysis::pathSl(tables->qos.get(), fabric, *from, LidIndex(fabric).owner(*to), query,
                       analysis::engineSl(tables->pairSls, *from, *to));
  auto walk = analysis::walkUnicast(fabric, {tables->lfts, tables->sl2vl}, *from, *to, chosen.sl);
  if (chosen.level) walk.qosLevel = chosen.level->name;
  walk.note = chosen.note;
  fmt::print("{}", args.json ? analysis::unicastPathJson(fabric, walk)
                             : analysis::formatUnicastPath(fabric, walk));
  return walk.end == analysis::PathEnd::Delivered ? 0 : 1;
}

int walkLive(const PathArgs& args, const analysis::PathSlQuery& query) {
  // As every control command: only sm.control_socket of the config counts.
  ControlArgs control;
  control.socket = args.socket;
  control.config = args.config;
  auto socket = controlSocketPath("path", control);
  if (!socket) return inputError(socket.error().message);
  const control::PathRequest request{
      .json = args.json, .query = query, .mgid = args.mgid, .from = args.from, .to = args.to};
  auto answer = control::request(*socket, control::encodePathRequest(request));
  if (!answer) return inputError(answer.error().message);
  if (answer->starts_with("error:")) {
    fmt::print(stderr, "ibsm path: {}", *answer);
    return 1;
  }
  fmt::print("{}", *answer);
  return walkedClean(*answer, args.json, args.mgid.has_value()) ? 0 : 1;
}

// A pair needs TO; a multicast tree is walked from FROM alone.
void checkTarget(const PathArgs& args) {
  if (!args.mgid && args.to.empty())
    throw CLI::ValidationError("TO", "TO is required without --mgid");
  if (args.mgid && !args.to.empty())
    throw CLI::ValidationError("TO", "--mgid walks from FROM alone: give no TO");
}

}  // namespace

void addPathCommand(CLI::App& app, PathArgs& args) {
  auto* cmd = app.add_subcommand(
      "path",
      "The route of one pair hop by hop (or a multicast tree's branches from FROM), "
      "from a topology file's dry run or from the running daemon's tables");
  cmd->add_option("FROM", args.from, "Source: node name, node or port GUID, or LID")->required();
  cmd->add_option("TO", args.to, "Destination: node name, node or port GUID, or LID");
  cmd->add_option("--mgid", args.mgid,
                  "Walk the multicast tree of this group (MGID as saquery prints it, or an "
                  "MLID 0xc000-0xfffe) from FROM instead");
  cmd->add_option("--sl", args.sl,
                  "Service level of the packets, as a PathRecord query names it (default: the "
                  "QoS level's SL the SA answers, else 0)")
      ->check(CLI::Range(0, 15));
  cmd->add_option("--pkey", args.pkey,
                  "PKey the PathRecord query names (QoS match rules and levels by PKey)");
  cmd->add_option("--service-id", args.serviceId,
                  "ServiceID the PathRecord query names (QoS match rules by service-id)");
  cmd->add_option("--qos-class", args.qosClass,
                  "QoSClass the PathRecord query names (QoS match rules by qos-class)")
      ->check(CLI::Range(0, 255));
  cmd->add_flag("--json", args.json, "Print the walk as JSON");
  auto* topology = cmd->add_option("-t,--topology", args.topology,
                                   "Offline: route this ibnetdiscover output or ibsim net file "
                                   "as `ibsm route` does (else: ask the running daemon)");
  cmd->add_option("--dir", args.dir,
                  "Offline: walk the tables a dry run wrote to DIR (opensm-lfts.dump or lfts.ibsm, "
                  "guid2lid, sl2vl.dump, mfts.dump, mcast-groups) for the --topology it was made "
                  "from")
      ->needs(topology);
  cmd->add_option("-R,--engine", args.engines,
                  "Routing engine(s) to try in order, as `ibsm route` takes them")
      ->delimiter(',')
      ->needs(topology);
  cmd->add_option("--guid2lid", args.guid2lid, "OpenSM-format guid2lid file of LIDs to keep")
      ->needs(topology);
  cmd->add_option("--lmc", args.lmc, "LID Mask Control (0-7)")->needs(topology);
  cmd->add_option("-a,--root-guids", args.rootGuids, "File of root switch GUIDs (updn, ftree)")
      ->needs(topology);
  cmd->add_option("-P,--partitions", args.partitions,
                  "partitions.conf (offline; as `ibsm route`): the groups --mgid looks in, the "
                  "ports a QoS policy's pkey: and partition: port groups name")
      ->needs(topology);
  cmd->add_option(
         "--qos-policy", args.qosPolicy,
         "Offline: OpenSM's qos-policy.conf whose level gives the SL (not qos.policy_file)")
      ->needs(topology);
  cmd->add_option("-F,--config", args.config,
                  fmt::format("TOML config (default {} if present): routing options offline, "
                              "sm.control_socket live",
                              config::kDefaultConfigPath));
  cmd->add_option("--socket", args.socket,
                  "Daemon's control socket (default: sm.control_socket of the config)")
      ->excludes(topology);
  cmd->callback([&args] { checkTarget(args); });
}

int runPath(const PathArgs& args) {
  auto query = slQuery(args);
  if (!query) return inputError(query.error().message);
  return args.topology ? walkOffline(args, *query) : walkLive(args, *query);
}

}  // namespace ibsm::sm::cli
