#include "sm/cli/RouteMulticast.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace ibsm::sm::cli {
namespace {

// The CA and router ports of each partition, by PKey (low 15 bits).
std::map<std::uint16_t, std::vector<McRouteMember>> endPortMembers(
    const Fabric& fabric, const partition::PartitionPlan& plan) {
  std::map<std::uint16_t, std::vector<McRouteMember>> out;
  for (const auto& part : plan.partitions) {
    auto& members = out[part.pkey];
    for (const auto& m : part.members)
      if (!fabric.node(m.port.node).isSwitch()) members.push_back({m.guid, true});
    std::ranges::sort(members);
    const auto [first, last] = std::ranges::unique(members);
    members.erase(first, last);
  }
  return out;
}

}  // namespace

Result<DryRunMulticast> planDryRunMulticast(const Fabric& fabric,
                                            const partition::PartitionConfig& config,
                                            const MulticastOptions& options) {
  auto partitions = partition::planPartitions(fabric, config, std::nullopt);
  if (!partitions) return std::unexpected(partitions.error());
  auto specs = partition::multicastGroups(config);
  if (!specs) return std::unexpected(specs.error());
  if (specs->size() > std::size_t{kLastMlid.value - kFirstMlid.value} + 1)
    return fail(fmt::format("{} multicast groups, more than the {} MLIDs", specs->size(),
                            kLastMlid.value - kFirstMlid.value + 1));
  const auto members = endPortMembers(fabric, *partitions);

  DryRunMulticast out;
  for (std::size_t i = 0; i < specs->size(); ++i) {
    const McGroupSpec& spec = (*specs)[i];
    const Lid mlid{static_cast<std::uint16_t>(kFirstMlid.value + i)};
    const auto it = members.find(spec.params.pkey & 0x7fff);
    McGroupRoute route{spec.mgid, mlid,
                       it == members.end() ? std::vector<McRouteMember>{} : it->second};
    out.groups.push_back({spec.mgid, mlid, spec.params, route.members, spec.where});
    out.routes.push_back(std::move(route));
  }
  auto plan = planMulticast(fabric, out.routes, options);
  if (!plan) return std::unexpected(plan.error());
  out.plan = std::move(*plan);
  out.report = analyseMulticast(fabric, out.plan, out.routes);
  return out;
}

}  // namespace ibsm::sm::cli
