// The checks name the parameter as the spec field (radix=7) for the shape of
// the tree itself and as the `ibsm topo generate` option (--rails 3) for the
// furniture, so a user of either finds what to change.
#include "routing/topology/generate/FatTreeDimensions.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <set>

#include "routing/topology/generate/Generators.h"

namespace ibsm::topogen {

namespace {

Result<LeafPorts> leafPorts(const FatTreeSpec& s) {
  if (s.levels != 2 && s.levels != 3)
    return fail(fmt::format("fat tree levels={}: levels must be 2 or 3", s.levels));
  if (s.radix < 2 || s.radix > kMaxSwitchPorts || s.radix % 2 != 0)
    return fail(fmt::format("fat tree radix={}: radix must be an even number from 2 to {}", s.radix,
                            kMaxSwitchPorts));
  if (s.trunk < 1) return fail(fmt::format("fat tree trunk={}: trunk must be at least 1", s.trunk));
  if (s.oversubscription < 1)
    return fail(fmt::format("fat tree oversubscription={}: oversubscription must be at least 1",
                            s.oversubscription));
  if (s.hostsPerLeaf < 0)
    return fail(
        fmt::format("fat tree hostsPerLeaf={}: hostsPerLeaf must be 0 (from the radix) "
                    "or more",
                    s.hostsPerLeaf));
  LeafPorts leaf;
  leaf.up = s.radix / (s.oversubscription + 1);
  if (leaf.up < 1)
    return fail(fmt::format("fat tree oversubscription={}: with radix {} it must be at most {}",
                            s.oversubscription, s.radix, s.radix - 1));
  leaf.hosts = s.hostsPerLeaf > 0 ? s.hostsPerLeaf : s.oversubscription * leaf.up;
  if (leaf.hosts + leaf.up > s.radix)
    return fail(
        fmt::format("fat tree hostsPerLeaf={}: a radix-{} leaf with {} up-links has "
                    "room for at most {} hosts",
                    s.hostsPerLeaf, s.radix, leaf.up, s.radix - leaf.up));
  if (leaf.up % s.trunk != 0)
    return fail(
        fmt::format("fat tree trunk={}: trunk must divide the {} up-links of a leaf "
                    "(radix {}, oversubscription {}:1)",
                    s.trunk, leaf.up, s.radix, s.oversubscription));
  const int upper = s.levels == 2 ? s.radix : s.radix / 2;
  if (upper % s.trunk != 0)
    return fail(fmt::format("fat tree trunk={}: trunk must divide {} ({} of a radix-{} switch)",
                            s.trunk, upper, s.levels == 2 ? "the ports" : "half the ports",
                            s.radix));
  return leaf;
}

Result<void> checkDirectorPods(const FatTreeSpec& s) {
  const int n = s.directorPods;
  if (n < 0) return fail(fmt::format("fat tree --director-pods {}: expected 0 (none) or more", n));
  if (n == 0) return {};
  if (s.levels != 3)
    return fail(
        fmt::format("fat tree --director-pods {}: director pods need --levels 3 (a {}-level "
                    "tree has no edge switches to leave out)",
                    n, s.levels));
  const int pods = s.radix / s.trunk;
  if (n > pods - 1)
    return fail(
        fmt::format("fat tree --director-pods {}: expected at most {}, so that one of the {} "
                    "pods (radix {}, trunk {}) keeps its edge switches",
                    n, pods - 1, pods, s.radix, s.trunk));
  return {};
}

FatTreeDimensions counts(const FatTreeSpec& s, LeafPorts leaf) {
  FatTreeDimensions dim;
  dim.leaf = leaf;
  const int t = s.trunk;
  const int half = s.radix / 2;
  dim.pods = s.levels == 2 ? 1 : s.radix / t;
  dim.leaves = s.levels == 2 ? s.radix / t : half / t;
  dim.uppers = leaf.up / t;
  dim.coresPerAgg = s.levels == 2 ? 0 : half / t;
  dim.directorPods = s.directorPods;
  dim.directorHosts = half;  // the down ports the edges would have used
  dim.railWidth = std::max(s.rails, 1);
  dim.switches = {(dim.pods - dim.directorPods) * dim.leaves, dim.pods * dim.uppers,
                  dim.uppers * dim.coresPerAgg};
  return dim;
}

Result<void> checkRails(const FatTreeSpec& s, const FatTreeDimensions& dim) {
  const int n = s.rails;
  if (n < 0)
    return fail(fmt::format("fat tree --rails {}: expected 0 (one HCA per server) or more", n));
  if (dim.railWidth == 1) return {};
  const char* leaves = s.levels == 2 ? "leaves" : "edge switches";
  if (dim.leaves % n != 0)
    return fail(
        fmt::format("fat tree --rails {}: a rail group is {} consecutive {}, so the rails must "
                    "divide the {} {}{}",
                    n, n, leaves, dim.leaves, leaves, s.levels == 2 ? "" : " of a pod"));
  if (dim.directorPods > 0 && dim.uppers % n != 0)
    return fail(
        fmt::format("fat tree --rails {}: the hosts of a director pod form rail groups of {} "
                    "consecutive aggregation switches, so the rails must divide the {} "
                    "aggregation switches of a pod",
                    n, n, dim.uppers));
  return {};
}

Result<void> checkIoHosts(const FatTreeSpec& s, FatTreeDimensions& dim) {
  std::set<int> levels;
  for (const IoHosts& io : s.ioHosts) {
    const auto option = fmt::format("fat tree --io-hosts {}:{}", io.level, io.count);
    if (io.level < 1 || io.level >= s.levels)
      return fail(fmt::format(
          "{}: LEVEL must be {} in a {}-level tree", option,
          s.levels == 2 ? "1 (the spines)" : "1 (the aggregation switches) or 2 (the cores)",
          s.levels));
    if (io.count < 1) return fail(fmt::format("{}: COUNT must be at least 1", option));
    if (!levels.insert(io.level).second)
      return fail(fmt::format("{}: level {} is given twice (give each level once, with its total)",
                              option, io.level));
    const int switches = dim.switches[static_cast<std::size_t>(io.level)];
    dim.ioPorts[static_cast<std::size_t>(io.level)] =
        io.count / switches + (io.count % switches != 0);
  }
  return {};
}

// Radix, I/O ports, aggregation node port: at most kMaxSwitchPorts in all.
Result<void> checkPorts(const FatTreeSpec& s, FatTreeDimensions& dim) {
  const int an = s.aggregationNodes ? 1 : 0;
  for (std::size_t level = 0; level < dim.ports.size(); ++level) {
    const std::int64_t ports = std::int64_t{s.radix} + dim.ioPorts[level] + an;
    if (ports <= kMaxSwitchPorts) {
      dim.ports[level] = static_cast<int>(ports);
      continue;
    }
    if (dim.ioPorts[level] == 0)
      return fail(
          fmt::format("fat tree --aggregation-nodes: a radix-{} switch with its aggregation "
                      "node port needs {} ports, more than the {} a switch may have",
                      s.radix, ports, kMaxSwitchPorts));
    const auto io = std::find_if(s.ioHosts.begin(), s.ioHosts.end(),
                                 [&](const IoHosts& h) { return h.level == int(level); });
    return fail(
        fmt::format("fat tree --io-hosts {}:{}: {} I/O ports beside the {} of the radix{} make "
                    "{} ports on a switch of level {}, more than the {} a switch may have",
                    io->level, io->count, dim.ioPorts[level], s.radix,
                    an ? " and the aggregation node port" : "", ports, level, kMaxSwitchPorts));
  }
  return {};
}

Result<void> checkBudget(const FatTreeSpec& s, const FatTreeDimensions& dim) {
  std::uint64_t switches = 0;
  for (const int n : dim.switches) switches += std::uint64_t(n);
  std::uint64_t hosts =
      std::uint64_t(dim.pods - dim.directorPods) * std::uint64_t(dim.leaves * dim.leaf.hosts) +
      std::uint64_t(dim.directorPods) * std::uint64_t(dim.uppers * dim.directorHosts);
  for (const IoHosts& io : s.ioHosts) hosts += std::uint64_t(io.count);
  if (s.aggregationNodes) hosts += switches;
  return checkNodeBudget(
      switches, hosts,
      fmt::format("fat tree levels={} radix={} trunk={}", s.levels, s.radix, s.trunk));
}

}  // namespace

Result<FatTreeDimensions> fatTreeDimensions(const FatTreeSpec& spec) {
  const auto leaf = leafPorts(spec);
  if (!leaf) return std::unexpected(leaf.error());
  if (auto ok = checkDirectorPods(spec); !ok) return std::unexpected(ok.error());
  FatTreeDimensions dims = counts(spec, *leaf);
  // In this order: the ports need the I/O ports, the budget every count.
  if (auto ok = checkRails(spec, dims); !ok) return std::unexpected(ok.error());
  if (auto ok = checkIoHosts(spec, dims); !ok) return std::unexpected(ok.error());
  if (auto ok = checkPorts(spec, dims); !ok) return std::unexpected(ok.error());
  if (auto ok = checkBudget(spec, dims); !ok) return std::unexpected(ok.error());
  return dims;
}

}  // namespace ibsm::topogen
