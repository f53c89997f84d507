// formatMftDump: MFTs as `ibroute -M` prints them (format in Dumps.h), so a
// dry run's tables and a live fabric's read back compare line by line.
#include <fmt/format.h>
#include <ibsm/Dumps.h>

#include <algorithm>
#include <bit>

namespace ibsm {
namespace {

// The column titles ibroute prints above the entries of a switch.
void writeTitles(fmt::memory_buffer& out, unsigned ports) {
  if (ports > 9) {
    out.append(std::string_view("            "));
    for (unsigned i = 0; i <= ports; ++i) {
      out.push_back(i % 10 ? ' ' : static_cast<char>('0' + i / 10));
      out.push_back(' ');
    }
    out.push_back('\n');
  }
  out.append(std::string_view("     Ports: "));
  for (unsigned i = 0; i <= ports; ++i) fmt::format_to(std::back_inserter(out), "{} ", i % 10);
  out.append(std::string_view("\n MLid\n"));
}

}  // namespace

std::string formatMftDump(const Fabric& fabric, const std::vector<SwitchMft>& mfts) {
  std::uint16_t top = 0;
  for (const SwitchMft& mft : mfts)
    if (!mft.entries.empty()) top = std::max(top, mft.entries.rbegin()->first);
  std::vector<NodeId> switches = fabric.switches();
  std::ranges::sort(switches, {},
                    [&](NodeId id) { return std::byteswap(fabric.node(id).guid.value); });
  fmt::memory_buffer out;
  for (const NodeId id : switches) {
    const Node& sw = fabric.node(id);
    const unsigned cap = sw.switchData ? sw.switchData->multicastFdbCap : 0;
    const unsigned end = top ? top : kFirstMlid.value + cap - 1;
    fmt::format_to(std::back_inserter(out),
                   "Multicast mlids [0x{:x}-0x{:x}] of switch Lid {} guid 0x{:016x} ({}):\n",
                   kFirstMlid.value, end, sw.ports[0].lid.value, sw.guid.value, sw.description);
    writeTitles(out, sw.numPorts());
    std::size_t listed = 0;
    if (id < mfts.size()) {
      for (const auto& [mlid, mask] : mfts[id].entries) {
        if (mask.none()) continue;
        fmt::format_to(std::back_inserter(out), "0x{:04x}      ", mlid);
        for (unsigned i = 0; i <= sw.numPorts(); ++i) {
          out.push_back(mask.test(i) ? 'x' : ' ');
          out.push_back(' ');
        }
        out.push_back('\n');
        ++listed;
      }
    }
    fmt::format_to(std::back_inserter(out), "{} valid mlids dumped \n", listed);
  }
  return fmt::to_string(out);
}

}  // namespace ibsm
