// formatMcGroups: the dry run's multicast groups file (format in Dumps.h).
#include <arpa/inet.h>
#include <fmt/format.h>
#include <ibsm/Dumps.h>

namespace ibsm {

std::string gidText(const Gid& gid) {
  char text[INET6_ADDRSTRLEN] = {};
  inet_ntop(AF_INET6, gid.data(), text, sizeof text);
  return text;
}

std::string formatMcGroups(const Fabric& fabric, const std::vector<McGroupListing>& groups) {
  fmt::memory_buffer out;
  for (const McGroupListing& g : groups) {
    const McGroupParams& p = g.params;
    fmt::format_to(std::back_inserter(out),
                   "mgid {} mlid 0x{:04x} pkey 0x{:04x} qkey 0x{:08x} mtu {} rate {} sl {} scope "
                   "0x{:x} tclass {} flow_label 0x{:05x} members {}",
                   gidText(g.mgid), g.mlid.value, p.pkey, p.qkey, p.mtu, p.rate, p.sl, p.scope,
                   p.tclass, p.flowLabel, g.members.size());
    if (!g.where.empty()) fmt::format_to(std::back_inserter(out), " # {}", g.where);
    out.push_back('\n');
    for (const McRouteMember& m : g.members) {
      const auto ref = fabric.findPort(m.portGuid);
      fmt::format_to(std::back_inserter(out), "  {} {} {}\n", m.portGuid,
                     m.receives ? "full" : "send-only",
                     ref ? fabric.describe(*ref) : std::string("(not in the fabric)"));
    }
  }
  return fmt::to_string(out);
}

}  // namespace ibsm
