// The conditions of the fabric over time, and the policy: which links are
// isolated. The detectors (LinkConditions, FlapTracker, ErrorWatch, the
// rebooted-switch check) give, per condition, everything they find now;
// the book keeps one episode per condition and link (since, last seen) and
// returns what changed, so the daemon logs one line per change and none
// per sweep. Pure, on the engine's clock; the wall-clock time is only for
// what readers show.
//
//   HealthBook book(policy);
//   auto changes = book.observe(Condition::Downgraded, findings, now, wall);
//   auto wanted = book.wantIsolated(now);          // links the policy isolates
//   IsolatedFabric cut = isolateLinks(fabric, wanted);
//   changes += book.isolation(cut.isolated, cut.refused);
//   view.unhealthy = book.entries();
//
// Recovery: an entry the detector no longer reports recovers at once when
// it was only reported; an isolated one is re-admitted (and recovers) only
// once the condition has been gone for the clean period, so a link is not
// put back into the routes the moment it stops misbehaving. The errors
// detector has its own clean period (ErrorWatch.h): its entries recover
// when it stops reporting them.
//
// `readmit()` (ibsm sweep --readmit) puts an isolated link back by hand; it
// is not isolated again for the same episode (the operator said so), only
// after it recovers and the condition comes back.
#pragma once

#include <array>
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sm/health/FlapTracker.h"
#include "sm/health/HealthView.h"
#include "sm/health/Isolation.h"

namespace ibsm::sm::health {

struct HealthPolicy {
  std::array<Action, kConditionCount> action{};  // by Condition; Report unless set
  std::chrono::seconds cleanPeriod{600};

  Action of(Condition c) const { return action[static_cast<std::size_t>(c)]; }
};

// One thing a detector finds now: a port (errors, rebooted) or a link.
struct Finding {
  PortKey port{};
  std::string name{};
  std::optional<PortKey> peer{};  // the other end of the link, when there is one
  std::string peerName{};
  std::string detail{};
  std::vector<Counter> counters{};
};

enum class Transition : std::uint8_t {
  BecameUnhealthy,
  Recovered,
  Isolated,
  Readmitted,
  IsolationRefused,
};
std::string_view transitionName(Transition t);

struct HealthChange {
  Transition transition{Transition::BecameUnhealthy};
  HealthEntry entry{};  // as it is after the change
  std::string why{};    // refused: why; re-admitted: "clean for 600 s", "by the operator"
};

class HealthBook {
 public:
  explicit HealthBook(HealthPolicy policy) : policy_(policy) {}
  // A new policy (SIGHUP) applies to the open entries at once: each says
  // the action its condition now takes, which isolation() then carries out.
  void setPolicy(HealthPolicy policy);
  const HealthPolicy& policy() const { return policy_; }

  // Everything the detector of `condition` finds now.
  [[nodiscard]] std::vector<HealthChange> observe(Condition condition,
                                                  const std::vector<Finding>& findings,
                                                  Clock::time_point now,
                                                  std::chrono::system_clock::time_point wall);
  // The links the policy wants out of the routes: entries of an isolating
  // condition that have a link, not re-admitted by hand. Sorted.
  [[nodiscard]] std::vector<LinkKey> wantIsolated() const;
  // What the isolation filter did with wantIsolated(); every other link is
  // not isolated.
  [[nodiscard]] std::vector<HealthChange> isolation(const std::vector<LinkKey>& isolated,
                                                    const std::vector<RefusedLink>& refused);
  // By hand; false when no entry has this link isolated.
  [[nodiscard]] std::optional<HealthChange> readmit(const LinkKey& link);

  // Every open entry, by condition then port.
  [[nodiscard]] std::vector<HealthEntry> entries() const;

 private:
  struct Key {
    Condition condition;
    PortKey port;
    std::optional<PortKey> peer;
    auto operator<=>(const Key&) const = default;
  };
  struct Episode {
    HealthEntry entry;
    Clock::time_point lastSeen{};
    bool gone{false};        // the detector no longer reports it
    bool readmitted{false};  // by hand: not isolated again this episode
  };
  static std::optional<LinkKey> linkOf(const HealthEntry& e);

  HealthPolicy policy_;
  std::map<Key, Episode> episodes_;
};

}  // namespace ibsm::sm::health
