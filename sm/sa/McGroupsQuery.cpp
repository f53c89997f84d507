// What McGroups tells: the records a Get/GetTable finds, the routes the
// daemon programs, and the groups the configuration pre-creates.
#include <algorithm>

#include "sm/sa/Components.h"
#include "sm/sa/McGroups.h"
#include "sm/sa/McRules.h"

namespace ibsm::sm::sa {
namespace {

constexpr std::uint8_t kJoinBits = 0x0F;

bool sameJoinState(const McRequest& req, std::uint8_t state) {
  return (req.mask & mcmMask::kJoinState) == 0 ||
         (req.record.joinState & kJoinBits) == (state & kJoinBits);
}

bool sameProxy(const McRequest& req, bool proxy) {
  return (req.mask & mcmMask::kProxyJoin) == 0 || req.record.proxyJoin == proxy;
}

McMemberRecord memberRecord(const McGroup& g, const McGroupParams& params, const McMember& m) {
  McMemberRecord r = groupRecord(g.mgid, g.mlid, params);
  r.portGid = m.portGid;
  r.joinState = m.joinState;
  r.proxyJoin = m.proxyJoin;
  return r;
}

// The records of one group for `req`: the member PortGID names; every
// member for a trusted requester; else the group once, with the bits its
// members hold together.
void recordsOf(const McGroup& g, const McGroupParams& params, const McRequest& req,
               std::vector<McMemberRecord>& out) {
  const auto fits = [&](const McMember& m) {
    return sameJoinState(req, m.joinState) && sameProxy(req, m.proxyJoin);
  };
  if (req.mask & mcmMask::kPortGid) {
    const auto m = g.members.find(gidGuid(req.record.portGid));
    if (m != g.members.end() && fits(m->second)) out.push_back(memberRecord(g, params, m->second));
    return;
  }
  if (req.trusted) {
    for (const auto& [guid, m] : g.members)
      if (fits(m)) out.push_back(memberRecord(g, params, m));
    return;
  }
  std::uint8_t all = 0;
  for (const auto& [guid, m] : g.members) all = static_cast<std::uint8_t>(all | m.joinState);
  if (sameJoinState(req, all) && sameProxy(req, false))
    out.push_back(groupRecord(g.mgid, g.mlid, params));
}

}  // namespace

const McGroup* McGroups::group(const Gid& mgid) const {
  const auto it = groups_.find(mgid);
  return it == groups_.end() ? nullptr : &it->second;
}

std::vector<McMemberRecord> McGroups::find(const SaSubnet& subnet, const McRequest& req) const {
  std::vector<McMemberRecord> out;
  const McMemberRecord& q = req.record;
  const auto mine = subnet.pkeys(req.requester);
  for (const auto& [mgid, g] : groups_) {
    if ((req.mask & mcmMask::kMgid) && q.mgid != mgid) continue;
    if ((req.mask & mcmMask::kMlid) && q.mlid != g.mlid) continue;
    // A requester sees the groups of its own partitions only.
    const McGroupParams params = paramsOn(subnet, g);  // with its partition's QoS SL
    if (!holdsPKey(mine, params.pkey) || !matchesGroupParams(params, q, req.mask)) continue;
    recordsOf(g, params, req, out);
  }
  // IBA 15.2.5.17: PortGID, JoinState and ProxyJoin are zero in answers
  // to a requester that is not trusted.
  if (!req.trusted) {
    for (McMemberRecord& r : out) {
      r.portGid = {};
      r.joinState = 0;
      r.proxyJoin = false;
    }
  }
  return out;
}

std::vector<McGroupRoute> McGroups::routes() const {
  std::vector<McGroupRoute> out;
  out.reserve(groups_.size());
  for (const auto& [mgid, g] : groups_) {
    McGroupRoute route{.mgid = mgid, .mlid = g.mlid, .members = {}};
    route.members.reserve(g.members.size());
    for (const auto& [guid, m] : g.members)
      route.members.push_back(
          {.portGuid = guid, .receives = (m.joinState & joinState::kReceives) != 0});
    out.push_back(std::move(route));
  }
  return out;
}

std::size_t McGroups::setPrecreated(const std::vector<McGroupSpec>& specs) {
  std::size_t refused = 0;
  std::set<Gid> listed;
  for (const McGroupSpec& spec : specs) {
    listed.insert(spec.mgid);
    const auto it = groups_.find(spec.mgid);
    if (it != groups_.end()) {
      it->second.precreated = true;
      // Members joined with the parameters the group had; a group nobody
      // joined takes the configuration's new ones.
      if (it->second.members.empty() && it->second.params != spec.params) {
        it->second.params = spec.params;
        changed();
      }
      continue;
    }
    const auto mlid = allocateMlid(0, Lid{});
    if (!mlid) {
      ++refused;
      continue;
    }
    McGroup g;
    g.mgid = spec.mgid;
    g.mlid = *mlid;
    g.params = spec.params;
    g.precreated = true;
    add(std::move(g));
  }
  std::vector<Gid> unlisted;
  for (auto& [mgid, g] : groups_) {
    if (g.precreated && !listed.contains(mgid)) {
      g.precreated = false;
      unlisted.push_back(mgid);
    }
  }
  for (const Gid& mgid : unlisted) collect(mgid);
  return refused;
}

}  // namespace ibsm::sm::sa
