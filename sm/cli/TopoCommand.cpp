#include "sm/cli/TopoCommand.h"

#include <fmt/format.h>

#include <charconv>

#include "sm/files/FileIo.h"

namespace ibsm::sm::cli {
namespace {

// "LEVEL:COUNT"; the generator judges the numbers.
Result<IoHosts> parseIoHosts(std::string_view text) {
  IoHosts io;
  const char* end = text.data() + text.size();
  const auto level = std::from_chars(text.data(), end, io.level);
  if (level.ec == std::errc{} && level.ptr != end && *level.ptr == ':') {
    const auto count = std::from_chars(level.ptr + 1, end, io.count);
    if (count.ec == std::errc{} && count.ptr == end && count.ptr != level.ptr + 1) return io;
  }
  return fail(fmt::format("--io-hosts '{}': expected LEVEL:COUNT, e.g. 2:4", text));
}

void addFatTreeFurniture(CLI::App* cmd, TopoArgs& args) {
  cmd->add_flag("--aggregation-nodes", args.fatTree.aggregationNodes,
                "A SHARP aggregation node on every switch's last port, sharing its system image "
                "GUID");
  cmd->add_option("--io-hosts", args.ioHosts,
                  "COUNT I/O hosts round-robin over the switches of LEVEL (1: above the leaves, "
                  "2: the cores) on extra ports; once per level")
      ->type_name("LEVEL:COUNT")
      ->allow_extra_args(false);
  cmd->add_option("--director-pods", args.fatTree.directorPods,
                  "3 levels: the first N pods have no edges, hosts straight on the aggregation "
                  "switches (director chassis)")
      ->capture_default_str();
  cmd->add_option("--rails", args.fatTree.rails,
                  "N HCAs per server, HCA r on leaf r of a group of N consecutive leaves "
                  "(0 or 1: none)")
      ->capture_default_str();
}

void addCommon(CLI::App* cmd, TopoArgs& args) {
  auto* degrade = cmd->add_option(
      "--degrade", args.degrade.links,
      "Remove this many random inter-switch cables (never disconnecting the fabric)");
  // A seed alone would be read as a request for a random fabric it cannot make.
  cmd->add_option("--seed", args.degrade.seed, "Seed for --degrade (same seed, same cables)")
      ->needs(degrade);
  cmd->add_option("-o,--out", args.out, "Write the net file here instead of stdout");
}

}  // namespace

void addTopoCommand(CLI::App& app, TopoArgs& args) {
  auto* topo = app.add_subcommand("topo", "Topology tools");
  auto* gen = topo->add_subcommand("generate", "Write an ibsim net file for a synthetic fabric");
  gen->require_subcommand(1);
  topo->require_subcommand(1);

  args.fatTreeCmd = gen->add_subcommand("fat-tree", "2- or 3-level fat tree of radix-k switches");
  args.fatTreeCmd->add_option("--levels", args.fatTree.levels, "2 or 3")->capture_default_str();
  args.fatTreeCmd->add_option("--radix", args.fatTree.radix, "Switch radix (even)")
      ->capture_default_str();
  args.fatTreeCmd->add_option("--trunk", args.fatTree.trunk, "Parallel cables per switch pair")
      ->capture_default_str();
  args.fatTreeCmd
      ->add_option("--oversubscription", args.fatTree.oversubscription,
                   "n for n:1 hosts to up-links at the leaves")
      ->capture_default_str();
  args.fatTreeCmd
      ->add_option("--hosts-per-leaf", args.fatTree.hostsPerLeaf,
                   "Hosts per leaf (0: from the radix and oversubscription)")
      ->capture_default_str();
  addFatTreeFurniture(args.fatTreeCmd, args);
  addCommon(args.fatTreeCmd, args);

  args.dragonflyCmd = gen->add_subcommand("dragonfly", "Dragonfly: fully meshed groups of routers");
  args.dragonflyCmd->add_option("-a", args.dragonfly.a, "Routers per group")->capture_default_str();
  args.dragonflyCmd->add_option("-p", args.dragonfly.p, "Hosts per router")->capture_default_str();
  args.dragonflyCmd->add_option("--global,-H", args.dragonfly.h, "Global links per router")
      ->capture_default_str();
  args.dragonflyCmd->add_option("-g", args.dragonfly.g, "Groups (0: a*h+1, the maximum)")
      ->capture_default_str();
  addCommon(args.dragonflyCmd, args);

  args.dragonflyPlusCmd = gen->add_subcommand(
      "dragonfly-plus", "Dragonfly+: leaf/spine groups, global links on spines");
  auto& dp = args.dragonflyPlus;
  args.dragonflyPlusCmd->add_option("--groups", dp.groups, "Groups, each joined to every other")
      ->capture_default_str();
  args.dragonflyPlusCmd->add_option("--leaves", dp.leaves, "Leaves per group")
      ->capture_default_str();
  args.dragonflyPlusCmd->add_option("--spines", dp.spines, "Spines per group")
      ->capture_default_str();
  args.dragonflyPlusCmd->add_option("--hosts-per-leaf", dp.hostsPerLeaf, "Hosts on each leaf")
      ->capture_default_str();
  args.dragonflyPlusCmd
      ->add_option("--global-per-spine", dp.globalPerSpine,
                   "Global links from each spine to spines of other groups")
      ->capture_default_str();
  addCommon(args.dragonflyPlusCmd, args);
}

int runTopo(const TopoArgs& args) {
  TopologySpec spec;
  if (args.fatTreeCmd->parsed()) {
    FatTreeSpec fatTree = args.fatTree;
    for (const std::string& text : args.ioHosts) {
      const auto io = parseIoHosts(text);
      if (!io) {
        fmt::print(stderr, "ibsm topo generate: {}\n", io.error().message);
        return 2;
      }
      fatTree.ioHosts.push_back(*io);
    }
    spec = fatTree;
  } else if (args.dragonflyCmd->parsed())
    spec = args.dragonfly;
  else
    spec = args.dragonflyPlus;
  auto net = generateNetFile(spec, args.degrade);
  if (!net) {
    fmt::print(stderr, "ibsm topo generate: {}\n", net.error().message);
    return 2;
  }
  if (!args.out) {
    fmt::print("{}", *net);
    return 0;
  }
  if (auto ok = files::writeFileAtomically(*args.out, *net); !ok) {
    fmt::print(stderr, "ibsm topo generate: {}\n", ok.error().message);
    return 2;
  }
  return 0;
}

}  // namespace ibsm::sm::cli
