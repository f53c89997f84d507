// matchQos(): OpenSM's order of matching (QoS_management_in_OpenSM): the
// rules are tried in the order the file gives them (the qos-ulps lines
// turned into rules by the parser), the first whose every given criterion
// holds wins; a criterion the rule gives but the query does not (a service
// id, PKey or QoS class the requester left out) fails the rule, as the SA
// cannot know it holds.
#include <ibsm/QosPolicy.h>

#include <algorithm>

namespace ibsm::qos {
namespace {

template <typename T>
bool inRanges(const std::vector<Range<T>>& ranges, std::optional<T> value) {
  if (ranges.empty()) return true;
  return value &&
         std::ranges::any_of(ranges, [&](const Range<T>& r) { return r.contains(*value); });
}

bool inGroups(const ResolvedQos& qos, const std::vector<std::string>& groups, Guid port) {
  if (groups.empty()) return true;
  return std::ranges::any_of(groups, [&](const std::string& g) { return qos.inGroup(g, port); });
}

bool matches(const ResolvedQos& qos, const QosMatchRule& rule, const QosQuery& q) {
  const auto pkey = q.pkey ? std::optional<std::uint16_t>(*q.pkey & 0x7FFF) : std::nullopt;
  std::vector<Range<std::uint16_t>> pkeys;
  for (const auto& r : rule.pkeys)
    pkeys.push_back({static_cast<std::uint16_t>(r.first & 0x7FFF),
                     static_cast<std::uint16_t>(r.last & 0x7FFF)});
  return inGroups(qos, rule.sources, q.source) && inGroups(qos, rule.destinations, q.destination) &&
         inRanges(rule.serviceIds, q.serviceId) && inRanges(rule.qosClasses, q.qosClass) &&
         inRanges(pkeys, pkey);
}

}  // namespace

const QosLevel* matchQos(const ResolvedQos& qos, const QosQuery& query) {
  if (!qos.policy) return nullptr;
  for (const auto& rule : qos.policy->rules)
    if (matches(qos, rule, query)) return qos.policy->level(rule.level);
  return qos.policy->level("DEFAULT");
}

}  // namespace ibsm::qos
