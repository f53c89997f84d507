// matchQos(): OpenSM's order of matching (QoS_management_in_OpenSM): the
// rules are tried in the order the file gives them (the qos-ulps lines
// turned into rules by the parser), the first whose every given criterion
// holds wins; a criterion the rule gives but the query does not (a service
// id, PKey or QoS class the requester left out) fails the rule, as the SA
// cannot know it holds (OpenSM's osm_qos_policy.c,
// __qos_policy_get_match_rule_by_params: a rule with QoS classes, service
// ids or PKeys is skipped when the component mask lacks that component).
#include <ibsm/QosPolicy.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <string_view>

namespace ibsm::qos {
namespace {

template <typename T>
bool inRanges(const std::vector<Range<T>>& ranges, std::optional<T> value) {
  if (ranges.empty()) return true;
  return value &&
         std::ranges::any_of(ranges, [&](const Range<T>& r) { return r.contains(*value); });
}

bool sameName(std::string_view a, std::string_view b) {
  const auto lower = [](char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  };
  return std::ranges::equal(a, b, {}, lower, lower);
}

// Port-group names are case-insensitive too (osm_qos_policy.c,
// __qos_policy_get_port_group_by_name): a rule may spell a group otherwise.
const std::set<Guid>* membersOf(const ResolvedQos& qos, std::string_view group) {
  if (const auto it = qos.members.find(group); it != qos.members.end()) return &it->second;
  for (const auto& [name, ports] : qos.members)
    if (sameName(name, group)) return &ports;
  return nullptr;
}

bool inGroups(const ResolvedQos& qos, const std::vector<std::string>& groups, Guid port) {
  if (groups.empty()) return true;
  return std::ranges::any_of(groups, [&](const std::string& g) {
    const auto* ports = membersOf(qos, g);
    return ports && ports->contains(port);
  });
}

// OpenSM's parser keeps a PKey range as its two ends' low 15 bits, in
// order (osm_qos_parser_y.y, __pkey_rangelist2rangearr): "0x7fff-0x8001"
// becomes 0x0001-0x7fff.
bool inPKeys(const std::vector<Range<std::uint16_t>>& ranges, std::optional<std::uint16_t> pkey) {
  if (ranges.empty()) return true;
  if (!pkey) return false;
  const auto base = static_cast<std::uint16_t>(*pkey & 0x7FFF);
  return std::ranges::any_of(ranges, [&](const Range<std::uint16_t>& r) {
    const auto a = static_cast<std::uint16_t>(r.first & 0x7FFF);
    const auto b = static_cast<std::uint16_t>(r.last & 0x7FFF);
    return std::min(a, b) <= base && base <= std::max(a, b);
  });
}

bool matches(const ResolvedQos& qos, const QosMatchRule& rule, const QosQuery& q) {
  return inGroups(qos, rule.sources, q.source) && inGroups(qos, rule.destinations, q.destination) &&
         inRanges(rule.serviceIds, q.serviceId) && inRanges(rule.qosClasses, q.qosClass) &&
         inPKeys(rule.pkeys, q.pkey);
}

// Level names are case-insensitive, DEFAULT included (osm_qos_policy.c,
// __qos_policy_get_qos_level_by_name compares with strcasecmp).
const QosLevel* levelNamed(const QosPolicy& policy, std::string_view name) {
  for (const auto& l : policy.levels)
    if (sameName(l.name, name)) return &l;
  return nullptr;
}

}  // namespace

const QosLevel* matchQos(const ResolvedQos& qos, const QosQuery& query) {
  if (!qos.policy) return nullptr;
  for (const auto& rule : qos.policy->rules)
    if (matches(qos, rule, query)) return levelNamed(*qos.policy, rule.level);
  return levelNamed(*qos.policy, "DEFAULT");
}

}  // namespace ibsm::qos
