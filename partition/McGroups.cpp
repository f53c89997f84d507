// multicastGroups(): what partitions.conf pre-creates, as OpenSM would
// (osm_prtn_config.c: the broadcast group of an ipoib partition, then the
// mgid= groups with the partition's flags as defaults).
#include <fmt/format.h>
#include <ibsm/Partitions.h>

#include <algorithm>

namespace ibsm::partition {
namespace {

constexpr std::uint32_t kIpoibQKey = 0x0b1b;

bool isIpGroup(const Gid& mgid) {
  return mgid[3] == 0x1b && (mgid[2] == 0x40 || mgid[2] == 0x60);
}

// The group's flags where set, else the partition's, else OpenSM's defaults.
McGroupParams partitionParams(const PartitionDef& p) {
  McGroupParams params;
  params.pkey = static_cast<std::uint16_t>(p.pkey | kFullMember);
  params.mtu = p.mtu.value_or(4);
  params.rate = p.rate.value_or(3);
  params.sl = p.sl.value_or(0);
  params.qkey = p.qkey.value_or(0);
  params.tclass = p.tclass.value_or(0);
  params.flowLabel = p.flowLabel.value_or(0);
  return params;
}

// One group per scope (each overwriting the MGID's scope nibble), or the
// MGID as written when no scope is given.
void addPerScope(Gid mgid, const McGroupParams& params, const std::vector<std::uint8_t>& scopes,
                 const std::string& where, std::vector<McGroupSpec>& out) {
  auto add = [&](const Gid& gid, std::uint8_t scope) {
    if (std::ranges::find(out, gid, &McGroupSpec::mgid) != out.end()) return;
    McGroupSpec spec{gid, params, where};
    spec.params.scope = scope;
    out.push_back(std::move(spec));
  };
  if (scopes.empty()) add(mgid, mgid[1] & 0x0f);
  for (const std::uint8_t scope : scopes) {
    mgid[1] = static_cast<std::uint8_t>((mgid[1] & 0xf0) | scope);
    add(mgid, scope);
  }
}

Result<void> addGroup(const PartitionDef& p, const McGroupDef& g, std::vector<McGroupSpec>& out) {
  const McGroupParams inherited = partitionParams(p);
  McGroupParams params = inherited;
  params.mtu = g.mtu.value_or(inherited.mtu);
  params.rate = g.rate.value_or(inherited.rate);
  params.sl = g.sl.value_or(inherited.sl);
  params.qkey = g.qkey.value_or(inherited.qkey);
  params.tclass = g.tclass.value_or(0);  // OpenSM does not inherit TClass
  params.flowLabel = g.flowLabel.value_or(inherited.flowLabel);
  Gid mgid = g.mgid;
  if (isIpGroup(mgid)) {
    const std::uint16_t inMgid = static_cast<std::uint16_t>(mgid[4] << 8 | mgid[5]);
    if (inMgid != 0 && inMgid != params.pkey)
      return fail(
          fmt::format("{}: IP group's PKey 0x{:04x} is not its partition's (0x{:04x}); "
                      "write 0x{:04x} or 0000",
                      g.where, inMgid, params.pkey, params.pkey));
    if (params.mtu != inherited.mtu || params.rate != inherited.rate)
      return fail(
          fmt::format("{}: an IP group takes the MTU and rate of its partition's "
                      "broadcast group (mtu={}, rate={})",
                      g.where, inherited.mtu, inherited.rate));
    mgid[4] = static_cast<std::uint8_t>(params.pkey >> 8);
    mgid[5] = static_cast<std::uint8_t>(params.pkey & 0xff);
    if (params.qkey == 0) params.qkey = kIpoibQKey;
  }
  addPerScope(mgid, params, g.scopes.empty() ? p.scopes : g.scopes, g.where, out);
  return {};
}

}  // namespace

Result<std::vector<McGroupSpec>> multicastGroups(const PartitionConfig& config) {
  std::vector<McGroupSpec> out;
  for (const PartitionDef& p : config.partitions) {
    if (p.ipoib) {
      McGroupParams params = partitionParams(p);
      if (params.qkey == 0) params.qkey = kIpoibQKey;
      const std::vector<std::uint8_t> linkLocal{mcScope::kLinkLocal};
      addPerScope(ipoibBroadcastMgid(p.pkey), params, p.scopes.empty() ? linkLocal : p.scopes,
                  p.where, out);
    }
    for (const McGroupDef& g : p.groups)
      if (auto ok = addGroup(p, g, out); !ok) return std::unexpected(ok.error());
  }
  return out;
}

}  // namespace ibsm::partition
