// `ibsm path FROM TO`: the route of one pair, hop by hop, as the switches
// forward it -- from the dry run's tables of a topology file (routed here as
// `ibsm route` routes it, or read from a dry run's output directory) or
// from the running daemon's held tables. `--mgid MGID FROM`: the branches
// of a multicast tree from FROM. The walk is routing/analysis/PathWalk.h's.
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ibsm::sm::cli {

struct PathArgs {
  std::string from;
  std::string to;  // empty with --mgid
  std::optional<std::string> mgid;
  // What a PathRecord query names beside its ends: the SL shown is the QoS
  // level's the SA would answer for it (routing/analysis/PathSl.h).
  std::optional<int> sl;
  std::optional<std::string> pkey;       // decimal or 0x hex
  std::optional<std::string> serviceId;  // decimal or 0x hex
  std::optional<int> qosClass;
  bool json{false};
  // Offline: the fabric, routed as `ibsm route` routes it with these...
  std::optional<std::filesystem::path> topology;
  std::vector<std::string> engines;
  std::optional<std::filesystem::path> guid2lid;
  std::optional<int> lmc;
  std::optional<std::filesystem::path> rootGuids;
  std::optional<std::filesystem::path> partitions;
  std::optional<std::filesystem::path> qosPolicy;  // else the config's qos.policy_file
  // ...or with the tables of a dry run's output directory (made from it).
  std::optional<std::filesystem::path> dir;
  // The config (engine, LMC, partitions offline; sm.control_socket live).
  std::optional<std::filesystem::path> config;
  std::optional<std::filesystem::path> socket;  // live: else the config's sm.control_socket
};

void addPathCommand(CLI::App& app, PathArgs& args);
// Exit status: 0 the pair is delivered (or the tree walked without a
// problem); 1 it is not (no entry, dead port, loop, wrong port), or the
// daemon answered with an error; 2 bad input or no daemon.
int runPath(const PathArgs& args);

}  // namespace ibsm::sm::cli
