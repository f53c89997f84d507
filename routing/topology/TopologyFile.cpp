// The one place the topology readers touch the file system: read the whole
// file, tell its format from its first record, hand the text on.
#include <fmt/format.h>
#include <ibsm/Topology.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "routing/topology/PortsReportSyntax.h"
#include "routing/topology/TextScan.h"

namespace ibsm {

TopologyFormat detectTopologyFormat(std::string_view text) {
  topology::LineReader lines{topology::withoutByteOrderMark(text)};
  std::string_view line;
  while (lines.next(line)) {
    line = topology::trimLeft(line);
    if (line.empty() || line.front() == '#') continue;
    if (topology::looksLikePortsLine(line)) return TopologyFormat::IbnetdiscoverPorts;
    // ibnetdiscover names every node by type and GUID, "S-0002c903004a1b20",
    // and follows the name with '# "description"'; ibsim net files use free
    // names. ibsim reads ibnetdiscover output too, but then the GUIDs in the
    // text are the truth, so such a file is read as a capture.
    if (!topology::looksLikeNodeHeader(line)) continue;
    topology::Cursor c{line};
    c.letters();
    c.skipSpace();
    c.decimal();
    c.skipSpace();
    const auto name = c.quoted();
    c.skipSpace();
    const bool described = c.consume('#') && (c.skipSpace(), c.peek() == '"');
    const bool typedName = name && name->size() > 2 && (*name)[1] == '-' &&
                           std::string_view("SHR?").find((*name)[0]) != std::string_view::npos &&
                           topology::Cursor{name->substr(2)}.hex().has_value();
    return typedName && described ? TopologyFormat::Ibnetdiscover : TopologyFormat::IbsimNet;
  }
  return TopologyFormat::IbsimNet;
}

Result<TopologyRead> readTopologyFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return fail(
        fmt::format("{}: cannot read topology file: {}", path.string(), std::strerror(errno)));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return fail(fmt::format("{}: read error: {}", path.string(), std::strerror(errno)));
  const std::string text = std::move(buffer).str();
  const std::string name = path.string();
  switch (detectTopologyFormat(text)) {
    case TopologyFormat::Ibnetdiscover:
      return parseIbnetdiscover(text, name);
    case TopologyFormat::IbnetdiscoverPorts:
      return parseIbnetdiscoverPorts(text, name);
    case TopologyFormat::IbsimNet:
      break;
  }
  auto fabric = parseNetFile(text, name);
  if (!fabric) return std::unexpected(fabric.error());
  return TopologyRead{std::move(*fabric), {}};
}

}  // namespace ibsm
