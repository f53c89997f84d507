// Links that go down and come back too often. The daemon tells the tracker
// of every down it learns of, from two sources that see different things:
// - the sweeps (a trap 128 or a light sweep finds a cable gone): each down
//   that lasted until a sweep looked;
// - LinkDownedCounter deltas (the counter sweep): every down, the ones that
//   came back before any sweep looked too.
// A down seen both ways must count once: a counter pass counts, per link,
// only what its delta adds beyond the downs the sweeps reported since the
// previous counter pass.
//
//   FlapTracker t;
//   for (LinkKey k : linksLost(before, after)) t.sweepDown(k, now);
//   auto flapping = t.flapping(now, {.count = 5, .window = 600s});
#pragma once

#include <ibsm/Fabric.h>
#include <ibsm/Ids.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <vector>

namespace ibsm::sm::health {

using Clock = std::chrono::steady_clock;

// A cable by its two ends, lower (node GUID, port) first: stays the same
// across discoveries, whatever NodeIds a sweep gives.
struct LinkKey {
  PortKey a;
  PortKey b;
  auto operator<=>(const LinkKey&) const = default;
};
LinkKey linkKey(PortKey x, PortKey y);
// The cable at `end` in `fabric`; nullopt when the port is not cabled.
std::optional<LinkKey> linkAt(const Fabric& fabric, PortRef end);
// Every cable of a fabric, sorted.
std::vector<LinkKey> linksOf(const Fabric& fabric);
// The cables in `before` that `after` no longer has (both sorted).
std::vector<LinkKey> linksLost(const std::vector<LinkKey>& before,
                               const std::vector<LinkKey>& after);

struct FlapRule {
  std::uint32_t count{5};  // more downs than this in the window: flapping
  std::chrono::seconds window{600};
};

struct Flapping {
  LinkKey link{};
  std::size_t downs{0};  // within the window
};

class FlapTracker {
 public:
  // A down found by a sweep.
  void sweepDown(LinkKey link, Clock::time_point at);
  // A counter pass: `downs` is the larger LinkDownedCounter delta of the
  // link's two ends in that pass.
  void counterDowns(LinkKey link, std::uint64_t downs, Clock::time_point at);
  // Forgets downs older than the window; the links over the rule, sorted.
  std::vector<Flapping> flapping(Clock::time_point now, const FlapRule& rule);

 private:
  struct History {
    std::deque<Clock::time_point> downs;
    std::uint64_t sweepDownsSinceCounters{0};
  };
  std::map<LinkKey, History> links_;
};

}  // namespace ibsm::sm::health
