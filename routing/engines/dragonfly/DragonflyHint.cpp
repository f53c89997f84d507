#include "routing/engines/dragonfly/DragonflyHint.h"

#include <algorithm>

namespace ibsm::routing::dragonfly {
namespace {

constexpr std::uint8_t kNoLen = 0xFF;

// Hops of every switch along the entries of one LID, nearest first from
// those already known; kNoLen where a chain ends nowhere.
void measure(const PortMap& ports, std::size_t n, const std::uint8_t* out, std::uint8_t* len,
             std::vector<SwitchIndex>& chain) {
  for (SwitchIndex s = 0; s < n; ++s) {
    chain.clear();
    SwitchIndex t = s;
    while (t != kNoSwitch && len[t] == kNoLen && out[t] != kNoRoute && chain.size() <= n) {
      chain.push_back(t);
      t = out[t] < ports.stride ? ports.peer[ports.at(t, out[t])] : kNoSwitch;
    }
    if (t == kNoSwitch || len[t] == kNoLen || chain.size() > n) continue;
    std::uint32_t l = len[t];
    for (auto it = chain.rbegin(); it != chain.rend(); ++it)
      len[*it] = static_cast<std::uint8_t>(std::min<std::uint32_t>(++l, kNoLen - 1));
  }
}

}  // namespace

std::uint64_t keepPrevious(const SwitchGraph& graph, const PortMap& ports, PreviousChains& chains,
                           DragonflyTables& tables) {
  const std::size_t n = graph.size();
  std::vector<SwitchIndex> held, chain;
  std::vector<std::uint8_t> kept(n);
  std::uint64_t count = 0;
  for (std::size_t lid = 1; lid < tables.targets.size(); ++lid) {
    const LidTarget& target = tables.targets[lid];
    if (target.sw == kNoSwitch) continue;
    chains.judge(Lid{static_cast<std::uint16_t>(lid)}, target.sw, target.switchPort);
    std::uint8_t* out = tables.out.data() + lid * n;
    std::uint8_t* len = tables.len.data() + lid * n;
    held.clear();
    for (SwitchIndex s = 0; s < n; ++s)
      if (s != target.sw && chains.holds(s) && chains.length(s) <= len[s]) held.push_back(s);
    // Nearest first: a chain is kept only when the switch it goes on to keeps
    // its own, so that every kept chain is the previous one all the way.
    std::ranges::stable_sort(held, {}, [&](SwitchIndex s) { return chains.length(s); });
    std::ranges::fill(kept, 0);
    kept[target.sw] = 1;
    for (const SwitchIndex s : held) {
      if (!kept[chains.next(s)]) continue;
      kept[s] = 1;
      out[s] = chains.port(s);
      ++count;
    }
    std::fill(len, len + n, kNoLen);
    len[target.sw] = 0;
    measure(ports, n, out, len, chain);
  }
  return count;
}

}  // namespace ibsm::routing::dragonfly
