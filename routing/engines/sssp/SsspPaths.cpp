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

void appendTreeTurns(const SwitchGraph& graph, const Channels& channels, const OneTree& tree,
                     Paths& paths) {
  std::vector<SwitchIndex> from(channels.size());
  std::vector<std::uint8_t> remote(channels.size(), 0);
  for (SwitchIndex s = 0; s < graph.size(); ++s) {
    for (std::uint32_t c = channels.start[s]; c < channels.start[s + 1]; ++c) from[c] = s;
    graph.forEachCable(s, [&](SwitchIndex, const Cable& cable) {
      const std::uint32_t c = channels.at(s, cable.port);
      if (c != kNoChannel) remote[c] = cable.remotePort;
    });
  }
  const auto climbs = [&](std::uint32_t c) { return tree.climbs(from[c], channels.port[c]); };
  const auto descends = [&](std::uint32_t c) {
    return tree.descends(channels.target[c], remote[c]);
  };
  for (std::uint32_t c1 = 0; c1 < channels.size(); ++c1) {
    if (!climbs(c1) && !descends(c1)) continue;
    const SwitchIndex at = channels.target[c1];
    for (std::uint32_t c2 = channels.start[at]; c2 < channels.start[at + 1]; ++c2) {
      if (channels.target[c2] == from[c1] ||
          !OneTree::turn(climbs(c1), descends(c1), climbs(c2), descends(c2)))
        continue;
      paths.lid.push_back(0);
      paths.from.push_back(kNoSwitch);
      paths.chans.push_back(c1);
      paths.chans.push_back(c2);
      paths.begin.push_back(static_cast<std::uint32_t>(paths.chans.size()));
    }
  }
}

}  // namespace ibsm::routing::sssp
