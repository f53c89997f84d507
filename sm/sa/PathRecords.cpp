#include "sm/sa/PathRecords.h"

#include <algorithm>
#include <optional>
#include <span>
#include <utility>

#include "sm/sa/PathSelectors.h"

namespace ibsm::sm::sa {
namespace {

// A PKey both ports hold, not both as limited members (IBA 10.9.3): the
// one asked for when given, else the lowest one both share by its low 15
// bits, as OpenSM picks it (osm_physp_find_common_pkey walks the two
// tables in PKey order, so a plain query between members of 0x0001 and of
// the default partition gets 0x0001, not the default); the source's entry,
// as the source uses it.
std::optional<std::uint16_t> sharedPKey(const SaSubnet& subnet, PortRef src, PortRef dst,
                                        std::optional<std::uint16_t> wanted) {
  std::optional<std::uint16_t> lowest;
  for (const std::uint16_t mine : subnet.pkeys(src)) {
    const auto base = static_cast<std::uint16_t>(mine & 0x7FFF);
    if (base == 0 || (wanted && (*wanted & 0x7FFF) != base)) continue;
    if (lowest && (*lowest & 0x7FFF) <= base) continue;
    for (const std::uint16_t theirs : subnet.pkeys(dst)) {
      if ((theirs & 0x7FFF) == base && ((mine | theirs) & 0x8000) != 0) {
        lowest = mine;
        break;
      }
    }
  }
  return lowest;
}

// The level of a QoS policy's first rule that matches the two ports and
// what the query gives of ServiceID (both halves), PKey and QoSClass
// (OpenSM's osm_qos_policy_get_qos_level_by_pr); nullptr without a policy.
const qos::QosLevel* levelOf(const SaSubnet& subnet, const PathQuery& q, PortRef src, PortRef dst) {
  const qos::ResolvedQos* qos = subnet.qos();
  if (!qos) return nullptr;
  const Fabric& f = subnet.fabric();
  qos::QosQuery query{.source = f.port(src).guid, .destination = f.port(dst).guid};
  if ((q.mask & prMask::kServiceId) == prMask::kServiceId) query.serviceId = q.query.serviceId;
  if (q.mask & prMask::kPKey) query.pkey = q.query.pkey;
  if (q.mask & prMask::kQosClass) query.qosClass = q.query.qosClass;
  return qos::matchQos(*qos, query);
}

// A level's PKey range as OpenSM keeps it: its ends' low 15 bits, in order.
std::pair<std::uint16_t, std::uint16_t> baseRange(const qos::Range<std::uint16_t>& r) {
  const auto a = static_cast<std::uint16_t>(r.first & 0x7FFF);
  const auto b = static_cast<std::uint16_t>(r.last & 0x7FFF);
  return {std::min(a, b), std::max(a, b)};
}

bool levelHasPKey(const qos::QosLevel& level, std::uint16_t pkey) {
  const auto base = static_cast<std::uint16_t>(pkey & 0x7FFF);
  return std::ranges::any_of(level.pkeys, [&](const auto& r) {
    const auto [lo, hi] = baseRange(r);
    return lo <= base && base <= hi;
  });
}

// The PKey of a path between two ports, as OpenSM picks it
// (osm_sa_path_record.c, pr_rcv_get_path_parms): the one the query names,
// which a level that lists PKeys must list too; else, when the level lists
// PKeys, the lowest shared one of its first range that has one
// (osm_qos_level_get_shared_pkey); else any both ports share.
std::optional<std::uint16_t> pathPKey(const SaSubnet& subnet, PortRef src, PortRef dst,
                                      std::optional<std::uint16_t> wanted,
                                      const qos::QosLevel* level) {
  if (!level || level->pkeys.empty()) return sharedPKey(subnet, src, dst, wanted);
  if (wanted) {
    if (!levelHasPKey(*level, *wanted)) return std::nullopt;
    return sharedPKey(subnet, src, dst, wanted);
  }
  for (const auto& range : level->pkeys) {
    const auto [lo, hi] = baseRange(range);
    std::optional<std::uint16_t> best;
    for (const std::uint16_t mine : subnet.pkeys(src)) {
      const auto base = static_cast<std::uint16_t>(mine & 0x7FFF);
      if (base < lo || base > hi || (best && (*best & 0x7FFF) <= base)) continue;
      if (const auto shared = sharedPKey(subnet, src, dst, mine)) best = shared;
    }
    if (best) return best;
  }
  return std::nullopt;
}

// The ports a query names at either end: at most one source, and one
// destination or every end port.
struct Ends {
  std::optional<PortRef> source;
  std::optional<PortRef> dest;
  bool allDests{false};

  std::span<const PortRef> dests(const SaSubnet& subnet) const {
    if (allDests) return subnet.endPorts();
    return dest ? std::span<const PortRef>(&*dest, 1) : std::span<const PortRef>{};
  }
};

// One end named by GID and/or LID: its port (`found` false when the two
// name different ports or the LID none), an SA status when the GID is bad.
struct End {
  PortRef port{};
  bool found{false};
};
std::expected<End, std::uint16_t> endOf(const SaSubnet& subnet, bool byGid, const Gid& gid,
                                        bool byLid, Lid lid) {
  End end;
  if (byGid) {
    if (gidPrefix(gid) != subnet.settings().subnetPrefix) {
      return std::unexpected(saStatus::kReqInvalidGid);
    }
    const auto port = subnet.portOfGuid(gidGuid(gid));
    if (!port) return std::unexpected(saStatus::kReqInvalidGid);
    // The port that holds the LIDs (a switch's port 0), as SaSubnet::lidPort
    // says, from the compact table rather than the fabric's node.
    end = {subnet.paths().isSwitch(port->node) ? PortRef{port->node, 0} : *port, true};
  }
  if (byLid) {
    const auto owner = subnet.portOfLid(lid);
    if (!owner || (end.found && *owner != end.port)) return End{};
    end = {*owner, true};
  }
  return end;
}

std::expected<Ends, std::uint16_t> endsOf(const SaSubnet& subnet, const PathQuery& q) {
  const bool sgid = q.mask & prMask::kSgid, slid = q.mask & prMask::kSlid;
  const bool dgid = q.mask & prMask::kDgid, dlid = q.mask & prMask::kDlid;
  Ends ends;
  auto src = endOf(subnet, sgid, q.query.sgid, slid || (!sgid), slid ? q.query.slid : q.requester);
  if (!src) return std::unexpected(src.error());
  if (!src->found && !sgid && !slid) return std::unexpected(saStatus::kReqInvalid);
  if (src->found) ends.source = src->port;
  if (!dgid && !dlid) {
    if (q.single) return std::unexpected(saStatus::kReqInsufficientComponents);
    ends.allDests = true;
    return ends;
  }
  auto dst = endOf(subnet, dgid, q.query.dgid, dlid, q.query.dlid);
  if (!dst) return std::unexpected(dst.error());
  if (dst->found) ends.dest = dst->port;
  return ends;
}

// The LIDs of a port the query allows: the one it names, or all 2^LMC.
struct Lids {
  Lid first;
  std::size_t count{1};
  Lid at(std::size_t i) const { return Lid{static_cast<std::uint16_t>(first.value + i)}; }
};
Lids lidsOf(const SaSubnet& subnet, PortRef port, bool named, Lid lid) {
  if (named) return {lid, 1};
  const Port& p = subnet.fabric().port(port);
  return {p.lid, std::size_t{1} << p.lmc};
}

// The SL of a path, by precedence: what the routing engine requires first
// (its SL2VL plan must carry the SL on every switch of the route, else the
// packets are dropped there), then the partition's `sl`, then SL 0; when
// the engine drops the partition's SL on this route, the lowest SL it
// carries. An SL the query names must satisfy both. nullopt: none does.
// (The dragonfly engine maps all 16 SLs on every turn, so with it the
// partition's SL always stands.) A QoS level's SL overrides the
// partition's and admits no other: a query naming another SL, or a route
// that drops it, has no path (OpenSM's pr_rcv_get_path_parms: ERR 1F1F
// and the valid_sl_mask check). When the engine names the pairs' SLs
// (RoutingResult::pairSls) the pair's SL wins over both: its routes are
// free of credit loops only on that SL's VLs, as OpenSM's lash and dfsssp
// answer their path_sl whatever the QoS level says; a QoS level then
// still caps MTU, rate, PKey and PacketLifeTime, and a query naming
// another SL has no path.
std::optional<std::uint8_t> slFor(const PathQuery& q, std::optional<std::uint8_t> partitionSl,
                                  std::uint16_t carried, const qos::QosLevel* level,
                                  std::optional<std::uint8_t> engineSl) {
  const auto ok = [&](std::uint8_t sl) { return (carried >> sl) & 1U; };
  if (engineSl) {
    if (((q.mask & prMask::kSl) && q.query.sl != *engineSl) || !ok(*engineSl)) return std::nullopt;
    return *engineSl;
  }
  if (level) {
    if (((q.mask & prMask::kSl) && q.query.sl != level->sl) || !ok(level->sl)) return std::nullopt;
    return level->sl;
  }
  if (q.mask & prMask::kSl) {
    if ((partitionSl && *partitionSl != q.query.sl) || !ok(q.query.sl)) return std::nullopt;
    return q.query.sl;
  }
  const std::uint8_t wanted = partitionSl.value_or(0);
  if (ok(wanted)) return wanted;
  for (std::uint8_t sl = 0; sl < 16; ++sl)
    if (ok(sl)) return sl;
  return std::nullopt;
}

// A QoS level's MTU and rate limits cap what the path offers, before the
// query's selectors judge it (pr_rcv_get_path_parms: the lower of the two).
void capByLevel(const qos::QosLevel* level, PathRecord& pr) {
  if (!level) return;
  if (level->mtuLimit) pr.mtu = std::min(pr.mtu, *level->mtuLimit);
  if (level->rateLimit && rateHalfGbps(pr.rate) > rateHalfGbps(*level->rateLimit))
    pr.rate = *level->rateLimit;
}

// The record for one LID pair, nullopt when no path satisfies the query.
std::optional<PathRecord> pathFor(const SaSubnet& subnet, const PathQuery& q, PortRef src,
                                  PortRef dst, std::pair<Lid, Lid> lids, std::uint16_t pkey,
                                  const qos::QosLevel* level) {
  const auto [route, back] = subnet.paths().walkBoth(src, lids.second, dst, dst, lids.first, src);
  if (!route) return std::nullopt;
  const bool reversible = back.has_value();
  if ((q.mask & prMask::kReversible) && q.query.reversible && !reversible) return std::nullopt;
  const Fabric& f = subnet.fabric();
  const auto& settings = subnet.settings();
  PathRecord pr;
  const auto echo = [&](std::uint64_t bit, auto member) {
    if (q.mask & bit) pr.*member = q.query.*member;
  };
  echo(prMask::kServiceId, &PathRecord::serviceId);
  echo(prMask::kFlowLabel, &PathRecord::flowLabel);
  echo(prMask::kHopLimit, &PathRecord::hopLimit);
  echo(prMask::kTClass, &PathRecord::tClass);
  echo(prMask::kQosClass, &PathRecord::qosClass);
  pr.sgid = makeGid(settings.subnetPrefix, f.port(src).guid);
  pr.dgid = makeGid(settings.subnetPrefix, f.port(dst).guid);
  pr.slid = lids.first;
  pr.dlid = lids.second;
  pr.reversible = reversible;
  // NumbPath says how many paths a request wants; an answer carries 0 there
  // (only the Reversible bit beside it), as OpenSM's do.
  pr.numbPath = 0;
  pr.pkey = pkey;
  const auto sl =
      slFor(q, subnet.slOfPKey(pkey), route->sls, level, subnet.paths().engineSl(src, lids.second));
  if (!sl) return std::nullopt;
  pr.sl = *sl;
  const Port& own = f.port(src);
  // The ends count as well as the links: a switch's port 0 has an MTUCap of
  // its own (ibsim's, like many a base port 0, says 1024 where its external
  // ports say 2048), as OpenSM's walk counts it.
  pr.mtu = std::min({route->anyLink ? route->mtu : own.mtuCap, own.mtuCap, f.port(dst).mtuCap});
  pr.rate = route->anyLink ? rateOfHalfGbps(route->rate) : rateCode(own.link);
  capByLevel(level, pr);
  // IBA: 0 on a loopback path; else the level's packet-life replaces the
  // subnet's (pr_rcv_get_path_parms), before the selector judges it.
  pr.packetLifeTime = src == dst                   ? 0
                      : level && level->packetLife ? *level->packetLife
                                                   : settings.packetLifeTime;
  pr.mtuSelector = pr.rateSelector = pr.packetLifeTimeSelector = selector::kExactly;
  if (!applySelectors(q, pr)) return std::nullopt;
  return pr;
}

}  // namespace

std::expected<void, std::uint16_t> findPaths(const SaSubnet& subnet, const PathQuery& q,
                                             std::vector<PathRecord>& out) {
  out.clear();
  const auto ends = endsOf(subnet, q);
  if (!ends) return std::unexpected(ends.error());
  if (!ends->source) return {};
  const PortRef src = *ends->source;
  std::optional<std::uint16_t> wantedPKey;
  if (q.mask & prMask::kPKey) wantedPKey = q.query.pkey;
  std::size_t perPair = q.single ? 1 : 127;
  if ((q.mask & prMask::kNumbPath) && q.query.numbPath > 0) perPair = q.query.numbPath;
  const Lids slids = lidsOf(subnet, src, q.mask & prMask::kSlid, q.query.slid);
  for (const PortRef dst : ends->dests(subnet)) {
    const qos::QosLevel* level = levelOf(subnet, q, src, dst);
    const auto pkey = pathPKey(subnet, src, dst, wantedPKey, level);
    if (!pkey) continue;
    const Lids dlids = lidsOf(subnet, dst, q.mask & prMask::kDlid, q.query.dlid);
    // LID pairs in the order paths are offered: the i-th source LID with the
    // i-th destination LID first (preference 0: distinct routes with LMC),
    // the other combinations after (preference 1).
    const std::size_t k = std::min(slids.count, dlids.count);
    std::size_t found = 0;
    const auto offer = [&](std::size_t i, std::size_t j) {
      auto pr = pathFor(subnet, q, src, dst, {slids.at(i), dlids.at(j)}, *pkey, level);
      if (!pr) return;
      pr->preference = i == j && i < k ? 0 : 1;
      out.push_back(*pr);
      ++found;
    };
    for (std::size_t i = 0; i < k && found < perPair; ++i) offer(i, i);
    for (std::size_t i = 0; i < slids.count && found < perPair; ++i) {
      for (std::size_t j = 0; j < dlids.count && found < perPair; ++j) {
        if (i != j || i >= k) offer(i, j);
      }
    }
  }
  return {};
}

std::expected<std::vector<PathRecord>, std::uint16_t> findPaths(const SaSubnet& subnet,
                                                                const PathQuery& q) {
  std::vector<PathRecord> out;
  if (auto found = findPaths(subnet, q, out); !found) return std::unexpected(found.error());
  return out;
}

}  // namespace ibsm::sm::sa
