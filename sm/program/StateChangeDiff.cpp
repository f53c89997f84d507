// The PortStateChange phase's Sets (Diff.h, ProgramSteps.h).
#include "sm/program/Diff.h"

namespace ibsm::sm::program {

std::vector<ProgramStep> portStateChangeClears(const discovery::DiscoveredSubnet& seen,
                                               const std::set<NodeId>& skip) {
  std::vector<ProgramStep> out;
  for (const NodeId sw : seen.fabric.switches()) {
    const auto held = seen.switchInfo.find(sw);
    if (held == seen.switchInfo.end() || !held->second.portStateChange || skip.contains(sw))
      continue;
    const auto path = pathToPort(seen, PortRef{sw, 0});
    if (!path) continue;
    SwitchInfo clear = held->second;
    clear.portStateChange = true;  // write 1 to clear
    out.push_back(
        ProgramStep{SwitchInfoTarget{sw, Lid{clear.linearFdbTop}, Lid{clear.multicastFdbTop}},
                    SmpRequest::set(AttributeId::SwitchInfo, 0, *path, encode(clear))});
  }
  return out;
}

}  // namespace ibsm::sm::program
