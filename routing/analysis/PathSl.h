// The SL `ibsm path` walks a pair on: the one the SA would answer in a
// PathRecord for the same query. With a QoS policy, the SL of the level its
// first matching rule gives (qos::matchQos, with the port GUIDs of the two
// ends and the ServiceID, PKey and QoSClass the query names: what sm/sa's
// PathRecords match on); a query naming another SL then gets no path from
// the SA, said in a note, and the walk shows the SL asked. Without a level
// the SL asked, else 0. When the engine gives the pair an SL
// (RoutingResult::pairSls) that SL, whatever the level says.
//
//   auto chosen = analysis::pathSl(plan.qos.get(), fabric, from, dlidOwner, query);
//   auto walk = walkUnicast(fabric, tables, from, dlid, chosen.sl);
#pragma once

#include <ibsm/Fabric.h>
#include <ibsm/QosPolicy.h>
#include <ibsm/Routing.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace ibsm::analysis {

// What a PathRecord query names beside its ends (ibsm path --sl, --pkey,
// --service-id, --qos-class).
struct PathSlQuery {
  std::optional<std::uint8_t> sl{};
  std::optional<std::uint64_t> serviceId{};
  std::optional<std::uint16_t> pkey{};
  std::optional<std::uint8_t> qosClass{};
  bool operator==(const PathSlQuery&) const = default;
};

struct PathSl {
  std::uint8_t sl{0};
  const qos::QosLevel* level{nullptr};  // the level matched; null: none
  std::string note{};                   // why the SA would answer no path, if it would not
};

// `qos` null: no policy. `to`: the port owning the destination LID (none:
// no level is looked for). `engineSl`: the SL the routing engine gave the
// pair (engineSl() below), which wins over the level's as the SA's does:
// the engine's routes are free of credit loops only on it; a note says so
// when the level names another, and when the query names another SL the
// SA answers no path (walked on the SL asked).
[[nodiscard]] PathSl pathSl(const qos::ResolvedQos* qos, const Fabric& fabric, PortRef from,
                            std::optional<PortRef> to, const PathSlQuery& query,
                            std::optional<std::uint8_t> engineSl = std::nullopt);

// The SL RoutingResult::pairSls gives the pair from `from` (a CA port, or
// a switch's port 0) toward `dlid`: 0 for a pair it does not name, nullopt
// when it names none.
[[nodiscard]] std::optional<std::uint8_t> engineSl(std::span<const PairSl> pairSls, PortRef from,
                                                   Lid dlid);

}  // namespace ibsm::analysis
