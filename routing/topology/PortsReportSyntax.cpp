#include "routing/topology/PortsReportSyntax.h"

#include <fmt/format.h>

#include "routing/topology/TextScan.h"

namespace ibsm::topology {
namespace {

using Unexpected = std::unexpected<std::string>;

std::optional<NodeType> typeOf(std::string_view word) {
  if (word == "SW") return NodeType::Switch;
  if (word == "CA") return NodeType::Ca;
  if (word == "RT") return NodeType::Router;
  return std::nullopt;
}

// "SW     2 12 0x0002c90300a1b2c3": type, LID, port number, port GUID.
LineResult<PortsEnd> portsEnd(Cursor& c, std::string_view which) {
  PortsEnd end;
  const auto word = c.word();
  const auto type = typeOf(word);
  if (!type)
    return Unexpected(
        fmt::format("unknown node type '{}' of {} (expected SW, CA or RT)", word, which));
  end.type = *type;
  c.skipSpace();
  const auto lid = parseLid(c);
  if (!lid) return Unexpected(fmt::format("{}: {}", which, lid.error()));
  end.lid = *lid;
  c.skipSpace();
  const std::size_t at = c.position();
  const auto port = c.decimal();
  if (!port || *port == 0 || *port > 255 || !c.skipSpace()) {
    c.seek(at);
    return Unexpected(
        fmt::format("{}: expected a port number from 1 to 255 after the LID, got '{}'", which,
                    Cursor{c.rest()}.word()));
  }
  end.port = static_cast<std::uint8_t>(*port);
  const auto guidText = Cursor{c.rest()}.word();
  const auto guid = c.rest().starts_with("0x") ? c.hex() : std::nullopt;
  if (!guid || *guid == 0 || (!c.atEnd() && !isBlank(c.peek())))
    return Unexpected(
        fmt::format("{}: expected a port GUID such as 0x0002c90300a1b2c3 after the port number, "
                    "got '{}'",
                    which, guidText));
  end.guid = Guid{*guid};
  return end;
}

// "( 'host HCA-1' - 'switch' )": this node's description, then the other's.
LineResult<void> descriptions(std::string_view rest, PortsLine& out) {
  static constexpr std::string_view kExpected =
      "expected \"( '<description>' - '<remote description>' )\" after the remote port";
  if (!rest.starts_with("( '") || !rest.ends_with("' )") || rest.size() < 6)
    return Unexpected(std::string(kExpected));
  const std::string_view inside = rest.substr(3, rest.size() - 6);
  // A description holding "' - '" itself cannot be told apart; the first one splits.
  const std::size_t dash = inside.find("' - '");
  if (dash == std::string_view::npos) return Unexpected(std::string(kExpected));
  out.description = inside.substr(0, dash);
  out.remoteDescription = inside.substr(dash + 5);
  return {};
}

}  // namespace

bool startsLikePortsLine(std::string_view line) {
  return line.size() > 2 && (typeOf(line.substr(0, 2)) || line.starts_with("??")) &&
         isBlank(line[2]);
}

bool looksLikePortsLine(std::string_view line) {
  Cursor c{line};
  return typeOf(c.word()) && c.skipSpace() && c.decimal() && c.skipSpace() && c.decimal() &&
         c.skipSpace() && c.consume("0x") && c.hex();
}

LineResult<PortsLine> parsePortsLine(std::string_view line) {
  Cursor c{trimRight(line)};
  PortsLine out;
  auto self = portsEnd(c, "this port");
  if (!self) return Unexpected(self.error());
  out.self = *self;
  c.skipSpace();
  out.width = c.word();
  c.skipSpace();
  out.speed = c.word();
  const auto rate = parseLinkRate(out.width, out.speed);
  if (!rate)
    return Unexpected(fmt::format("expected a link width and speed such as '4x QDR', got '{} {}'",
                                  out.width, out.speed));
  out.rate = *rate;
  c.skipSpace();
  if (c.peek() == '\'') {
    const std::string_view rest = c.rest();
    if (rest.size() < 2 || !rest.ends_with('\''))
      return Unexpected("expected the node description in single quotes");
    out.description = rest.substr(1, rest.size() - 2);
    return out;
  }
  if (!c.consume('-') || !c.skipSpace())
    return Unexpected(
        "expected ' - ' and the port at the other end, or the node description in single quotes");
  auto remote = portsEnd(c, "the remote port");
  if (!remote) return Unexpected(remote.error());
  out.remote = *remote;
  c.skipSpace();
  if (auto d = descriptions(c.rest(), out); !d) return Unexpected(d.error());
  return out;
}

}  // namespace ibsm::topology
