#include <fmt/format.h>
#include <ibsm/Ids.h>
#include <ibsm/TopologyGenerator.h>

#include "routing/topology/generate/Generators.h"

namespace ibsm {

namespace topogen {

Result<void> checkNodeBudget(std::uint64_t switches, std::uint64_t hosts, std::string_view spec) {
  if (switches + hosts <= kMaxUnicastLid) return {};
  return fail(fmt::format("{}: {} switches and {} hosts need more than the {} unicast LIDs", spec,
                          switches, hosts, kMaxUnicastLid));
}

}  // namespace topogen

Result<std::string> generateNetFile(const TopologySpec& spec, const Degradation& degrade) {
  auto built = std::visit(
      [](const auto& s) -> Result<topogen::Generated> {
        using S = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<S, FatTreeSpec>)
          return topogen::buildFatTree(s);
        else if constexpr (std::is_same_v<S, DragonflySpec>)
          return topogen::buildDragonfly(s);
        else
          return topogen::buildDragonflyPlus(s);
      },
      spec);
  if (!built) return std::unexpected(built.error());
  if (auto ok = topogen::degrade(built->net, degrade); !ok) return std::unexpected(ok.error());
  return built->net.render(built->first);
}

}  // namespace ibsm
