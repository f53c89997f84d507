// Reads an ibsim net file into the Fabric ibsim would simulate: the same
// GUIDs (handed out per node type in file order: CAs from 0x100000, a node
// GUID and then one per port; switches from 0x200000, one GUID each; routers
// from 0 unless "rtguid=" moves them), the same descriptions, initial LIDs
// and trained link widths and speeds. Like ibsim, a cable must be written
// at both of its ends, and both ends must agree.
#include <fmt/format.h>
#include <ibsm/Topology.h>

#include <array>
#include <unordered_map>
#include <vector>

#include "routing/topology/LinkCodes.h"
#include "routing/topology/NetFileSyntax.h"
#include "routing/topology/TextScan.h"

namespace ibsm {
namespace {

using namespace topology;

struct PortSpec {
  bool cabled{false};
  std::string_view remote;
  std::uint8_t remotePort{0};
  std::size_t line{0};
  std::uint8_t widthEnabled{kWidth4x};
  std::uint8_t speedEnabled{kSpeedSdr};
  std::uint8_t extSpeedEnabled{0};
  std::uint16_t lid{0};
  std::uint8_t lmc{0};
};

struct Record {
  NetHeader header;
  std::size_t line{0};
  Guid guid;
  Guid systemImageGuid;
  std::uint32_t vendorId{0};
  std::uint16_t deviceId{0};
  std::vector<PortSpec> ports;  // by port number; [0] unused for CAs
  std::size_t portLines{0};
};

std::size_t typeIndex(NodeType t) {
  return t == NodeType::Switch ? 0 : t == NodeType::Ca ? 1 : 2;
}

// Settings that apply to the nodes after them, as in ibsim's parse_netconf.
struct Defaults {
  std::array<std::uint64_t, 3> guidBase{0x200000, 0x100000, 0};  // switch, CA, router
  std::array<std::uint64_t, 3> nextGuid{0x200000, 0x100000, 0};
  std::optional<std::uint32_t> vendorId;         // next node only
  std::uint16_t deviceId{0};                     // sticks
  std::optional<std::uint64_t> systemImageGuid;  // next node only
  std::uint8_t width{kWidth4x};
  std::uint8_t speed{kSpeedSdr};
  std::uint8_t extSpeed{0};
};

// A number as ibsim's strtoul(.., 0) reads it, but the whole token must be one.
bool isCNumber(std::string_view t) {
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X'))
    return t.find_first_not_of("0123456789abcdefABCDEF", 2) == std::string_view::npos;
  if (t.starts_with('0')) return t.find_first_not_of("01234567") == std::string_view::npos;
  return !t.empty() && t.find_first_not_of("0123456789") == std::string_view::npos;
}

class NetParser {
 public:
  explicit NetParser(std::string_view file) : file_(file) {}

  Result<void> parse(std::string_view text);
  Result<Fabric> build() const;

 private:
  std::unexpected<Error> fail(std::size_t line, std::string what) const {
    return std::unexpected(Error::at(file_, line, what));
  }
  Result<void> topLevel(std::string_view line, std::size_t no);
  Result<void> directive(std::string_view line, std::size_t no);
  Result<void> header(std::string_view line, std::size_t no);
  Result<void> portLine(std::string_view line, std::size_t no);
  Result<void> link(Fabric& fabric, std::size_t r, std::uint8_t p) const;
  std::string name(const Record& r) const {
    return fmt::format("{} \"{}\" (line {})", typeName(r.header.type), r.header.name, r.line);
  }

  std::string_view file_;
  Defaults defaults_;
  std::vector<Record> records_;
  std::unordered_map<std::string_view, std::size_t> byName_;
  std::unordered_map<std::uint64_t, std::size_t> byGuid_;
  bool inRecord_{false};
};

Result<void> NetParser::parse(std::string_view text) {
  LineReader lines{withoutByteOrderMark(text)};
  std::string_view line;
  while (lines.next(line)) {
    const std::size_t no = lines.number();
    if (line.size() > kMaxNetLine)
      return fail(no, fmt::format("line of {} characters; ibsim reads at most {} and would split "
                                  "it",
                                  line.size(), kMaxNetLine));
    if (inRecord_) {
      const Record& r = records_.back();
      if (r.portLines == r.header.numPorts) {
        inRecord_ = false;  // ibsim stops reading a record once every port is listed
      } else if (line.starts_with('#')) {
        continue;
      } else if (line.starts_with('[')) {
        if (auto ok = portLine(line, no); !ok) return ok;
        continue;
      } else if (line.starts_with('@')) {
        return fail(no, "ibsim aliases ('@') are not supported");
      } else if (trimLeft(line).empty()) {
        inRecord_ = false;
        continue;
      } else {
        return fail(no, fmt::format("expected a port line '[n] \"remote\"[m]' or a blank line "
                                    "ending the record of {}: ibsim would take this line as that "
                                    "end and skip it",
                                    name(r)));
      }
    }
    if (auto ok = topLevel(line, no); !ok) return ok;
  }
  if (records_.empty())
    return std::unexpected(
        Error{fmt::format("{}: no nodes found (expected 'Switch', 'Hca' or 'Rt' headers)", file_)});
  return {};
}

Result<void> NetParser::topLevel(std::string_view line, std::size_t no) {
  if (trimLeft(line).empty() || line.starts_with('#')) return {};
  if (isBlank(line.front()))
    return fail(no, "ibsim ignores a line that starts with a blank; remove the indentation");
  if (line.starts_with('[')) {
    if (!records_.empty() && records_.back().portLines == records_.back().header.numPorts)
      return fail(no, fmt::format("more port lines than the {} ports of {}",
                                  records_.back().header.numPorts, name(records_.back())));
    return fail(no, "port line outside a node record (expected a Switch, Hca or Rt header first)");
  }
  if (line.starts_with('@')) return fail(no, "ibsim aliases ('@') are not supported");
  if (isNetHeader(line) || looksLikeNodeHeader(line)) return header(line, no);
  return directive(line, no);
}

Result<void> NetParser::directive(std::string_view line, std::size_t no) {
  Cursor c{line};
  const auto key = c.letters();
  for (const std::string_view unsupported : {"include", "module", "do"})
    if (key == unsupported)
      return fail(no,
                  fmt::format("'{}' lines are not supported; give the fabric in one file", key));
  if (key == "pdebug") return {};  // ibsim's parser tracing
  const bool guidBase =
      key == "switchguid" || key == "caguid" || key == "hcaguids" || key == "rtguid";
  const bool known = guidBase || key == "vendid" || key == "devid" || key == "sysimgguid" ||
                     key == "width" || key == "speed" || key == "extspeed";
  if (!known)
    return fail(no,
                "expected a node header (Switch, Hca, Rt), a port line, a setting such as "
                "'switchguid=0x...' or a '#' comment");
  c.skipSpace();
  const bool relative = guidBase && c.consume('+');
  if (!relative && !c.consume('=')) return fail(no, fmt::format("expected '=' after '{}'", key));
  c.skipSpace();
  const std::size_t start = c.position();
  while (!c.atEnd() && !isBlank(c.peek()) && c.peek() != '#' && c.peek() != '(')
    c.seek(c.position() + 1);
  const std::string_view token = line.substr(start, c.position() - start);
  if (!isCNumber(token)) return fail(no, fmt::format("expected a number after '{}='", key));
  const std::uint64_t v = cNumber(token);
  c.skipSpace();
  if (key == "switchguid" && c.consume('(')) {  // an ibnetdiscover port GUID
    if (!c.hex() || !c.consume(')')) return fail(no, "expected a hex port GUID in '(...)'");
    c.skipSpace();
  }
  if (!c.atEnd() && c.peek() != '#')
    return fail(no, fmt::format("unexpected '{}' after '{}={}'", c.rest(), key, token));

  if (guidBase) {
    const std::size_t t = key == "switchguid" ? 0 : key == "rtguid" ? 2 : 1;
    if (!relative) defaults_.guidBase[t] = v;
    defaults_.nextGuid[t] = defaults_.guidBase[t] + (relative ? v : 0);
  } else if (key == "vendid") {
    defaults_.vendorId = static_cast<std::uint32_t>(v);
  } else if (key == "devid") {
    defaults_.deviceId = static_cast<std::uint16_t>(v);
  } else if (key == "sysimgguid") {
    defaults_.systemImageGuid = v;
  } else if (key == "width") {
    if (v < 1 || v > kWidthAll) return fail(no, "expected width= from 1 to 31 (an IBA width mask)");
    defaults_.width = static_cast<std::uint8_t>(v);
  } else if (key == "speed") {
    if (v < 1 || v > kSpeedAll) return fail(no, "expected speed= from 1 to 7 (an IBA speed mask)");
    defaults_.speed = static_cast<std::uint8_t>(v);
  } else {
    if (v > 15) return fail(no, "expected extspeed= from 0 to 15 (an IBA extended speed mask)");
    defaults_.extSpeed = static_cast<std::uint8_t>(v);
  }
  return {};
}

Result<void> NetParser::header(std::string_view line, std::size_t no) {
  auto h = parseNetHeader(line);
  if (!h) return fail(no, h.error());
  if (const auto it = byName_.find(h->name); it != byName_.end())
    return fail(no, fmt::format("node \"{}\" is defined twice (first at line {})", h->name,
                                records_[it->second].line));
  const std::size_t t = typeIndex(h->type);
  const std::uint64_t guid = defaults_.nextGuid[t];
  if (guid == 0)
    return fail(no, fmt::format("ibsim would give {} \"{}\" GUID 0, which is not a valid GUID "
                                "(routers count from 0; put 'rtguid=0x...' before them)",
                                typeName(h->type), h->name));
  if (const auto it = byGuid_.find(guid); it != byGuid_.end())
    return fail(no, fmt::format("ibsim would give \"{}\" GUID {}, already the GUID of {}", h->name,
                                Guid{guid}, name(records_[it->second])));
  defaults_.nextGuid[t] += h->type == NodeType::Switch ? 1 : std::uint64_t{h->numPorts} + 1;

  Record r;
  r.header = *h;
  r.line = no;
  r.guid = Guid{guid};
  r.systemImageGuid = Guid{defaults_.systemImageGuid.value_or(guid)};
  r.vendorId = defaults_.vendorId.value_or(0);
  r.deviceId = defaults_.deviceId;
  defaults_.systemImageGuid.reset();
  defaults_.vendorId.reset();
  PortSpec blank;
  blank.widthEnabled = defaults_.width;
  blank.speedEnabled = defaults_.speed;
  blank.extSpeedEnabled = defaults_.extSpeed;
  r.ports.assign(std::size_t{h->numPorts} + 1, blank);
  byName_.emplace(h->name, records_.size());
  byGuid_.emplace(guid, records_.size());
  records_.push_back(std::move(r));
  inRecord_ = true;
  return {};
}

Result<void> NetParser::portLine(std::string_view line, std::size_t no) {
  Record& r = records_.back();
  auto p = parseNetPortLine(line, r.header.type);
  if (!p) return fail(no, p.error());
  if (p->port > r.header.numPorts)
    return fail(no, fmt::format("port [{}] is beyond the {} ports of {}", p->port,
                                r.header.numPorts, name(r)));
  PortSpec& spec = r.ports[p->port];
  if (spec.cabled)
    return fail(no, fmt::format("port [{}] of {} is listed twice (also at line {})", p->port,
                                name(r), spec.line));
  spec.cabled = true;
  spec.remote = p->remote;
  spec.remotePort = p->remotePort;
  spec.line = no;
  if (p->widthEnabled) spec.widthEnabled = *p->widthEnabled;
  if (p->speedEnabled) spec.speedEnabled = *p->speedEnabled;
  if (p->extSpeedEnabled) spec.extSpeedEnabled = *p->extSpeedEnabled;
  if (p->lid) spec.lid = *p->lid;
  if (p->lmc) spec.lmc = *p->lmc;
  ++r.portLines;
  return {};
}

Result<void> NetParser::link(Fabric& fabric, std::size_t ri, std::uint8_t p) const {
  const Record& r = records_[ri];
  const PortSpec& spec = r.ports[p];
  const auto it = byName_.find(spec.remote);
  if (it == byName_.end())
    return fail(spec.line, fmt::format("port [{}] of {} leads to \"{}\", but no node of that name "
                                       "is defined in this file",
                                       p, name(r), spec.remote));
  const Record& o = records_[it->second];
  if (spec.remotePort > o.header.numPorts)
    return fail(spec.line, fmt::format("port [{}] of {} leads to port [{}] of {}, which has {} "
                                       "ports",
                                       p, name(r), spec.remotePort, name(o), o.header.numPorts));
  const PortSpec& back = o.ports[spec.remotePort];
  if (!back.cabled)
    return fail(spec.line, fmt::format("port [{}] of {} leads to port [{}] of {}, which does not "
                                       "list that port; ibsim needs a cable written at both ends",
                                       p, name(r), spec.remotePort, name(o)));
  if (back.remote != r.header.name || back.remotePort != p)
    return fail(spec.line, fmt::format("port [{}] of {} leads to port [{}] of {}, but line {} says "
                                       "that port leads to \"{}\"[{}]",
                                       p, name(r), spec.remotePort, name(o), back.line, back.remote,
                                       back.remotePort));
  const std::uint8_t width = commonWidth(spec.widthEnabled, back.widthEnabled);
  const std::uint8_t speed = commonSpeed(spec.speedEnabled, back.speedEnabled);
  if (!width || !speed)
    return fail(spec.line, fmt::format("the two ends of this cable share no link {} (this end "
                                       "enables {}, line {} enables {}); ibsim refuses it",
                                       width ? "speed" : "width",
                                       width ? spec.speedEnabled : spec.widthEnabled, back.line,
                                       width ? back.speedEnabled : back.widthEnabled));
  const PortRef here{static_cast<NodeId>(ri), p};
  const PortRef there{static_cast<NodeId>(it->second), spec.remotePort};
  if (auto c = fabric.connect(here, there); !c) return fail(spec.line, c.error().message);
  const std::uint8_t ext = commonExtSpeed(spec.extSpeedEnabled, back.extSpeedEnabled);
  for (const PortRef end : {here, there}) {
    Port& port = fabric.port(end);
    port.link.widthActive = width;
    port.link.speedActive = speed;
    port.link.extSpeedActive = ext;
    port.state = PortState::Active;
    port.physState = 5;  // LinkUp
  }
  return {};
}

Result<Fabric> NetParser::build() const {
  Fabric fabric;
  for (const Record& r : records_) {
    const NetHeader& h = r.header;
    Node node;
    if (h.type == NodeType::Switch) {
      node = Node::makeSwitch(r.guid, h.numPorts, std::string(h.description));
      node.ports[0].lid = Lid{h.lid};
      node.ports[0].lmc = h.lmc;
      node.ports[0].physState = 5;
      node.switchData->enhancedPort0 = h.enhancedPort0;
    } else {
      std::vector<Guid> portGuids;
      for (std::uint64_t i = 1; i <= h.numPorts; ++i) portGuids.push_back(Guid{r.guid.value + i});
      node = Node::makeCa(r.guid, portGuids, std::string(h.description));
      node.type = h.type;
    }
    node.systemImageGuid = r.systemImageGuid;
    node.vendorId = r.vendorId;
    node.deviceId = r.deviceId;
    for (std::size_t i = 0; i < node.ports.size(); ++i) {
      const PortSpec& spec = r.ports[i];
      Port& port = node.ports[i];
      // What ibsim reports before a link trains: enabled as written, active 4x SDR.
      port.link = LinkAttrs{.widthSupported = kWidthAll,
                            .widthEnabled = spec.widthEnabled,
                            .widthActive = kWidth4x,
                            .speedSupported = kSpeedAll,
                            .speedEnabled = spec.speedEnabled,
                            .speedActive = kSpeedSdr,
                            .extSpeedActive = 0};
      if (i == 0) continue;
      port.physState = 2;  // Polling, until a cable links it
      if (h.type == NodeType::Ca) {
        port.lid = Lid{spec.lid};
        port.lmc = spec.lmc;
      }
    }
    if (auto id = fabric.addNode(std::move(node)); !id) return fail(r.line, id.error().message);
  }
  for (std::size_t ri = 0; ri < records_.size(); ++ri) {
    for (std::size_t p = 1; p < records_[ri].ports.size(); ++p) {
      const auto port = static_cast<std::uint8_t>(p);
      if (!records_[ri].ports[p].cabled || fabric.port({static_cast<NodeId>(ri), port}).connected())
        continue;
      if (auto ok = link(fabric, ri, port); !ok) return std::unexpected(ok.error());
    }
  }
  return fabric;
}

}  // namespace

Result<Fabric> parseNetFile(std::string_view text, std::string_view fileName) {
  NetParser parser{fileName};
  if (auto ok = parser.parse(text); !ok) return std::unexpected(ok.error());
  return parser.build();
}

}  // namespace ibsm
