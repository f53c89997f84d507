// Dragonfly and dragonfly+ cabled as the sample fabrics of the tests are: hosts
// on the low ports, then local links, then global links; global port j of a
// group sits on router j/h (dragonfly) or spine j%spines (dragonfly+).
#include <fmt/format.h>

#include <algorithm>

#include "routing/topology/generate/Generators.h"
#include "routing/topology/generate/GlobalLinks.h"

namespace ibsm::topogen {

namespace {

Result<void> atLeast(std::string_view family, std::string_view name, int value, int minimum) {
  if (value >= minimum) return {};
  return fail(fmt::format("{} {}={}: {} must be at least {}", family, name, value, name, minimum));
}

Result<void> checkDragonfly(const DragonflySpec& s) {
  for (auto ok : {atLeast("dragonfly", "a", s.a, 2), atLeast("dragonfly", "p", s.p, 1),
                  atLeast("dragonfly", "h", s.h, 1)})
    if (!ok) return ok;
  const int radix = s.p + s.a - 1 + s.h;
  if (radix > kMaxSwitchPorts)
    return fail(
        fmt::format("dragonfly a={} p={} h={}: a router needs p+a-1+h = {} ports, more "
                    "than {}",
                    s.a, s.p, s.h, radix, kMaxSwitchPorts));
  const int maxGroups = s.a * s.h + 1;
  if (s.g != 0 && (s.g < 2 || s.g > maxGroups))
    return fail(
        fmt::format("dragonfly g={}: g must be from 2 to a*h+1 = {} so that every pair "
                    "of groups is linked (0 means {})",
                    s.g, maxGroups, maxGroups));
  return {};
}

Result<void> checkDragonflyPlus(const DragonflyPlusSpec& s) {
  for (auto ok :
       {atLeast("dragonfly+", "groups", s.groups, 2), atLeast("dragonfly+", "leaves", s.leaves, 1),
        atLeast("dragonfly+", "spines", s.spines, 1),
        atLeast("dragonfly+", "hostsPerLeaf", s.hostsPerLeaf, 1),
        atLeast("dragonfly+", "globalPerSpine", s.globalPerSpine, 1)})
    if (!ok) return ok;
  const int maxGroups = s.spines * s.globalPerSpine + 1;
  if (s.groups > maxGroups)
    return fail(
        fmt::format("dragonfly+ groups={}: groups must be at most "
                    "spines*globalPerSpine+1 = {} so that every pair of groups is linked",
                    s.groups, maxGroups));
  if (s.leaves + s.globalPerSpine > kMaxSwitchPorts || s.hostsPerLeaf + s.spines > kMaxSwitchPorts)
    return fail(
        fmt::format("dragonfly+ leaves={} spines={} hostsPerLeaf={} globalPerSpine={}: a "
                    "switch would need more than {} ports",
                    s.leaves, s.spines, s.hostsPerLeaf, s.globalPerSpine, kMaxSwitchPorts));
  return {};
}

}  // namespace

Result<Generated> buildDragonfly(const DragonflySpec& s) {
  if (auto ok = checkDragonfly(s); !ok) return std::unexpected(ok.error());
  const int groups = s.g == 0 ? s.a * s.h + 1 : s.g;
  const int radix = s.p + s.a - 1 + s.h;
  const auto routers = std::uint64_t(groups) * std::uint64_t(s.a);
  if (auto ok =
          checkNodeBudget(routers, routers * std::uint64_t(s.p),
                          fmt::format("dragonfly a={} p={} h={} g={}", s.a, s.p, s.h, groups));
      !ok)
    return std::unexpected(ok.error());

  Generated g;
  NetBuilder& net = g.net;
  auto router = [&](int group, int r) { return static_cast<NetNode>(group * s.a + r); };
  for (int gr = 0; gr < groups; ++gr)
    for (int r = 0; r < s.a; ++r) net.addSwitch(fmt::format("g{}r{}", gr, r), radix);
  // Local mesh: router r reaches the others in order on ports p+1 .. p+a-1.
  auto localPort = [&](int r, int other) { return s.p + 1 + (other < r ? other : other - 1); };
  for (int gr = 0; gr < groups; ++gr)
    for (int r = 0; r < s.a; ++r)
      for (int o = r + 1; o < s.a; ++o)
        net.cable({router(gr, r), localPort(r, o)}, {router(gr, o), localPort(o, r)});
  const GlobalLinks links(groups, s.a * s.h, GlobalLinks::Order::Circulant);
  auto globalPort = [&](int group, int j) {
    return NetPort{router(group, j / s.h), s.p + s.a + j % s.h};
  };
  for (int gr = 0; gr < groups; ++gr)
    for (int j = 0; j < s.a * s.h; ++j)
      if (const auto far = links.peer(gr, j); far && far->group > gr)
        net.cable(globalPort(gr, j), globalPort(far->group, far->port));
  for (int gr = 0; gr < groups; ++gr)
    for (int r = 0; r < s.a; ++r)
      for (int i = 0; i < s.p; ++i) {
        const NetNode host = net.addHca(fmt::format("h{}_{}_{}", gr, r, i));
        if (gr == 0 && r == 0 && i == 0) g.first = host;
        net.cable({router(gr, r), 1 + i}, {host, 1});
      }
  return g;
}

Result<Generated> buildDragonflyPlus(const DragonflyPlusSpec& s) {
  if (auto ok = checkDragonflyPlus(s); !ok) return std::unexpected(ok.error());
  // One switch model for leaves and spines, as a real dragonfly+ is built.
  const int radix = std::max(s.leaves + s.globalPerSpine, s.hostsPerLeaf + s.spines);
  const auto switches = std::uint64_t(s.groups) * std::uint64_t(s.leaves + s.spines);
  if (auto ok = checkNodeBudget(
          switches,
          std::uint64_t(s.groups) * std::uint64_t(s.leaves) * std::uint64_t(s.hostsPerLeaf),
          fmt::format("dragonfly+ groups={} leaves={} spines={}", s.groups, s.leaves, s.spines));
      !ok)
    return std::unexpected(ok.error());

  Generated g;
  NetBuilder& net = g.net;
  std::vector<NetNode> spine(static_cast<std::size_t>(s.groups * s.spines));
  for (int gr = 0; gr < s.groups; ++gr) {
    for (int sp = 0; sp < s.spines; ++sp)
      spine[gr * s.spines + sp] = net.addSwitch(fmt::format("g{}s{}", gr, sp), radix);
    for (int l = 0; l < s.leaves; ++l) {
      const NetNode leaf = net.addSwitch(fmt::format("g{}l{}", gr, l), radix);
      for (int sp = 0; sp < s.spines; ++sp)
        net.cable({leaf, s.hostsPerLeaf + 1 + sp}, {spine[gr * s.spines + sp], 1 + l});
      for (int i = 0; i < s.hostsPerLeaf; ++i) {
        const NetNode host = net.addHca(fmt::format("h{}_{}_{}", gr, l, i));
        if (gr == 0 && l == 0 && i == 0) g.first = host;
        net.cable({leaf, 1 + i}, {host, 1});
      }
    }
  }
  const GlobalLinks links(s.groups, s.spines * s.globalPerSpine, GlobalLinks::Order::Ascending);
  auto globalPort = [&](int group, int j) {
    return NetPort{spine[group * s.spines + j % s.spines], s.leaves + 1 + j / s.spines};
  };
  for (int gr = 0; gr < s.groups; ++gr)
    for (int j = 0; j < s.spines * s.globalPerSpine; ++j)
      if (const auto far = links.peer(gr, j); far && far->group > gr)
        net.cable(globalPort(gr, j), globalPort(far->group, far->port));
  return g;
}

}  // namespace ibsm::topogen
