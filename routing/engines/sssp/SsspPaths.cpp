#include "routing/engines/sssp/SsspPaths.h"

#include "routing/multicast/McTreeBuilder.h"

namespace ibsm::routing::sssp {

Paths collectPaths(const SwitchGraph& graph, const Channels& ch, const SsspTables& tables) {
  Paths out;
  const std::size_t n = graph.size();
  for (std::size_t l = 1; l < tables.targets.size(); ++l) {
    const SwitchIndex d = tables.targets[l].sw;
    if (d == kNoSwitch) continue;
    const Lid lid{static_cast<std::uint16_t>(l)};
    for (SwitchIndex s = 0; s < n; ++s) {
      const std::size_t mark = out.chans.size();
      for (SwitchIndex at = s; at != d && out.chans.size() - mark <= n;) {
        const std::uint32_t c = ch.at(at, tables.lfts[graph.nodeId(at)].at(lid));
        if (c == kNoChannel) break;
        out.chans.push_back(c);
        at = ch.target[c];
      }
      if (out.chans.size() - mark < 2) {
        out.chans.resize(mark);
        continue;
      }
      out.lid.push_back(lid.value);
      out.from.push_back(s);
      out.begin.push_back(static_cast<std::uint32_t>(out.chans.size()));
    }
  }
  return out;
}

void appendTreeTurns(const Channels& channels, const OneTree& tree, Paths& paths) {
  tree.forEachTurn([&](SwitchIndex from, std::uint8_t in, SwitchIndex at, std::uint8_t out) {
    paths.lid.push_back(0);
    paths.from.push_back(kNoSwitch);
    paths.chans.push_back(channels.at(from, in));
    paths.chans.push_back(channels.at(at, out));
    paths.begin.push_back(static_cast<std::uint32_t>(paths.chans.size()));
  });
}

}  // namespace ibsm::routing::sssp
