// Reads ibnetdiscover's topology output, line by line, into sections; and
// parseIbnetdiscover, which hands them to IbnetdiscoverFabric.cpp. Captures
// come as operators keep them: copied from a terminal with the prompt, with
// stderr in the same file, saved on Windows, or written by ibdiagnet. What is
// clearly not topology is skipped with a warning (CaptureNoise.h); a line
// that starts like a record but is malformed is an error.
#include <fmt/format.h>
#include <ibsm/Topology.h>

#include "routing/topology/CaptureNoise.h"
#include "routing/topology/IbnetdiscoverCapture.h"
#include "routing/topology/LinkCodes.h"
#include "routing/topology/TextScan.h"

namespace ibsm {
namespace {

using topology::Cursor;
using topology::IbndCapture;
using topology::IbndHeader;
using topology::IbndSection;
using topology::typeName;

constexpr std::string_view kIdKeys[] = {"vendid",     "devid",  "sysimgguid",
                                        "switchguid", "caguid", "rtguid"};

enum class LineKind : std::uint8_t { Port, Id, Grouping, Header, Other };

// What a line starts like. Anything that starts like a record is parsed as
// one, so a malformed record is an error and never skipped as noise.
LineKind kindOf(std::string_view text) {
  if (text.size() > 1 && text.front() == '[' && topology::isDigit(text[1])) return LineKind::Port;
  const auto word = Cursor{text}.letters();
  for (const std::string_view key : kIdKeys)
    if (word == key) return LineKind::Id;
  // The chassis grouping of ibnetdiscover -g carries nothing a Fabric holds.
  if (text.starts_with("Chassis ") || text.starts_with("Hostname:") || text == "Non-Chassis Nodes")
    return LineKind::Grouping;
  const bool typeWord = (word == "Switch" || word == "Ca" || word == "Rt") &&
                        word.size() < text.size() && topology::isBlank(text[word.size()]);
  if (typeWord || topology::looksLikeNodeHeader(text)) return LineKind::Header;
  return LineKind::Other;
}

// The vendid= ... switchguid= block that precedes a node header.
struct PendingIds {
  std::optional<std::uint32_t> vendorId;
  std::optional<std::uint16_t> deviceId;
  std::optional<Guid> systemImageGuid;
  std::optional<Guid> nodeGuid;
  NodeType nodeType{NodeType::Ca};
  Guid portGuid;
  std::size_t guidLine{0};
};

class IbndScanner {
 public:
  explicit IbndScanner(std::string_view file) : file_(file), skipped_(file) {}

  Result<void> line(std::string_view text, std::size_t no);
  Result<IbndCapture> finish(std::size_t lastLine) {
    if (pending_.nodeGuid || pending_.vendorId || pending_.systemImageGuid)
      return fail(lastLine, "the file ends after GUID lines, before the node header they announce");
    capture_.warnings = skipped_.takeWarnings();
    return std::move(capture_);
  }

 private:
  std::unexpected<Error> fail(std::size_t line, std::string_view what) const {
    return std::unexpected(Error::at(file_, line, what));
  }
  Result<void> record(LineKind kind, std::string_view text, std::size_t no);
  Result<void> idLine(std::string_view text, std::size_t no);
  Result<void> header(std::string_view text, std::size_t no);
  bool isDirectorChip(const topology::IbndHeader& h) const;
  Result<void> directorChip(const topology::IbndHeader& h, std::size_t no);
  Result<void> portLine(std::string_view text, std::size_t no);
  std::string name(const IbndSection& s) const {
    return fmt::format("{} {} \"{}\"", typeName(s.header.type), s.header.guid,
                       s.header.description);
  }

  std::string_view file_;
  IbndCapture capture_;
  topology::SkippedLines skipped_;
  PendingIds pending_;
  bool inSection_{false};
  bool seenRecord_{false};
};

template <typename T>
bool setOnce(std::optional<T>& slot, T value) {
  if (slot) return false;
  slot = value;
  return true;
}

// What may follow a value on an ID line: nothing, or a "# Chassis ..." note of -g.
bool onlyComment(Cursor& c) {
  c.skipSpace();
  return c.atEnd() || c.peek() == '#';
}

Result<void> IbndScanner::idLine(std::string_view text, std::size_t no) {
  inSection_ = false;
  Cursor c{text};
  const auto key = c.letters();
  if (!c.consume('=')) return fail(no, fmt::format("expected '=' after '{}'", key));
  // ibdiagnet pads vendid to eight digits, ibnetdiscover prints it bare.
  if (key == "vendid" && c.rest().starts_with("0x0") && c.rest().size() > 3 &&
      !topology::isBlank(c.rest()[3]))
    capture_.fromIbdiagnet = true;
  const auto value = c.hex();
  if (!value) return fail(no, fmt::format("expected a hex number after '{}='", key));
  bool fresh = true;
  if (key == "vendid") {
    fresh = setOnce(pending_.vendorId, static_cast<std::uint32_t>(*value));
  } else if (key == "devid") {
    fresh = setOnce(pending_.deviceId, static_cast<std::uint16_t>(*value));
  } else if (key == "sysimgguid") {
    fresh = setOnce(pending_.systemImageGuid, Guid{*value});
  } else {
    pending_.nodeType = key == "switchguid" ? NodeType::Switch
                        : key == "caguid"   ? NodeType::Ca
                                            : NodeType::Router;
    pending_.guidLine = no;
    fresh = setOnce(pending_.nodeGuid, Guid{*value});
    pending_.portGuid = Guid{*value};
    if (key == "switchguid" && c.consume('(')) {
      const auto port = c.hex();
      if (!port || !c.consume(')'))
        return fail(no, "expected the port GUID in hex as 'switchguid=0x<guid>(<port guid>)'");
      pending_.portGuid = Guid{*port};
    }
  }
  if (!fresh)
    return fail(no, fmt::format("second '{}=' before the node header it belongs to", key));
  if (!onlyComment(c))
    return fail(no, fmt::format("unexpected text after '{}=0x{:x}'", key, *value));
  return {};
}

// ibdiagnet names a director's switch chip "S-<chip GUID>" but announces it
// as 'switchguid=0x<chassis GUID>(<chip GUID>)': the chassis' GUID (its
// system image GUID) first, the chip's in parentheses. The chip's GUID is its
// node GUID (what it answers in NodeInfo.NodeGUID, so the one LIDs are kept
// by) and the GUID of its port 0.
bool IbndScanner::isDirectorChip(const IbndHeader& h) const {
  return h.type == NodeType::Switch && pending_.nodeType == NodeType::Switch && pending_.nodeGuid &&
         *pending_.nodeGuid != h.guid && pending_.portGuid == h.guid;
}

Result<void> IbndScanner::directorChip(const IbndHeader& h, std::size_t no) {
  const Guid chassis = *pending_.nodeGuid;
  if (pending_.systemImageGuid && *pending_.systemImageGuid != chassis)
    return fail(no, fmt::format("this switch header names {}, which line {} gives in parentheses "
                                "after {} as ibdiagnet announces a director's chip (chassis GUID "
                                "first), but sysimgguid= gives the chassis as {}",
                                h.guid, pending_.guidLine, chassis, *pending_.systemImageGuid));
  pending_.systemImageGuid = chassis;
  pending_.nodeGuid = h.guid;
  return {};
}

Result<void> IbndScanner::header(std::string_view text, std::size_t no) {
  auto h = topology::parseIbndHeader(text);
  if (!h) return fail(no, h.error());
  if (isDirectorChip(*h))
    if (auto ok = directorChip(*h, no); !ok) return ok;
  if (pending_.nodeGuid && (pending_.nodeType != h->type || *pending_.nodeGuid != h->guid))
    return fail(no, fmt::format("this {} header names {} but line {} announced {} {}",
                                typeName(h->type), h->guid, pending_.guidLine,
                                typeName(pending_.nodeType), *pending_.nodeGuid));
  auto& sections = capture_.sections;
  if (const auto [it, fresh] = capture_.byGuid.emplace(h->guid, sections.size()); !fresh)
    return fail(no,
                fmt::format("node GUID {} appears twice: this {} and the {} at line {}", h->guid,
                            typeName(h->type), typeName(sections[it->second].header.type),
                            sections[it->second].line));
  IbndSection s;
  s.header = *h;
  s.line = no;
  s.systemImageGuid = pending_.systemImageGuid.value_or(Guid{});
  s.vendorId = pending_.vendorId.value_or(0);
  s.deviceId = pending_.deviceId.value_or(0);
  s.switchPortGuid = pending_.nodeGuid ? pending_.portGuid : h->guid;
  s.byPort.assign(std::size_t{h->numPorts} + 1, -1);
  s.ports.reserve(h->numPorts);
  s.portLine.reserve(h->numPorts);
  sections.push_back(std::move(s));
  pending_ = {};
  inSection_ = true;
  return {};
}

Result<void> IbndScanner::portLine(std::string_view text, std::size_t no) {
  if (!inSection_)
    return fail(no, "port line outside a node section (expected a Switch, Ca or Rt header first)");
  IbndSection& s = capture_.sections.back();
  auto p = topology::parseIbndPortLine(text, s.header.type);
  if (!p) return fail(no, p.error());
  if (p->port > s.header.numPorts)
    return fail(no, fmt::format("port [{}] is beyond the {} ports of {} (header at line {})",
                                p->port, s.header.numPorts, name(s), s.line));
  if (const int earlier = s.byPort[p->port]; earlier >= 0)
    return fail(no, fmt::format("port [{}] of {} is listed twice (also at line {})", p->port,
                                name(s), s.portLine[static_cast<std::size_t>(earlier)]));
  s.byPort[p->port] = static_cast<int>(s.ports.size());
  s.ports.push_back(*p);
  s.portLine.push_back(no);
  return {};
}

Result<void> IbndScanner::record(LineKind kind, std::string_view text, std::size_t no) {
  switch (kind) {
    case LineKind::Port:
      return portLine(text, no);
    case LineKind::Id:
      return idLine(text, no);
    case LineKind::Header:
      return header(text, no);
    case LineKind::Grouping:
    case LineKind::Other:
      break;
  }
  inSection_ = false;
  return {};
}

Result<void> IbndScanner::line(std::string_view text, std::size_t no) {
  text = topology::trimRight(topology::trimLeft(text));
  if (text.empty()) return {};  // blank lines keep a run of skipped lines open
  if (text.front() == '#') {
    if (text.find("automatically generated by IBDIAG") != std::string_view::npos)
      capture_.fromIbdiagnet = true;
    skipped_.endRun();
    return {};
  }
  if (const LineKind kind = kindOf(text); kind != LineKind::Other) {
    seenRecord_ = true;
    skipped_.endRun();
    return record(kind, text, no);
  }
  if (skipped_.passOver(no, text, !seenRecord_)) return {};
  return fail(no,
              "expected a node header (Switch, Ca, Rt), a port line '[n] ...', a GUID line "
              "such as 'switchguid=0x...' or a '#' comment");
}

}  // namespace

namespace topology {

Result<IbndCapture> scanIbnetdiscover(std::string_view text, std::string_view file) {
  IbndScanner scanner{file};
  LineReader lines{withoutByteOrderMark(text)};
  std::string_view line;
  while (lines.next(line))
    if (auto r = scanner.line(line, lines.number()); !r) return std::unexpected(r.error());
  return scanner.finish(lines.number());
}

}  // namespace topology

Result<TopologyRead> parseIbnetdiscover(std::string_view text, std::string_view fileName) {
  auto capture = topology::scanIbnetdiscover(text, fileName);
  if (!capture) return std::unexpected(capture.error());
  TopologyRead read;
  read.warnings = std::move(capture->warnings);
  auto fabric = topology::buildIbnetdiscoverFabric(*capture, fileName, read.warnings);
  if (!fabric) return std::unexpected(fabric.error());
  read.fabric = std::move(*fabric);
  return read;
}

}  // namespace ibsm
