// Fat trees built the way the tests' sample fabrics are cabled: hosts on the low
// ports of a leaf, up-links above them grouped per upper switch (a trunk's
// cables on consecutive ports), and an upper switch's ports ordered by the
// lower switch they reach. Servers are placed by rail group (one leaf
// without rails), so a tree without rails is what it always was.
#include <fmt/format.h>

#include "routing/topology/generate/FatTreeDimensions.h"
#include "routing/topology/generate/FatTreeFurniture.h"
#include "routing/topology/generate/Generators.h"

namespace ibsm::topogen {

namespace {

struct Tree {
  Generated g;
  LevelSwitches levels;
};

// The servers of one rail group: HCA r of server s on port s+1 of
// switches[r]. Without rails a group is one switch and a server one HCA,
// "<prefix>_<s>"; with them each HCA is named as Linux describes a server's
// HCAs, "<prefix>_<s> mlx5_<r>".
struct RailGroup {
  std::vector<NetNode> switches;
  int servers{0};
  std::string prefix;
};

// Returns the group's first HCA.
NetNode addServers(NetBuilder& net, const RailGroup& group) {
  NetNode first = 0;
  const std::size_t width = group.switches.size();
  for (int s = 0; s < group.servers; ++s)
    for (std::size_t r = 0; r < width; ++r) {
      const NetNode hca = net.addHca(width == 1 ? fmt::format("{}_{}", group.prefix, s)
                                                : fmt::format("{}_{} mlx5_{}", group.prefix, s, r));
      if (s == 0 && r == 0) first = hca;
      net.cable({group.switches[r], 1 + s}, {hca, 1});
    }
  return first;
}

// Leaves with their hosts; spines each reach every leaf `trunk` times.
Tree twoLevel(const FatTreeSpec& s, const FatTreeDimensions& dim) {
  const int t = s.trunk;
  const int w = dim.railWidth;
  Tree tree;
  NetBuilder& net = tree.g.net;
  auto& spine = tree.levels[1];
  for (int i = 0; i < dim.uppers; ++i)
    spine.push_back(net.addSwitch(fmt::format("spine{}", i), dim.ports[1]));
  for (int group = 0; group < dim.leaves / w; ++group) {
    RailGroup servers{{}, dim.leaf.hosts, fmt::format("h{}", group)};
    for (int r = 0; r < w; ++r) {
      const int l = group * w + r;
      const NetNode leaf = net.addSwitch(fmt::format("leaf{}", l), dim.ports[0]);
      for (int sp = 0; sp < dim.uppers; ++sp)
        for (int i = 0; i < t; ++i)
          net.cable({leaf, dim.leaf.hosts + 1 + sp * t + i}, {spine[sp], 1 + l * t + i});
      servers.switches.push_back(leaf);
      tree.levels[0].push_back(leaf);
    }
    const NetNode first = addServers(net, servers);
    if (group == 0) tree.g.first = first;
  }
  return tree;
}

// Hosts follow all switches, as in the samples, pod by pod: under the edges,
// or on the aggregation switches of a director pod. Ordinary rail groups are
// numbered over the fabric, a director pod's within the pod.
void addThreeLevelServers(Tree& tree, const FatTreeDimensions& dim) {
  const int w = dim.railWidth;
  int railGroup = 0;
  for (int p = 0; p < dim.pods; ++p) {
    const bool director = p < dim.directorPods;
    const auto& level = director ? tree.levels[1] : tree.levels[0];
    const int perPod = director ? dim.uppers : dim.leaves;
    const int base = director ? p * dim.uppers : (p - dim.directorPods) * dim.leaves;
    for (int g = 0; g < perPod / w; ++g) {
      RailGroup servers;
      servers.servers = director ? dim.directorHosts : dim.leaf.hosts;
      for (int r = 0; r < w; ++r) servers.switches.push_back(level[base + g * w + r]);
      if (director)
        servers.prefix = fmt::format("d{}_{}", p, g);
      else
        servers.prefix = w == 1 ? fmt::format("h{}_{}", p, g) : fmt::format("h{}", railGroup++);
      const NetNode first = addServers(tree.g.net, servers);
      if (p == 0 && g == 0) tree.g.first = first;
    }
  }
}

// k/t pods of edge and aggregation switches under (up/t) * (k/2t) cores:
// core c belongs to aggregation slot c / (k/2t) and reaches that slot's
// switch in every pod. Director pods have no edges.
Tree threeLevel(const FatTreeSpec& s, const FatTreeDimensions& dim) {
  const int t = s.trunk;
  const int half = s.radix / 2;
  Tree tree;
  NetBuilder& net = tree.g.net;
  auto& core = tree.levels[2];
  for (int c = 0; c < dim.switches[2]; ++c)
    core.push_back(net.addSwitch(fmt::format("core{}", c), dim.ports[2]));
  for (int p = 0; p < dim.pods; ++p) {
    std::vector<NetNode> agg(static_cast<std::size_t>(dim.uppers));
    for (int a = 0; a < dim.uppers; ++a) {
      agg[a] = net.addSwitch(fmt::format("agg{}_{}", p, a), dim.ports[1]);
      tree.levels[1].push_back(agg[a]);
      for (int j = 0; j < dim.coresPerAgg; ++j)
        for (int i = 0; i < t; ++i)
          net.cable({agg[a], half + 1 + j * t + i}, {core[a * dim.coresPerAgg + j], 1 + p * t + i});
    }
    if (p < dim.directorPods) continue;
    for (int e = 0; e < dim.leaves; ++e) {
      const NetNode edge = net.addSwitch(fmt::format("edge{}_{}", p, e), dim.ports[0]);
      tree.levels[0].push_back(edge);
      for (int a = 0; a < dim.uppers; ++a)
        for (int i = 0; i < t; ++i)
          net.cable({edge, dim.leaf.hosts + 1 + a * t + i}, {agg[a], 1 + e * t + i});
    }
  }
  addThreeLevelServers(tree, dim);
  return tree;
}

}  // namespace

Result<Generated> buildFatTree(const FatTreeSpec& spec) {
  const auto dims = fatTreeDimensions(spec);
  if (!dims) return std::unexpected(dims.error());
  Tree tree = spec.levels == 2 ? twoLevel(spec, *dims) : threeLevel(spec, *dims);
  addIoHosts(tree.g.net, spec, tree.levels);
  if (spec.aggregationNodes) addAggregationNodes(tree.g.net);
  return std::move(tree.g);
}

}  // namespace ibsm::topogen
