#include "routing/engines/ftree/FatTreeRanking.h"

#include <fmt/format.h>

#include <algorithm>

namespace ibsm::routing::ftree {
namespace {

constexpr std::uint8_t kNoSide = 2;
constexpr std::uint16_t kFar = 0xFFFF;

// The side of every switch, or the cable that closes an odd cycle.
Result<std::vector<std::uint8_t>> sides(const FatTreeLayout& layout,
                                        const std::function<std::string(SwitchIndex)>& name) {
  std::vector<std::uint8_t> side(layout.switches(), kNoSide);
  std::vector<SwitchIndex> queue;
  for (SwitchIndex root = 0; root < layout.switches(); ++root) {
    if (side[root] != kNoSide) continue;
    side[root] = 0;
    queue.assign(1, root);
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const SwitchIndex u = queue[head];
      for (CableId c = layout.cableBegin(u); c < layout.cableEnd(u); ++c) {
        const SwitchIndex t = layout.to[c];
        if (side[t] == kNoSide) {
          side[t] = static_cast<std::uint8_t>(1 - side[u]);
          queue.push_back(t);
        } else if (side[t] == side[u]) {
          return fail(fmt::format(
              "switches {} and {} are cabled to each other but close a cycle of odd length: no "
              "reading puts them on adjacent levels, and a fat tree only cables adjacent levels",
              name(u), name(t)));
        }
      }
    }
  }
  return side;
}

std::vector<bool> leafLike(const FatTreeLayout& layout, const std::vector<std::uint32_t>& hosts) {
  std::vector<std::uint32_t> counts;
  for (const auto h : hosts)
    if (h > 0) counts.push_back(h);
  std::vector<bool> out(hosts.size(), false);
  if (counts.empty()) return out;
  std::ranges::nth_element(counts, counts.begin() + counts.size() / 2);
  const std::uint32_t median = counts[counts.size() / 2];
  for (SwitchIndex s = 0; s < hosts.size(); ++s) {
    const std::uint32_t cables = layout.cableEnd(s) - layout.cableBegin(s);
    out[s] = hosts[s] > 0 && hosts[s] * 4 >= median && hosts[s] * 2 >= cables;
  }
  return out;
}

}  // namespace

Result<std::vector<std::uint16_t>> rankFromLeaves(
    const FatTreeLayout& layout, const std::vector<std::uint32_t>& hosts,
    const std::function<std::string(SwitchIndex)>& name) {
  const auto side = sides(layout, name);
  if (!side) return std::unexpected(side.error());
  const auto like = leafLike(layout, hosts);
  std::uint64_t perSide[2] = {0, 0};
  for (SwitchIndex s = 0; s < layout.switches(); ++s)
    if (like[s]) perSide[(*side)[s]] += hosts[s];
  if (perSide[0] + perSide[1] == 0)
    return fail("no switch has a CA cabled to it: there are no leaves");
  const std::uint8_t leafSide = perSide[1] > perSide[0] ? 1 : 0;

  // Breadth first from two starts: height 0, then the other side's
  // leaf-like switches join the frontier at height 1.
  std::vector<std::uint16_t> height(layout.switches(), kFar);
  std::vector<SwitchIndex> frontier, next;
  for (SwitchIndex s = 0; s < layout.switches(); ++s)
    if (like[s] && (*side)[s] == leafSide) {
      height[s] = 0;
      frontier.push_back(s);
    }
  for (std::uint16_t h = 0; !frontier.empty(); ++h) {
    next.clear();
    if (h == 0)
      for (SwitchIndex s = 0; s < layout.switches(); ++s)
        if (like[s] && (*side)[s] != leafSide && height[s] == kFar) {
          height[s] = 1;
          next.push_back(s);
        }
    for (const SwitchIndex u : frontier)
      for (CableId c = layout.cableBegin(u); c < layout.cableEnd(u); ++c)
        if (height[layout.to[c]] == kFar) {
          height[layout.to[c]] = static_cast<std::uint16_t>(h + 1);
          next.push_back(layout.to[c]);
        }
    frontier.swap(next);
  }
  return height;
}

}  // namespace ibsm::routing::ftree
