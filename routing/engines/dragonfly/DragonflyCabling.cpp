#include "routing/engines/dragonfly/DragonflyCabling.h"

#include <fmt/format.h>

namespace ibsm::routing::dragonfly {

Neighbours neighbours(const SwitchGraph& g) {
  Neighbours out(g.size());
  for (SwitchIndex s = 0; s < g.size(); ++s) {
    g.forEachCable(s, [&](SwitchIndex t, const Cable&) {
      if (t != s) out[s].push_back(t);
    });
    std::ranges::sort(out[s]);
    out[s].erase(std::unique(out[s].begin(), out[s].end()), out[s].end());
  }
  return out;
}

std::string switchName(const Fabric& f, const SwitchGraph& g, SwitchIndex s) {
  return fmt::format("\"{}\" ({})", f.node(g.nodeId(s)).description, f.node(g.nodeId(s)).guid);
}

}  // namespace ibsm::routing::dragonfly
