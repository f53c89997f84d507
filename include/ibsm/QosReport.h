// What the dry run (`ibsm route --qos-policy`) says of a QoS policy: for
// every ordered pair of CA ports, the QoS level a plain PathRecord gets --
// no service id, no QoS class, no PKey, matched as the SA matches it; a
// pair whose ports share no PKey (not both limited members) has no path
// and is counted apart -- counted by level, all pairs counted.
//
//   auto counts = qos::countPlainPathLevels(resolved, plan.fabric, &*plan.pkeys);
//   report.qos = counts;  // "qos: 90 CA port pairs: DEFAULT (SL 0) 72, storage (SL 1) 18"
#pragma once

#include <ibsm/PKeyTables.h>
#include <ibsm/QosPolicy.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ibsm {

struct QosLevelPairs {
  std::string level{};
  std::uint8_t sl{0};
  std::uint64_t pairs{0};
};

struct QosReport {
  std::string policyFile{};
  std::uint64_t pairs{0};               // ordered CA port pairs, a port never with itself
  std::vector<QosLevelPairs> levels{};  // every level of the policy, in its order
  std::uint64_t noSharedPKey{0};        // pairs the SA gives no path: no PKey in common
  std::uint64_t noLevel{0};             // pairs no rule and no DEFAULT level gives a level
};

namespace qos {

// Ports are grouped by what matching can see of them (their groups and
// PKey table), so the work grows with the kinds of ports, not their pairs.
// `pkeys` null: no port's table is managed (each holds the default 0xFFFF).
[[nodiscard]] QosReport countPlainPathLevels(const ResolvedQos& qos, const Fabric& fabric,
                                             const PKeyTables* pkeys);

}  // namespace qos
}  // namespace ibsm
