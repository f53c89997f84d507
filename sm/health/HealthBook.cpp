#include "sm/health/HealthBook.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace ibsm::sm::health {

std::string_view transitionName(Transition t) {
  switch (t) {
    case Transition::BecameUnhealthy:
      return "unhealthy";
    case Transition::Recovered:
      return "recovered";
    case Transition::Isolated:
      return "isolated";
    case Transition::Readmitted:
      return "re-admitted";
    case Transition::IsolationRefused:
      return "isolation refused";
  }
  return "unknown";
}

std::optional<LinkKey> HealthBook::linkOf(const HealthEntry& e) {
  if (!e.peer) return std::nullopt;
  return linkKey(e.port, *e.peer);
}

void HealthBook::setPolicy(HealthPolicy policy) {
  policy_ = policy;
  for (auto& [key, ep] : episodes_) ep.entry.action = policy_.of(key.condition);
}

std::vector<HealthChange> HealthBook::observe(Condition condition,
                                              const std::vector<Finding>& findings,
                                              Clock::time_point now,
                                              std::chrono::system_clock::time_point wall) {
  std::vector<HealthChange> changes;
  std::set<Key> found;
  for (const Finding& f : findings) {
    const Key key{condition, f.port, f.peer};
    found.insert(key);
    auto [it, added] = episodes_.try_emplace(key);
    Episode& ep = it->second;
    HealthEntry& e = ep.entry;
    e.condition = condition;
    e.port = f.port;
    e.name = f.name;
    e.peer = f.peer;
    e.peerName = f.peerName;
    e.detail = f.detail;
    e.counters = f.counters;
    e.action = policy_.of(condition);
    e.lastSeen = wall;
    ep.lastSeen = now;
    ep.gone = false;
    if (added) {
      e.since = wall;
      changes.push_back({Transition::BecameUnhealthy, e, {}});
    }
  }
  for (auto it = episodes_.begin(); it != episodes_.end();) {
    Episode& ep = it->second;
    if (it->first.condition != condition || found.contains(it->first)) {
      ++it;
      continue;
    }
    ep.gone = true;
    if (ep.entry.isolated && now - ep.lastSeen < policy_.cleanPeriod) {
      ++it;  // stays out of the routes until clean for the whole period
      continue;
    }
    if (ep.entry.isolated) {
      ep.entry.isolated = false;
      changes.push_back({Transition::Readmitted, ep.entry,
                         fmt::format("clean for {} s", policy_.cleanPeriod.count())});
    }
    changes.push_back({Transition::Recovered, ep.entry, {}});
    it = episodes_.erase(it);
  }
  return changes;
}

std::vector<LinkKey> HealthBook::wantIsolated() const {
  std::vector<LinkKey> links;
  for (const auto& [key, ep] : episodes_) {
    const auto link = linkOf(ep.entry);
    if (!link || ep.readmitted || policy_.of(key.condition) != Action::Isolate) continue;
    links.push_back(*link);
  }
  std::ranges::sort(links);
  links.erase(std::unique(links.begin(), links.end()), links.end());
  return links;
}

std::vector<HealthChange> HealthBook::isolation(const std::vector<LinkKey>& isolated,
                                                const std::vector<RefusedLink>& refused) {
  std::vector<HealthChange> changes;
  for (auto& [key, ep] : episodes_) {
    HealthEntry& e = ep.entry;
    const auto link = linkOf(e);
    if (!link) continue;
    const bool out = std::ranges::binary_search(isolated, *link);
    const auto no = std::ranges::find(refused, *link, &RefusedLink::link);
    if (out && !e.isolated) {
      // A plan made before the operator re-admitted the link (the plan runs
      // off the loop) still avoids it: out of the routes until the next
      // plan, which the re-admission asked for, but the reason stays.
      e.isolated = true;
      if (!ep.readmitted) e.notIsolatedWhy.clear();
      changes.push_back({Transition::Isolated, e, {}});
    } else if (no != refused.end()) {
      const bool was = e.isolated;
      e.isolated = false;
      if (e.notIsolatedWhy != no->why || was) {
        e.notIsolatedWhy = no->why;
        changes.push_back({Transition::IsolationRefused, e, no->why});
      }
    } else if (!out && e.isolated) {
      // Not wanted out any more (the policy changed): back in the routes.
      e.isolated = false;
      changes.push_back({Transition::Readmitted, e,
                         ep.readmitted ? "by the operator" : "the policy no longer isolates it"});
    } else if (!out && !ep.readmitted) {
      e.notIsolatedWhy.clear();
    }
  }
  return changes;
}

std::optional<HealthChange> HealthBook::readmit(const LinkKey& link) {
  std::optional<HealthChange> change;
  for (auto& [key, ep] : episodes_) {
    if (linkOf(ep.entry) != link || ep.readmitted) continue;
    if (policy_.of(key.condition) != Action::Isolate && !ep.entry.isolated) continue;
    ep.readmitted = true;
    ep.entry.notIsolatedWhy = "re-admitted by the operator";
    if (ep.entry.isolated) {
      ep.entry.isolated = false;
      change = HealthChange{Transition::Readmitted, ep.entry, "by the operator"};
    }
  }
  return change;
}

std::vector<HealthEntry> HealthBook::entries() const {
  std::vector<HealthEntry> out;
  out.reserve(episodes_.size());
  for (const auto& [key, ep] : episodes_) out.push_back(ep.entry);
  return out;
}

}  // namespace ibsm::sm::health
