// Reads ibnetdiscover's topology output into a Fabric. Every cable appears
// twice, once in each end's section, and ibnetdiscover prints a port only
// when it discovered the node at the other end, so each section must be
// answered by its peer: a one-sided or dangling link means the file was cut
// or edited, and is reported rather than guessed at.
#include <fmt/format.h>
#include <ibsm/Topology.h>

#include <unordered_map>
#include <vector>

#include "IbnetdiscoverSyntax.h"
#include "TextScan.h"

namespace ibsm {
namespace {

using topology::Cursor;
using topology::IbndHeader;
using topology::IbndPortLine;

struct Section {
  IbndHeader header;
  std::size_t line{0};
  Guid systemImageGuid;
  std::uint32_t vendorId{0};
  std::uint16_t deviceId{0};
  Guid switchPortGuid;
  std::vector<IbndPortLine> ports;
  std::vector<std::size_t> portLine;  // line number of ports[i]
  std::vector<int> byPort;            // port number -> index into ports, -1 if not listed
};

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

std::string_view typeName(NodeType t) {
  switch (t) {
    case NodeType::Switch:
      return "switch";
    case NodeType::Ca:
      return "CA";
    case NodeType::Router:
      return "router";
  }
  return "node";
}

class IbndParser {
 public:
  explicit IbndParser(std::string_view file) : file_(file) {}

  Result<void> line(std::string_view text, std::size_t no);
  Result<Fabric> build() const;
  Result<void> finish(std::size_t lastLine) const {
    if (pending_.nodeGuid || pending_.vendorId || pending_.systemImageGuid)
      return fail(lastLine, "the file ends after GUID lines, before the node header they announce");
    return {};
  }

 private:
  std::unexpected<Error> fail(std::size_t line, std::string what) const {
    return std::unexpected(Error::at(file_, line, what));
  }
  Result<void> idLine(std::string_view text, std::size_t no);
  Result<void> header(std::string_view text, std::size_t no);
  Result<void> portLine(std::string_view text, std::size_t no);
  std::string name(const Section& s) const {
    return fmt::format("{} {} \"{}\"", typeName(s.header.type), s.header.guid,
                       s.header.description);
  }
  Result<void> link(Fabric& fabric, std::size_t i, std::size_t k) const;

  std::string_view file_;
  std::vector<Section> sections_;
  PendingIds pending_;
  bool inSection_{false};
  std::unordered_map<Guid, std::size_t> byGuid_;
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

Result<void> IbndParser::idLine(std::string_view text, std::size_t no) {
  inSection_ = false;
  Cursor c{text};
  const auto key = c.letters();
  if (!c.consume('=')) return fail(no, fmt::format("expected '=' after '{}'", key));
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

Result<void> IbndParser::header(std::string_view text, std::size_t no) {
  auto h = topology::parseIbndHeader(text);
  if (!h) return fail(no, h.error());
  if (pending_.nodeGuid && (pending_.nodeType != h->type || *pending_.nodeGuid != h->guid))
    return fail(no, fmt::format("this {} header names {} but line {} announced {} {}",
                                typeName(h->type), h->guid, pending_.guidLine,
                                typeName(pending_.nodeType), *pending_.nodeGuid));
  if (const auto [it, fresh] = byGuid_.emplace(h->guid, sections_.size()); !fresh)
    return fail(no,
                fmt::format("node GUID {} appears twice: this {} and the {} at line {}", h->guid,
                            typeName(h->type), typeName(sections_[it->second].header.type),
                            sections_[it->second].line));
  Section s;
  s.header = *h;
  s.line = no;
  s.systemImageGuid = pending_.systemImageGuid.value_or(Guid{});
  s.vendorId = pending_.vendorId.value_or(0);
  s.deviceId = pending_.deviceId.value_or(0);
  s.switchPortGuid = pending_.nodeGuid ? pending_.portGuid : h->guid;
  s.byPort.assign(std::size_t{h->numPorts} + 1, -1);
  s.ports.reserve(h->numPorts);
  s.portLine.reserve(h->numPorts);
  sections_.push_back(std::move(s));
  pending_ = {};
  inSection_ = true;
  return {};
}

Result<void> IbndParser::portLine(std::string_view text, std::size_t no) {
  if (!inSection_)
    return fail(no, "port line outside a node section (expected a Switch, Ca or Rt header first)");
  Section& s = sections_.back();
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

Result<void> IbndParser::line(std::string_view text, std::size_t no) {
  text = topology::trimRight(topology::trimLeft(text));
  // "ibwarn:" lines are libibmad's warnings, in captures taken with 2>&1.
  if (text.empty() || text.front() == '#' || text.starts_with("ibwarn:")) return {};
  if (text.front() == '[') return portLine(text, no);
  for (const std::string_view key :
       {"vendid=", "devid=", "sysimgguid=", "switchguid=", "caguid=", "rtguid="})
    if (text.starts_with(key)) return idLine(text, no);
  // The chassis grouping of ibnetdiscover -g carries nothing a Fabric holds.
  if (text.starts_with("Chassis ") || text.starts_with("Hostname:") ||
      text == "Non-Chassis Nodes") {
    inSection_ = false;
    return {};
  }
  if (topology::looksLikeNodeHeader(text)) return header(text, no);
  return fail(no,
              "expected a node header (Switch, Ca, Rt), a port line '[n] ...', a GUID line "
              "such as 'switchguid=0x...' or a '#' comment");
}

Result<void> IbndParser::link(Fabric& fabric, std::size_t i, std::size_t k) const {
  const Section& s = sections_[i];
  const IbndPortLine& pl = s.ports[k];
  const std::size_t no = s.portLine[k];
  const auto it = byGuid_.find(pl.remoteGuid);
  if (it == byGuid_.end())
    return fail(
        no, fmt::format("port [{}] of {} leads to {} {} port [{}], which has no section "
                        "in this file (ibnetdiscover prints every node it links to; is "
                        "the capture cut short?)",
                        pl.port, name(s), typeName(pl.remoteType), pl.remoteGuid, pl.remotePort));
  const Section& r = sections_[it->second];
  if (r.header.type != pl.remoteType)
    return fail(
        no, fmt::format("port [{}] names {} as a {}, but line {} describes it as a {}", pl.port,
                        pl.remoteGuid, typeName(pl.remoteType), r.line, typeName(r.header.type)));
  if (pl.remotePort > r.header.numPorts)
    return fail(no,
                fmt::format("port [{}] of {} leads to port [{}] of {}, which has {} ports "
                            "(line {})",
                            pl.port, name(s), pl.remotePort, name(r), r.header.numPorts, r.line));
  const int peerIndex = r.byPort[pl.remotePort];
  if (peerIndex < 0)
    return fail(no, fmt::format("port [{}] of {} leads to port [{}] of {}, but that node's "
                                "section (line {}) does not list port [{}]",
                                pl.port, name(s), pl.remotePort, name(r), r.line, pl.remotePort));
  const IbndPortLine& peer = r.ports[static_cast<std::size_t>(peerIndex)];
  const std::size_t peerNo = r.portLine[static_cast<std::size_t>(peerIndex)];
  if (peer.remoteGuid != s.header.guid || peer.remotePort != pl.port)
    return fail(no, fmt::format("port [{}] of {} leads to port [{}] of {}, but line {} says that "
                                "port leads to {} port [{}]",
                                pl.port, name(s), pl.remotePort, name(r), peerNo, peer.remoteGuid,
                                peer.remotePort));
  if ((pl.rate.width && peer.rate.width && pl.rate.width != peer.rate.width) ||
      (pl.rate.speedKnown && peer.rate.speedKnown &&
       (pl.rate.speed != peer.rate.speed || pl.rate.extSpeed != peer.rate.extSpeed)))
    return fail(no, fmt::format("the link from port [{}] of {} runs at {} here but at {} at its "
                                "other end (line {})",
                                pl.port, name(s), pl.rateText, peer.rateText, peerNo));
  const std::uint16_t remoteLid = r.header.type == NodeType::Switch ? r.header.lid : peer.lid;
  if (pl.remoteLid != remoteLid)
    return fail(no, fmt::format("port [{}] says {} has LID {}, but line {} gives LID {}", pl.port,
                                name(r), pl.remoteLid,
                                r.header.type == NodeType::Switch ? r.line : peerNo, remoteLid));
  const Guid remotePortGuid = r.header.type == NodeType::Switch ? r.switchPortGuid : peer.portGuid;
  if (pl.remotePortGuid && pl.remotePortGuid != remotePortGuid)
    return fail(no, fmt::format("port [{}] says port [{}] of {} has port GUID {}, but line {} "
                                "gives {}",
                                pl.port, pl.remotePort, name(r), pl.remotePortGuid, peerNo,
                                remotePortGuid));

  const PortRef here{static_cast<NodeId>(i), pl.port};
  const PortRef there{static_cast<NodeId>(it->second), pl.remotePort};
  if (auto c = fabric.connect(here, there); !c) return fail(no, c.error().message);
  Port& port = fabric.port(here);
  port.link = topology::linkAttrsFromRate(pl.rate);
  port.state = PortState::Active;
  port.physState = 5;  // LinkUp: ibnetdiscover saw a node behind it
  if (pl.vlCap) port.vlCap = *pl.vlCap;
  if (s.header.type != NodeType::Switch) {
    port.lid = Lid{pl.lid};
    port.lmc = pl.lmc;
  }
  return {};
}

Result<Fabric> IbndParser::build() const {
  if (sections_.empty())
    return std::unexpected(Error{
        fmt::format("{}: no node sections found (expected Switch, Ca or Rt headers)", file_)});
  Fabric fabric;
  for (const Section& s : sections_) {
    const IbndHeader& h = s.header;
    Node node;
    if (h.type == NodeType::Switch) {
      node = Node::makeSwitch(h.guid, h.numPorts, std::string(h.description));
      for (Port& p : node.ports) p.guid = s.switchPortGuid;
      node.ports[0].lid = Lid{h.lid};
      node.ports[0].lmc = h.lmc;
      node.ports[0].physState = 5;
      node.switchData->enhancedPort0 = h.enhancedPort0;
    } else {
      std::vector<Guid> portGuids(h.numPorts);
      for (std::size_t k = 0; k < s.ports.size(); ++k) {
        const IbndPortLine& p = s.ports[k];
        for (std::size_t j = 0; j < k; ++j)
          if (s.ports[j].portGuid == p.portGuid)
            return fail(
                s.portLine[k],
                fmt::format("port GUID {} of {} is also the GUID of its port [{}] (line {})",
                            p.portGuid, name(s), s.ports[j].port, s.portLine[j]));
        portGuids[p.port - 1u] = p.portGuid;
      }
      node = Node::makeCa(h.guid, portGuids, std::string(h.description));
      node.type = h.type;
    }
    node.systemImageGuid = s.systemImageGuid;
    node.vendorId = s.vendorId;
    node.deviceId = s.deviceId;
    if (auto id = fabric.addNode(std::move(node)); !id) return fail(s.line, id.error().message);
  }
  for (std::size_t i = 0; i < sections_.size(); ++i)
    for (std::size_t k = 0; k < sections_[i].ports.size(); ++k)
      if (auto r = link(fabric, i, k); !r) return std::unexpected(r.error());
  return fabric;
}

}  // namespace

Result<Fabric> parseIbnetdiscover(std::string_view text, std::string_view fileName) {
  IbndParser parser{fileName};
  topology::LineReader lines{text};
  std::string_view line;
  while (lines.next(line))
    if (auto r = parser.line(line, lines.number()); !r) return std::unexpected(r.error());
  if (auto r = parser.finish(lines.number()); !r) return std::unexpected(r.error());
  return parser.build();
}

}  // namespace ibsm
