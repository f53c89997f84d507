// Reads the `ibnetdiscover -p` ports report into a Fabric. The report names
// ports, not nodes (see Topology.h for what that leaves unknown): a switch is
// the set of lines with its port GUID, each CA or router port a node of its
// own named by its port GUID. Every cable appears at both ends, as in the
// topology output, and the ends must agree on what they connect; different
// rates at the two ends are kept as the lower, with a warning.
#include <fmt/format.h>
#include <ibsm/Topology.h>

#include <unordered_map>
#include <vector>

#include "routing/topology/CaptureNoise.h"
#include "routing/topology/PortsReportSyntax.h"
#include "routing/topology/TextScan.h"

namespace ibsm {
namespace {

using topology::PortsEnd;
using topology::PortsLine;

std::string_view typeName(NodeType t) {
  return t == NodeType::Switch ? "switch" : t == NodeType::Ca ? "CA" : "router";
}

struct Record {
  PortsLine line;
  std::size_t no{0};
};

// A switch: the records that carry its port GUID.
struct SwitchLines {
  std::size_t firstRecord{0};
  std::uint8_t numPorts{0};
  std::vector<int> byPort = std::vector<int>(256, -1);  // port -> record, -1 if not listed
};

// Where a node of the fabric comes from: a switch or one CA/router record.
struct NodeSource {
  bool isSwitch{false};
  std::size_t index{0};  // into switches_ or records_
};

class PortsReader {
 public:
  explicit PortsReader(std::string_view file) : file_(file), skipped_(file) {}

  Result<void> scan(std::string_view text);
  Result<TopologyRead> build();

 private:
  std::unexpected<Error> fail(std::size_t line, std::string_view what) const {
    return std::unexpected(Error::at(file_, line, what));
  }
  Result<void> line(std::string_view text, std::size_t no);
  Result<void> add(const PortsLine& p, std::size_t no);
  std::string name(const PortsEnd& e, std::string_view description) const {
    return fmt::format("port [{}] of {} {} \"{}\"", e.port, typeName(e.type), e.guid, description);
  }
  // The record of the port `to` names; an error naming `from`'s line when absent.
  Result<std::size_t> recordOf(const PortsEnd& to, const Record& from) const;
  Result<void> link(Fabric& fabric, std::size_t r);
  Node node(const NodeSource& source) const;
  std::string reportWarning() const;

  std::string_view file_;
  topology::SkippedLines skipped_;
  bool seenRecord_{false};
  std::vector<Record> records_;
  std::vector<SwitchLines> switches_;
  std::unordered_map<Guid, std::size_t> switchByGuid_;  // port GUID -> switches_
  std::unordered_map<Guid, std::size_t> endByGuid_;     // CA/router port GUID -> records_
  std::vector<NodeSource> nodes_;                       // in the order of first lines
  std::vector<NodeId> nodeOfRecord_;
  std::vector<std::string> warnings_;  // cables, in file order
};

Result<void> PortsReader::add(const PortsLine& p, std::size_t no) {
  const std::size_t r = records_.size();
  records_.push_back(Record{p, no});
  const Guid g = p.self.guid;
  if (p.self.type != NodeType::Switch) {
    if (switchByGuid_.contains(g))
      return fail(no, fmt::format("port GUID {} is a switch's (line {}) and a {} port's here", g,
                                  records_[switches_[switchByGuid_.at(g)].firstRecord].no,
                                  typeName(p.self.type)));
    if (const auto [it, fresh] = endByGuid_.emplace(g, r); !fresh)
      return fail(no, fmt::format("port GUID {} is listed twice (also at line {})", g,
                                  records_[it->second].no));
    nodes_.push_back(NodeSource{false, r});
    return {};
  }
  if (endByGuid_.contains(g))
    return fail(no, fmt::format("port GUID {} is a {} port's (line {}) and a switch's here", g,
                                typeName(records_[endByGuid_.at(g)].line.self.type),
                                records_[endByGuid_.at(g)].no));
  const auto [it, fresh] = switchByGuid_.emplace(g, switches_.size());
  if (fresh) {
    switches_.push_back(SwitchLines{r});
    nodes_.push_back(NodeSource{true, it->second});
  }
  SwitchLines& sw = switches_[it->second];
  const Record& first = records_[sw.firstRecord];
  if (first.line.self.lid != p.self.lid)
    return fail(no, fmt::format("switch {} has LID {} here but LID {} at line {}", g, p.self.lid,
                                first.line.self.lid, first.no));
  if (const int earlier = sw.byPort[p.self.port]; earlier >= 0)
    return fail(no, fmt::format("port [{}] of switch {} is listed twice (also at line {})",
                                p.self.port, g, records_[static_cast<std::size_t>(earlier)].no));
  sw.byPort[p.self.port] = static_cast<int>(r);
  sw.numPorts = std::max(sw.numPorts, p.self.port);
  return {};
}

Result<void> PortsReader::line(std::string_view text, std::size_t no) {
  text = topology::trimRight(topology::trimLeft(text));
  if (text.empty()) return {};
  if (text.front() == '#') {
    skipped_.endRun();
    return {};
  }
  if (topology::startsLikePortsLine(text)) {
    seenRecord_ = true;
    skipped_.endRun();
    auto p = topology::parsePortsLine(text);
    if (!p) return fail(no, p.error());
    return add(*p, no);
  }
  if (skipped_.passOver(no, text, !seenRecord_)) return {};
  return fail(no,
              "expected a port line of 'ibnetdiscover -p' such as \"CA 8 1 0x0002c9030001a1b2 4x "
              "QDR - SW 2 12 0x0002c90300a1b2c3 ( 'host HCA-1' - 'switch' )\"");
}

Result<void> PortsReader::scan(std::string_view text) {
  topology::LineReader lines{topology::withoutByteOrderMark(text)};
  std::string_view text1;
  while (lines.next(text1))
    if (auto r = line(text1, lines.number()); !r) return r;
  if (records_.empty())
    return std::unexpected(Error{fmt::format("{}: no port lines found", file_)});
  return {};
}

Result<std::size_t> PortsReader::recordOf(const PortsEnd& to, const Record& from) const {
  const PortsLine& p = from.line;
  const auto missing = [&](std::string_view why) {
    return fail(from.no,
                fmt::format("{} leads to port [{}] of {} {}, {}", name(p.self, p.description),
                            to.port, typeName(to.type), to.guid, why));
  };
  if (to.type == NodeType::Switch) {
    const auto it = switchByGuid_.find(to.guid);
    if (it == switchByGuid_.end())
      return endByGuid_.contains(to.guid)
                 ? missing(fmt::format("but line {} lists that GUID as a {} port",
                                       records_[endByGuid_.at(to.guid)].no,
                                       typeName(records_[endByGuid_.at(to.guid)].line.self.type)))
                 : missing("which has no line in this report (is the capture cut short?)");
    const int r = switches_[it->second].byPort[to.port];
    if (r < 0) return missing("but the report lists no such port of that switch");
    return static_cast<std::size_t>(r);
  }
  const auto it = endByGuid_.find(to.guid);
  if (it == endByGuid_.end())
    return missing(switchByGuid_.contains(to.guid)
                       ? "but that GUID is a switch's in this report"
                       : "which has no line in this report (is the capture cut short?)");
  const PortsEnd& there = records_[it->second].line.self;
  if (there.type != to.type || there.port != to.port)
    return missing(fmt::format("but line {} lists that GUID as port [{}] of a {}",
                               records_[it->second].no, there.port, typeName(there.type)));
  return it->second;
}

Result<void> PortsReader::link(Fabric& fabric, std::size_t r) {
  const Record& rec = records_[r];
  const PortsLine& p = rec.line;
  if (!p.remote) return {};  // no cable at this port
  const PortsEnd& to = *p.remote;
  auto peerIndex = recordOf(to, rec);
  if (!peerIndex) return std::unexpected(peerIndex.error());
  const Record& peer = records_[*peerIndex];
  const PortsLine& q = peer.line;
  if (!q.remote || q.remote->guid != p.self.guid || q.remote->port != p.self.port ||
      q.remote->type != p.self.type)
    return fail(
        rec.no,
        fmt::format("{} leads to {}, but line {} says that port leads to {}",
                    name(p.self, p.description), name(q.self, q.description), peer.no,
                    q.remote ? name(*q.remote, q.remoteDescription) : std::string("nothing")));
  if (to.lid != q.self.lid)
    return fail(rec.no, fmt::format("{} says {} has LID {}, but line {} gives LID {}",
                                    name(p.self, p.description), name(q.self, q.description),
                                    to.lid, peer.no, q.self.lid));
  if (rec.no < peer.no && topology::ratesDisagree(p.rate, q.rate)) {
    const auto end = [&](const Record& e) {
      return topology::CableEnd{name(e.line.self, e.line.description), e.no, e.line.rate,
                                fmt::format("{}{}", e.line.width, e.line.speed)};
    };
    warnings_.push_back(topology::cableRateWarning(file_, end(rec), end(peer)));
  }
  const PortRef here{nodeOfRecord_[r], p.self.port};
  const PortRef there{nodeOfRecord_[*peerIndex], q.self.port};
  if (auto c = fabric.connect(here, there); !c) return fail(rec.no, c.error().message);
  Port& port = fabric.port(here);
  topology::setCapturedLink(port, topology::lowerLinkRate(p.rate, q.rate));
  port.state = PortState::Active;
  port.physState = 5;  // LinkUp: ibnetdiscover saw a node behind it
  return {};
}

Node PortsReader::node(const NodeSource& source) const {
  if (source.isSwitch) {
    const SwitchLines& sw = switches_[source.index];
    const PortsLine& first = records_[sw.firstRecord].line;
    Node n = Node::makeSwitch(first.self.guid, sw.numPorts, std::string(first.description));
    n.ports[0].lid = Lid{first.self.lid};
    n.ports[0].physState = 5;
    n.systemImageGuid = Guid{};
    return n;
  }
  const PortsLine& p = records_[source.index].line;
  std::vector<Guid> guids(p.self.port);
  guids[p.self.port - 1u] = p.self.guid;
  Node n = Node::makeCa(p.self.guid, guids, std::string(p.description));
  n.type = p.self.type;
  n.systemImageGuid = Guid{};
  n.ports[p.self.port].lid = Lid{p.self.lid};
  return n;
}

std::string PortsReader::reportWarning() const {
  const std::size_t ends = endByGuid_.size();
  return fmt::format(
      "{}:{}: an 'ibnetdiscover -p' ports report names ports, not nodes: each switch is read as "
      "its port GUID{}; 'ibnetdiscover' without -p prints the nodes",
      file_, records_.front().no,
      ends == 0 ? std::string()
                : fmt::format(", and each of its {} CA and router ports as a node of its own "
                              "(which ports share an HCA is not in the report)",
                              ends));
}

Result<TopologyRead> PortsReader::build() {
  TopologyRead read;
  read.warnings = skipped_.takeWarnings();
  read.warnings.push_back(reportWarning());
  nodeOfRecord_.assign(records_.size(), 0);
  for (const NodeSource& source : nodes_) {
    const std::size_t firstRecord =
        source.isSwitch ? switches_[source.index].firstRecord : source.index;
    const auto id = read.fabric.addNode(node(source));
    if (!id) return fail(records_[firstRecord].no, id.error().message);
    if (!source.isSwitch) {
      nodeOfRecord_[source.index] = *id;
      continue;
    }
    for (const int r : switches_[source.index].byPort)
      if (r >= 0) nodeOfRecord_[static_cast<std::size_t>(r)] = *id;
  }
  for (std::size_t r = 0; r < records_.size(); ++r)
    if (auto ok = link(read.fabric, r); !ok) return std::unexpected(ok.error());
  read.warnings.insert(read.warnings.end(), warnings_.begin(), warnings_.end());
  return read;
}

}  // namespace

Result<TopologyRead> parseIbnetdiscoverPorts(std::string_view text, std::string_view fileName) {
  PortsReader reader{fileName};
  if (auto ok = reader.scan(text); !ok) return std::unexpected(ok.error());
  return reader.build();
}

}  // namespace ibsm
