// Fat trees built the way the tests' sample fabrics are cabled: hosts on the low
// ports of a leaf, up-links above them grouped per upper switch (a trunk's
// cables on consecutive ports), and an upper switch's ports ordered by the
// lower switch they reach.
#include <fmt/format.h>

#include "routing/topology/generate/Generators.h"

namespace ibsm::topogen {

namespace {

// Port budget of a leaf (2-level) or edge switch (3-level).
struct LeafPorts {
  int hosts{0};
  int up{0};
};

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

std::string specText(const FatTreeSpec& s) {
  return fmt::format("fat tree levels={} radix={} trunk={}", s.levels, s.radix, s.trunk);
}

// Leaves with their hosts; spines each reach every leaf `trunk` times.
Result<Generated> twoLevel(const FatTreeSpec& s, LeafPorts leaf) {
  const int t = s.trunk;
  const int leaves = s.radix / t;
  const int spines = leaf.up / t;
  if (auto ok = checkNodeBudget(std::uint64_t(leaves + spines),
                                std::uint64_t(leaves) * std::uint64_t(leaf.hosts), specText(s));
      !ok)
    return std::unexpected(ok.error());

  Generated g;
  NetBuilder& net = g.net;
  std::vector<NetNode> spine(static_cast<std::size_t>(spines));
  for (int i = 0; i < spines; ++i) spine[i] = net.addSwitch(fmt::format("spine{}", i), s.radix);
  for (int l = 0; l < leaves; ++l) {
    const NetNode leafNode = net.addSwitch(fmt::format("leaf{}", l), s.radix);
    for (int h = 0; h < leaf.hosts; ++h) {
      const NetNode host = net.addHca(fmt::format("h{}_{}", l, h));
      if (l == 0 && h == 0) g.first = host;
      net.cable({leafNode, 1 + h}, {host, 1});
    }
    for (int sp = 0; sp < spines; ++sp)
      for (int i = 0; i < t; ++i)
        net.cable({leafNode, leaf.hosts + 1 + sp * t + i}, {spine[sp], 1 + l * t + i});
  }
  return g;
}

// k/t pods of edge and aggregation switches under (up/t) * (k/2t) cores:
// core c belongs to aggregation slot c / (k/2t) and reaches that slot's
// switch in every pod.
Result<Generated> threeLevel(const FatTreeSpec& s, LeafPorts leaf) {
  const int t = s.trunk;
  const int half = s.radix / 2;
  const int pods = s.radix / t;
  const int edges = half / t;        // per pod
  const int aggs = leaf.up / t;      // per pod
  const int coresPerAgg = half / t;  // cores one aggregation switch reaches
  const int cores = aggs * coresPerAgg;
  if (auto ok = checkNodeBudget(
          std::uint64_t(pods) * std::uint64_t(edges + aggs) + std::uint64_t(cores),
          std::uint64_t(pods) * std::uint64_t(edges) * std::uint64_t(leaf.hosts), specText(s));
      !ok)
    return std::unexpected(ok.error());

  Generated g;
  NetBuilder& net = g.net;
  std::vector<NetNode> core(static_cast<std::size_t>(cores));
  for (int c = 0; c < cores; ++c) core[c] = net.addSwitch(fmt::format("core{}", c), s.radix);
  std::vector<NetNode> edge(static_cast<std::size_t>(pods * edges));
  for (int p = 0; p < pods; ++p) {
    std::vector<NetNode> agg(static_cast<std::size_t>(aggs));
    for (int a = 0; a < aggs; ++a) {
      agg[a] = net.addSwitch(fmt::format("agg{}_{}", p, a), s.radix);
      for (int j = 0; j < coresPerAgg; ++j)
        for (int i = 0; i < t; ++i)
          net.cable({agg[a], half + 1 + j * t + i}, {core[a * coresPerAgg + j], 1 + p * t + i});
    }
    for (int e = 0; e < edges; ++e) {
      const NetNode edgeNode = net.addSwitch(fmt::format("edge{}_{}", p, e), s.radix);
      edge[p * edges + e] = edgeNode;
      for (int a = 0; a < aggs; ++a)
        for (int i = 0; i < t; ++i)
          net.cable({edgeNode, leaf.hosts + 1 + a * t + i}, {agg[a], 1 + e * t + i});
    }
  }
  // Hosts follow all switches, as in the samples.
  for (int p = 0; p < pods; ++p)
    for (int e = 0; e < edges; ++e)
      for (int h = 0; h < leaf.hosts; ++h) {
        const NetNode host = net.addHca(fmt::format("h{}_{}_{}", p, e, h));
        if (p == 0 && e == 0 && h == 0) g.first = host;
        net.cable({edge[p * edges + e], 1 + h}, {host, 1});
      }
  return g;
}

}  // namespace

Result<Generated> buildFatTree(const FatTreeSpec& spec) {
  const auto leaf = leafPorts(spec);
  if (!leaf) return std::unexpected(leaf.error());
  return spec.levels == 2 ? twoLevel(spec, *leaf) : threeLevel(spec, *leaf);
}

}  // namespace ibsm::topogen
