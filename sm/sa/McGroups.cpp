// Joins and leaves. Every check comes before the first change, so that a
// refused request leaves the groups as they were.
#include "sm/sa/McGroups.h"

#include <algorithm>

#include "routing/multicast/McSl.h"
#include "sm/sa/Components.h"
#include "sm/sa/McRules.h"
#include "sm/sa/PathRecords.h"

namespace ibsm::sm::sa {
namespace {

constexpr std::uint8_t kJoinBits = 0x0F;
constexpr std::uint16_t kFullMember = 0x8000;
constexpr std::uint16_t kPKeyBase = 0x7FFF;

bool has(std::uint64_t mask, std::uint64_t bits) {
  return (mask & bits) == bits;
}

// The components of a query that describe the group, not the member.
constexpr std::uint64_t kOtherComponents = mcmMask::kQKey | mcmMask::kPKey | mcmMask::kTClass |
                                           mcmMask::kSl | mcmMask::kFlowLabel | mcmMask::kHopLimit;

// What Set and Delete check first, in OpenSM's order: the components that
// name the membership, MTU and rate codes, the PortGID's prefix (the
// default link-local prefix stands for the subnet's own).
std::uint16_t checkRequest(const SaSubnet& subnet, const McRequest& req) {
  if (!has(req.mask, mcmMask::kJoin)) return saStatus::kReqInsufficientComponents;
  if (!givenLinkValuesValid(req.record, req.mask)) return saStatus::kReqInvalid;
  const std::uint64_t prefix = gidPrefix(req.record.portGid);
  if (prefix != kDefaultSubnetPrefix && prefix != subnet.settings().subnetPrefix)
    return saStatus::kReqInvalidGid;
  return saStatus::kOk;
}

// o15-0.1.2 / o15-0.2.1: who may change an existing membership -- the port
// itself, or, for a membership made by proxy, any port of the group's
// partition.
bool mayModify(const SaSubnet& subnet, const McGroup& g, const McMember& m, PortRef port,
               PortRef requester) {
  if (!m.proxyJoin) return requester == port;
  return holdsPKey(subnet.pkeys(requester), g.params.pkey);
}

bool portCarries(const SaSubnet& subnet, PortRef port, const McGroupParams& p) {
  return portMtu(subnet.fabric(), port) >= p.mtu &&
         rateHalfGbps(portRate(subnet.fabric(), port)) >= rateHalfGbps(p.rate);
}

bool receives(std::uint8_t state) {
  return (state & joinState::kReceives) != 0;
}

// A new group's packet life: the subnet's unless the request's selector
// excludes it.
std::uint8_t chooseLife(const McMemberRecord& r, std::uint64_t mask, std::uint8_t subnetLife) {
  if (!has(mask, mcmMask::kLifeSelector | mcmMask::kLife) ||
      selectorAccepts(r.packetLifeTimeSelector, r.packetLifeTime, subnetLife, false))
    return subnetLife;
  constexpr std::uint8_t kMaxLife = 0x3F;
  if (r.packetLifeTimeSelector == selector::kGreater)
    return static_cast<std::uint8_t>(std::min<int>(r.packetLifeTime + 1, kMaxLife));
  if (r.packetLifeTimeSelector == selector::kLess && r.packetLifeTime > 0)
    return static_cast<std::uint8_t>(r.packetLifeTime - 1);
  return r.packetLifeTime;
}

McMemberRecord answerOf(const SaSubnet& subnet, const McGroup& g, const McMemberRecord& request,
                        std::uint8_t state, bool proxy) {
  McMemberRecord a = groupRecord(g.mgid, g.mlid, paramsOn(subnet, g));
  a.portGid = request.portGid;  // with the prefix the port asked with
  a.joinState = state;
  a.proxyJoin = proxy;
  return a;
}

}  // namespace

McGroupParams paramsOn(const SaSubnet& subnet, const McGroup& group) {
  McGroupParams p = group.params;
  if (const qos::ResolvedQos* qos = subnet.qos()) {
    const auto pkey = static_cast<std::uint16_t>(p.pkey & kPKeyBase);
    if (const qos::QosLevel* level = qos::matchQos(*qos, {.pkey = pkey})) p.sl = level->sl;
  }
  p.sl = routing::groupTreeSl(p.sl, subnet.paths().slsCarriedEverywhere(),
                              subnet.paths().treesOnTheTreeSl());
  return p;
}

bool McGroup::kept() const {
  return std::ranges::any_of(
      members, [](const auto& m) { return (m.second.joinState & joinState::kKeepsAlive) != 0; });
}

McAnswer McGroups::join(const SaSubnet& subnet, const McRequest& req) {
  const McMemberRecord& r = req.record;
  if (const auto status = checkRequest(subnet, req); status != saStatus::kOk)
    return std::unexpected(status);
  const auto port = subnet.portOfGuid(gidGuid(r.portGid));
  if (!port) return std::unexpected(saStatus::kReqInvalid);
  const bool proxy = *port != req.requester;
  if (proxy && !sharePKey(subnet.pkeys(*port), subnet.pkeys(req.requester)))
    return std::unexpected(saStatus::kReqInvalid);
  if ((req.mask & mcmMask::kPKey) && (r.pkey & kPKeyBase) == 0)
    return std::unexpected(saStatus::kReqInvalid);
  const std::uint8_t state = r.joinState & kJoinBits;

  McGroup fresh;
  const McGroup* g = group(r.mgid);
  if (!g) {
    auto made = create(subnet, req, *port);
    if (!made) return std::unexpected(made.error());
    fresh = std::move(*made);
    g = &fresh;
  } else if (!matchesGroupParams(paramsOn(subnet, *g), r, req.mask)) {
    return std::unexpected(saStatus::kReqInvalid);
  }
  if (state == 0 || !portCarries(subnet, *port, g->params) ||
      !holdsPKey(subnet.pkeys(*port), g->params.pkey))
    return std::unexpected(saStatus::kReqInvalid);
  const Guid guid = subnet.fabric().port(*port).guid;
  const auto old = g->members.find(guid);
  if (old != g->members.end() && !mayModify(subnet, *g, old->second, *port, req.requester))
    return std::unexpected(saStatus::kReqInvalid);
  // A new membership past the port's cap: NO_RESOURCES (IBA 15.2.1.1,
  // ERR_NO_RESOURCES), so one port cannot take every MLID or grow the SA.
  if (old == g->members.end() && membershipsOf(guid) >= subnet.settings().maxJoinsPerPort) {
    ++refusedOverCap_;
    return std::unexpected(saStatus::kNoResources);
  }

  const Gid mgid = g->mgid;
  if (g == &fresh) add(std::move(fresh));
  McGroup& target = groups_.at(mgid);
  auto [it, added] = target.members.try_emplace(guid);
  McMember& m = it->second;
  const std::uint8_t before = m.joinState;
  if (added) {
    m = McMember{.portGuid = guid,
                 .portGid = makeGid(subnet.settings().subnetPrefix, guid),
                 .joinState = 0,
                 .proxyJoin = proxy};
  }
  m.joinState = static_cast<std::uint8_t>(m.joinState | state);
  if (added || receives(before) != receives(m.joinState)) changed();
  return answerOf(subnet, target, r, m.joinState, m.proxyJoin);
}

std::size_t McGroups::membershipsOf(Guid portGuid) const {
  return static_cast<std::size_t>(std::ranges::count_if(
      groups_, [&](const auto& entry) { return entry.second.members.contains(portGuid); }));
}

// A group for a Set that named no existing one (o15-0.2.3): checked, with
// its MGID, parameters and MLID, but not yet added.
std::expected<McGroup, std::uint16_t> McGroups::create(const SaSubnet& subnet, const McRequest& req,
                                                       PortRef port) {
  const McMemberRecord& r = req.record;
  if ((r.joinState & joinState::kKeepsAlive) == 0) return std::unexpected(saStatus::kReqInvalid);
  if (!has(req.mask, mcmMask::kCreate))
    return std::unexpected(saStatus::kReqInsufficientComponents);
  Gid mgid = r.mgid;
  if (isZeroGid(mgid)) {
    const std::uint8_t scope = (req.mask & mcmMask::kScope) ? r.scope : mcScope::kLinkLocal;
    if (!isKnownScope(scope)) return std::unexpected(saStatus::kReqInvalid);
    mgid = assignMgid(subnet, scope);
  } else {
    if (!isValidRequestedMgid(mgid, subnet.settings().subnetPrefix))
      return std::unexpected(saStatus::kReqInvalid);
    if ((req.mask & mcmMask::kScope) && r.scope != mgidScope(mgid))
      return std::unexpected(saStatus::kReqInvalid);
    // An IPoIB group only where its partition's broadcast group is, and
    // like it (OpenSM's ipoib_mcgroup_creation_validation).
    if (isIpoibMgid(mgid) && !isIpoibBroadcast(mgid)) {
      const McGroup* broadcast = group(ipoibBroadcastOf(mgid));
      if (!broadcast ||
          !matchesGroupParams(paramsOn(subnet, *broadcast), r, req.mask & kOtherComponents))
        return std::unexpected(saStatus::kReqInvalid);
    }
  }
  const auto link =
      chooseLink(r, req.mask, portMtu(subnet.fabric(), port), portRate(subnet.fabric(), port));
  if (!link) return std::unexpected(saStatus::kReqInvalid);
  const auto mlid = allocateMlid(req.mask, r.mlid);
  if (!mlid) return std::unexpected(mlid.error());
  McGroup made;
  made.mgid = mgid;
  made.mlid = *mlid;
  McGroupParams& p = made.params;
  p.qkey = r.qkey;
  p.pkey = static_cast<std::uint16_t>(r.pkey | kFullMember);
  p.mtu = link->mtu;
  p.rate = link->rate;
  // Kept as asked; answered as paramsOn() says. Every creating join names
  // an SL (IPoIB's 0 for a new broadcast group), so the partition's QoS
  // level overrides it rather than refuse the creation.
  p.sl = r.sl;
  p.tclass = r.tClass;
  p.flowLabel = r.flowLabel;
  p.hopLimit = (req.mask & mcmMask::kHopLimit) ? r.hopLimit : 0;
  p.packetLifeTime = chooseLife(r, req.mask, subnet.settings().packetLifeTime);
  p.scope = mgidScope(mgid);
  return made;
}

McAnswer McGroups::leave(const SaSubnet& subnet, const McRequest& req) {
  const McMemberRecord& r = req.record;
  if (const auto status = checkRequest(subnet, req); status != saStatus::kOk)
    return std::unexpected(status);
  const auto it = groups_.find(r.mgid);
  if (it == groups_.end()) return std::unexpected(saStatus::kReqInvalid);
  McGroup& g = it->second;
  const auto m = g.members.find(gidGuid(r.portGid));
  const std::uint8_t state = r.joinState & kJoinBits;
  // o15-0.1.14: the port is a member and holds every bit it leaves.
  if (m == g.members.end() || state == 0 || (m->second.joinState & state) != state)
    return std::unexpected(saStatus::kReqInvalid);
  const auto port = subnet.portOfGuid(m->first);
  if (!mayModify(subnet, g, m->second, port.value_or(req.requester), req.requester))
    return std::unexpected(saStatus::kReqInvalid);
  const std::uint8_t before = m->second.joinState;
  const std::uint8_t after = static_cast<std::uint8_t>(before & ~state);
  McMemberRecord answer = answerOf(subnet, g, r, after, m->second.proxyJoin);
  if (after == 0) {
    g.members.erase(m);
  } else {
    m->second.joinState = after;
  }
  if (after == 0 || receives(before) != receives(after)) changed();
  collect(answer.mgid);
  return answer;
}

std::size_t McGroups::dropPort(Guid portGuid) {
  std::size_t dropped = 0;
  std::vector<Gid> touched;
  for (auto& [mgid, g] : groups_) {
    if (g.members.erase(portGuid) == 0) continue;
    ++dropped;
    touched.push_back(mgid);
  }
  if (dropped != 0) changed();
  for (const Gid& mgid : touched) collect(mgid);
  return dropped;
}

std::size_t McGroups::forgetJoins() {
  std::size_t dropped = 0;
  std::vector<Gid> all;
  for (auto& [mgid, g] : groups_) {
    dropped += g.members.size();
    g.members.clear();
    all.push_back(mgid);
  }
  if (dropped != 0) changed();
  for (const Gid& mgid : all) collect(mgid);
  return dropped;
}

void McGroups::add(McGroup group) {
  mlids_.insert(group.mlid.value);
  events_.push_back({.kind = McGroupEvent::Kind::Created,
                     .mgid = group.mgid,
                     .mlid = group.mlid,
                     .pkey = group.params.pkey});
  ++created_;
  groups_.emplace(group.mgid, std::move(group));
  changed();
}

void McGroups::collect(const Gid& mgid) {
  const auto it = groups_.find(mgid);
  if (it == groups_.end() || it->second.precreated || it->second.kept()) return;
  // Its members that only listened or sent go with it (OpenSM removes
  // them as the last full member leaves).
  const McGroup& g = it->second;
  events_.push_back(
      {.kind = McGroupEvent::Kind::Deleted, .mgid = g.mgid, .mlid = g.mlid, .pkey = g.params.pkey});
  mlids_.erase(g.mlid.value);
  groups_.erase(it);
  ++deleted_;
  changed();
}

// The MLID the request names if it is a free multicast LID, else the
// first free one from 0xC000; none left: NO_RESOURCES.
std::expected<Lid, std::uint16_t> McGroups::allocateMlid(std::uint64_t mask, Lid requested) const {
  if ((mask & mcmMask::kMlid) && requested.value >= kFirstMlid.value &&
      requested.value <= kLastMlid.value && !mlids_.contains(requested.value))
    return requested;
  std::uint32_t candidate = kFirstMlid.value;
  for (const std::uint16_t used : mlids_) {
    if (used > candidate) break;
    if (used == candidate) ++candidate;
  }
  if (candidate > kLastMlid.value) return std::unexpected(saStatus::kNoResources);
  return Lid{static_cast<std::uint16_t>(candidate)};
}

// An SA-assigned MGID (IBA 4.1.1): ff1<scope>:a01b, the subnet prefix,
// then a 32-bit count that makes it unique among the groups.
Gid McGroups::assignMgid(const SaSubnet& subnet, std::uint8_t scope) {
  Gid mgid{};
  mgid[0] = 0xFF;
  mgid[1] = static_cast<std::uint8_t>(0x10 | scope);
  mgid[2] = 0xA0;
  mgid[3] = 0x1B;
  const std::uint64_t prefix = subnet.settings().subnetPrefix;
  for (int i = 0; i < 8; ++i) mgid[4 + i] = static_cast<std::uint8_t>(prefix >> (56 - 8 * i));
  do {
    const std::uint32_t n = nextAssigned_++;
    for (int i = 0; i < 4; ++i) mgid[12 + i] = static_cast<std::uint8_t>(n >> (24 - 8 * i));
  } while (groups_.contains(mgid));
  return mgid;
}

}  // namespace ibsm::sm::sa
