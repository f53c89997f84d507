// `mgid=` entries of partitions.conf: a group the partition pre-creates.
// Its flag values mean what the partition flags of the same name mean, so
// they are read by the same applyFlag() on a scratch definition.
#include <arpa/inet.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "partition/PartitionSyntax.h"

namespace ibsm::partition::detail {
namespace {

Result<Gid> parseMgid(std::string_view text, const std::string& where) {
  Gid gid{};
  const std::string copy(text);
  if (inet_pton(AF_INET6, copy.c_str(), gid.data()) != 1 || gid[0] != 0xff) {
    return std::unexpected(Error{fmt::format(
        "{}: mgid= takes a multicast GID (ff..., e.g. ff12:401b::16), not '{}'", where, text)});
  }
  return gid;
}

// One flag after the MGID. OpenSM's parse_mgroup_flags() ignores a flag it
// does not know, a second `mgid=` on the line included (that group is then
// never created), and skips a value it cannot take.
Result<void> applyGroupFlag(McGroupDef& group, std::string_view key, std::string_view value,
                            const std::string& where, const Tolerance& tolerance) {
  static constexpr std::string_view kGroupFlags[] = {"mtu",   "rate", "sl",     "scope",
                                                     "q_key", "qkey", "tclass", "flowlabel"};
  const std::string k = lower(key);
  if (k == "mgid") {
    return tolerance.pass(
        where,
        fmt::format("a second group 'mgid={}' after ',' on the line of another (one mgid= a line)",
                    value),
        "take it for an unknown flag of the first group and ignore it: the group is never created");
  }
  if (std::ranges::find(kGroupFlags, k) == std::end(kGroupFlags)) {
    return tolerance.pass(where,
                          fmt::format("unknown mgid= flag '{}' (expected mtu, rate, sl, scope, "
                                      "Q_Key, TClass, FlowLabel)",
                                      key),
                          "ignore this flag");
  }
  PartitionDef scratch;
  Membership unused = Membership::Limited;
  if (auto ok = applyFlag(scratch, unused, key, value, where); !ok)
    return tolerance.pass(where, ok.error(),
                          k == "q_key" || k == "qkey" || k == "tclass"
                              ? "use 0 for it (ibsm, not strict, leaves it unset)"
                              : "ignore this flag");
  if (scratch.mtu) group.mtu = scratch.mtu;
  if (scratch.rate) group.rate = scratch.rate;
  if (scratch.sl) group.sl = scratch.sl;
  if (scratch.qkey) group.qkey = scratch.qkey;
  if (scratch.tclass) group.tclass = scratch.tclass;
  if (scratch.flowLabel) group.flowLabel = scratch.flowLabel;
  for (const std::uint8_t s : scratch.scopes)
    if (std::ranges::find(group.scopes, s) == group.scopes.end()) group.scopes.push_back(s);
  return {};
}

}  // namespace

bool isMcGroupEntry(std::string_view text) {
  const auto eq = text.find('=');
  return eq != std::string_view::npos && lower(trim(text.substr(0, eq))) == "mgid";
}

Result<std::optional<McGroupDef>> parseMcGroup(std::string_view text, const std::string& where,
                                               const Tolerance& tolerance) {
  McGroupDef group;
  group.where = where;
  bool first = true;
  while (true) {
    const auto comma = text.find(',');
    const std::string_view item = trim(text.substr(0, comma));
    const auto eq = item.find('=');
    const std::string_view key = trim(item.substr(0, eq));
    const std::string_view value = eq == std::string_view::npos ? "" : trim(item.substr(eq + 1));
    if (first) {
      auto gid = parseMgid(value, where);
      if (!gid) {
        if (auto ok = tolerance.pass(where, gid.error(), "not create this group"); !ok)
          return std::unexpected(ok.error());
        return std::optional<McGroupDef>{};
      }
      group.mgid = *gid;
      first = false;
    } else if (auto ok = applyGroupFlag(group, key, value, where, tolerance); !ok) {
      return std::unexpected(ok.error());
    }
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return std::optional<McGroupDef>{std::move(group)};
}

}  // namespace ibsm::partition::detail
