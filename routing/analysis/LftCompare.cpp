// Placing dumped tables on a Fabric and comparing tables entry by entry.
#include <fmt/format.h>
#include <ibsm/Dumps.h>

#include <algorithm>

namespace ibsm {

Result<std::vector<Lft>> lftsByNode(const Fabric& fabric, const std::vector<DumpedLft>& dumped) {
  std::vector<Lft> out(fabric.size());
  for (const DumpedLft& d : dumped) {
    const auto id = fabric.findNode(d.switchGuid);
    if (!id || !fabric.node(*id).isSwitch())
      return fail(
          fmt::format("the dump lists switch {} ('{}'), which is not a switch of the fabric",
                      d.switchGuid, d.description));
    const Node& sw = fabric.node(*id);
    for (std::size_t lid = 0; lid < d.lft.port.size(); ++lid) {
      const std::uint8_t port = d.lft.port[lid];
      if (port != kNoRoute && port > sw.numPorts())
        return fail(fmt::format("the dump sends LID {} to port {} of '{}' ({}), which has {} ports",
                                lid, port, sw.description, sw.guid, sw.numPorts()));
    }
    out[*id] = d.lft;
  }
  return out;
}

std::vector<LftDifference> diffLfts(const std::vector<Lft>& expected,
                                    const std::vector<Lft>& actual, Lid maxLid) {
  const Lft none;
  std::vector<LftDifference> out;
  const std::size_t nodes = std::max(expected.size(), actual.size());
  for (std::size_t n = 0; n < nodes; ++n) {
    const Lft& e = n < expected.size() ? expected[n] : none;
    const Lft& a = n < actual.size() ? actual[n] : none;
    for (std::uint32_t lid = 1; lid <= maxLid.value; ++lid) {
      const Lid l{static_cast<std::uint16_t>(lid)};
      if (e.at(l) != a.at(l))
        out.push_back(LftDifference{static_cast<NodeId>(n), l, e.at(l), a.at(l)});
    }
  }
  return out;
}

}  // namespace ibsm
