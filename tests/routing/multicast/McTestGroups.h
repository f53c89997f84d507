// Groups for the multicast tests: members named by node description.
#pragma once

#include <gmock/gmock.h>
#include <ibsm/Multicast.h>

#include <string>
#include <string_view>
#include <vector>

#include "tests/support/FabricFixtures.h"

namespace ibsm::testing {

// The port GUID of a one-port CA (port 1) or of a switch (port 0).
inline Guid portGuidOf(const Fabric& f, std::string_view name) {
  const Node& node = f.node(nodeNamed(f, name));
  return node.isSwitch() ? node.ports[0].guid : node.ports[1].guid;
}

inline McGroupRoute groupOf(const Fabric& f, std::uint16_t mlid,
                            const std::vector<std::string>& receivers,
                            const std::vector<std::string>& senders = {}) {
  McGroupRoute g{.mgid = {}, .mlid = Lid{mlid}, .members = {}};
  for (const auto& n : receivers) g.members.push_back({portGuidOf(f, n), true});
  for (const auto& n : senders) g.members.push_back({portGuidOf(f, n), false});
  std::ranges::sort(g.members);
  return g;
}

// Every CA port, receiving.
inline McGroupRoute everyCa(const Fabric& f, std::uint16_t mlid) {
  McGroupRoute g{.mgid = {}, .mlid = Lid{mlid}, .members = {}};
  for (const NodeId id : f.endNodes())
    for (std::size_t p = 1; p < f.node(id).ports.size(); ++p)
      if (f.node(id).ports[p].connected()) g.members.push_back({f.node(id).ports[p].guid, true});
  std::ranges::sort(g.members);
  return g;
}

// The broadcast group (MLID 0xC000, every CA port) and, for k = 2..lastStep,
// a group (MLID 0xC000 + k) of every k-th CA port: memberships that spread
// the trees' branches over the fabric.
inline std::vector<McGroupRoute> everyKthCa(const Fabric& f, std::size_t lastStep) {
  std::vector<McGroupRoute> groups{everyCa(f, 0xC000)};
  for (std::size_t step = 2; step <= lastStep; ++step) {
    McGroupRoute g{
        .mgid = {}, .mlid = Lid{static_cast<std::uint16_t>(0xC000 + step)}, .members = {}};
    for (std::size_t i = step / 2; i < groups[0].members.size(); i += step)
      g.members.push_back(groups[0].members[i]);
    groups.push_back(std::move(g));
  }
  return groups;
}

inline McPortMask maskOf(std::initializer_list<int> ports) {
  McPortMask m;
  for (const int p : ports) m.set(static_cast<std::size_t>(p));
  return m;
}

}  // namespace ibsm::testing
