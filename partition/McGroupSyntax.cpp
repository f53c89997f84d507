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

}  // namespace

bool isMcGroupEntry(std::string_view text) {
  const auto eq = text.find('=');
  return eq != std::string_view::npos && lower(trim(text.substr(0, eq))) == "mgid";
}

Result<McGroupDef> parseMcGroup(std::string_view text, const std::string& where) {
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
      if (!gid) return std::unexpected(gid.error());
      group.mgid = *gid;
      first = false;
    } else {
      static constexpr std::string_view kGroupFlags[] = {"mtu",   "rate", "sl",     "scope",
                                                         "q_key", "qkey", "tclass", "flowlabel"};
      if (std::ranges::find(kGroupFlags, lower(key)) == std::end(kGroupFlags)) {
        return std::unexpected(Error{fmt::format(
            "{}: unknown mgid= flag '{}' (expected mtu, rate, sl, scope, Q_Key, TClass, "
            "FlowLabel)",
            where, key)});
      }
      PartitionDef scratch;
      Membership unused = Membership::Limited;
      if (auto ok = applyFlag(scratch, unused, key, value, where); !ok)
        return std::unexpected(ok.error());
      if (scratch.mtu) group.mtu = scratch.mtu;
      if (scratch.rate) group.rate = scratch.rate;
      if (scratch.sl) group.sl = scratch.sl;
      if (scratch.qkey) group.qkey = scratch.qkey;
      if (scratch.tclass) group.tclass = scratch.tclass;
      if (scratch.flowLabel) group.flowLabel = scratch.flowLabel;
      for (const std::uint8_t s : scratch.scopes)
        if (std::ranges::find(group.scopes, s) == group.scopes.end()) group.scopes.push_back(s);
    }
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return group;
}

}  // namespace ibsm::partition::detail
