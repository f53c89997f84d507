#include "routing/topology/IbnetdiscoverSyntax.h"

#include <fmt/format.h>

#include "routing/topology/TextScan.h"

namespace ibsm::topology {
namespace {

using Unexpected = std::unexpected<std::string>;

std::string_view typeWord(NodeType t) {
  switch (t) {
    case NodeType::Switch:
      return "Switch";
    case NodeType::Ca:
      return "Ca";
    case NodeType::Router:
      return "Rt";
  }
  return "?";
}

char nameLetter(NodeType t) {
  switch (t) {
    case NodeType::Switch:
      return 'S';
    case NodeType::Ca:
      return 'H';
    case NodeType::Router:
      return 'R';
  }
  return '?';
}

struct NodeName {
  NodeType type;
  Guid guid;
};

// "S-0000000000200001" as ibnetdiscover's node_name() prints it.
LineResult<NodeName> parseNodeName(Cursor& c) {
  const auto text = c.quoted();
  if (!text) return Unexpected("expected a quoted node name such as \"S-0000000000200001\"");
  Cursor n{*text};
  const char letter = n.peek();
  NodeName out{NodeType::Ca, Guid{}};
  if (letter == 'S') {
    out.type = NodeType::Switch;
  } else if (letter == 'H') {
    out.type = NodeType::Ca;
  } else if (letter == 'R') {
    out.type = NodeType::Router;
  } else if (letter == '?') {
    return Unexpected(fmt::format("unknown node type in \"{}\" (expected S-, H- or R-)", *text));
  } else {
    return Unexpected(
        fmt::format("expected a node name S-<guid>, H-<guid> or R-<guid>, got \"{}\"", *text));
  }
  n.consume(letter);
  if (!n.consume('-'))
    return Unexpected(fmt::format("expected '-' after {} in \"{}\"", letter, *text));
  const auto guid = n.hex();
  if (!guid || !n.atEnd())
    return Unexpected(fmt::format("expected up to 16 hex digits of GUID in \"{}\"", *text));
  if (*guid == 0)
    return Unexpected(fmt::format("node GUID 0 in \"{}\" is not a valid GUID", *text));
  out.guid = Guid{*guid};
  return out;
}

// "[ext 3]" of ibnetdiscover -g: a front-panel label, not a port number we need.
bool skipExtPort(Cursor& c) {
  const std::size_t start = c.position();
  if (!c.consume("[ext")) return true;
  c.skipSpace();
  if (c.decimal() && c.consume(']')) return true;
  c.seek(start);
  return false;
}

std::optional<std::uint8_t> portNumber(Cursor& c) {
  if (!c.consume('[')) return std::nullopt;
  const auto p = c.decimal();
  if (!p || *p == 0 || *p > 255 || !c.consume(']')) return std::nullopt;
  return static_cast<std::uint8_t>(*p);
}

// "(100004)": a port GUID in hex without 0x.
std::optional<Guid> parenGuid(Cursor& c) {
  const std::size_t start = c.position();
  if (!c.consume('(')) return std::nullopt;
  const auto g = c.hex();
  if (!g || *g == 0 || !c.consume(')')) {
    c.seek(start);
    return std::nullopt;
  }
  return Guid{*g};
}

// "(2c90300000002)" or ibdiagnet's "(1)": the hex digits inside.
std::optional<std::string_view> parenDigits(Cursor& c) {
  const std::size_t start = c.position();
  const std::string_view from = c.rest();
  if (!c.consume('(')) return std::nullopt;
  if (!c.hex() || !c.consume(')')) {
    c.seek(start);
    return std::nullopt;
  }
  return from.substr(1, c.position() - start - 2);
}

// What follows 'lid ' when it is not a number, for messages.
std::string found(Cursor& c) {
  const auto token = Cursor{c.rest()}.word();
  return token.empty() ? std::string("nothing") : fmt::format("'{}'", token);
}

// `lid 3 lmc 0`
LineResult<void> lidAndLmc(Cursor& c, std::uint16_t& lid, std::uint8_t& lmc) {
  if (!c.consume("lid") || !c.skipSpace()) return Unexpected("expected 'lid <n> lmc <0-7>'");
  const auto l = parseLid(c);
  if (!l) return Unexpected(l.error());
  if (!c.skipSpace() || !c.consume("lmc") || !c.skipSpace())
    return Unexpected("expected 'lmc <0-7>' after the LID");
  const std::size_t at = c.position();
  const auto m = c.decimal();
  if (!m || *m > 7 || (!c.atEnd() && !isBlank(c.peek()))) {
    c.seek(at);
    return Unexpected(fmt::format("expected an LMC from 0 to 7 after 'lmc', got {}", found(c)));
  }
  lid = *l;
  lmc = static_cast<std::uint8_t>(*m);
  return {};
}

// `"remote description" lid 7 4xQDR [s=4 w=2 v=4] [slot 3 | (scp)]`
LineResult<void> remoteTail(std::string_view tail, IbndPortLine& out) {
  static constexpr std::string_view kExpected =
      "expected '\"<remote description>\" lid <n> <width><speed>' after '#'";
  if (!tail.starts_with('"')) return Unexpected(std::string(kExpected));
  const std::size_t close = tail.rfind("\" lid ");
  if (close == std::string_view::npos || close == 0) return Unexpected(std::string(kExpected));
  Cursor c{tail.substr(close + 6)};
  c.skipSpace();
  const auto rlid = parseLid(c);
  if (!rlid) return Unexpected(fmt::format("the remote port: {}", rlid.error()));
  out.remoteLid = *rlid;
  c.skipSpace();
  if (c.atEnd()) return {};  // captures older than OFED 1.2 print no rate
  const auto token = c.word();
  const auto rate = parseLinkRate(token);
  if (!rate)
    return Unexpected(
        fmt::format("expected a link width and speed such as 4xQDR or 1xSDR, got '{}'", token));
  out.rate = *rate;
  out.rateText = token;
  while (c.skipSpace(), !c.atEnd()) {
    const auto extra = c.word();
    Cursor e{extra};
    if (extra.starts_with("v=")) {
      e.consume("v=");
      const auto v = e.decimal();
      if (!v || *v > 15 || !e.atEnd())
        return Unexpected(fmt::format("expected a VL capability after 'v=', got '{}'", extra));
      out.vlCap = static_cast<std::uint8_t>(*v);
    } else if (extra.starts_with("s=") || extra.starts_with("w=")) {
      e.consume(extra.substr(0, 2));
      if (!e.decimal() || !e.atEnd())
        return Unexpected(fmt::format("expected a number in '{}'", extra));
    } else if (extra == "slot") {
      c.skipSpace();
      if (!c.decimal()) return Unexpected("expected a slot number after 'slot'");
    } else if (extra != "(scp)") {
      return Unexpected(fmt::format("unexpected '{}' after the link rate", extra));
    }
  }
  return {};
}

}  // namespace

LineResult<std::uint16_t> parseLid(Cursor& c) {
  const std::size_t at = c.position();
  const auto lid = c.decimal();
  if (!lid || (!c.atEnd() && !isBlank(c.peek()))) {
    c.seek(at);
    return Unexpected(fmt::format("expected a LID from 0 to {}, got {}", kMaxUnicastLid, found(c)));
  }
  if (*lid > kMaxUnicastLid)
    return Unexpected(
        fmt::format("LID {} is out of range: expected 0 to {} (from {} up, LIDs are "
                    "multicast)",
                    *lid, kMaxUnicastLid, kMaxUnicastLid + 1));
  return static_cast<std::uint16_t>(*lid);
}

LineResult<IbndHeader> parseIbndHeader(std::string_view line) {
  Cursor c{line};
  const auto word = c.letters();
  IbndHeader h;
  if (word == "Switch") {
    h.type = NodeType::Switch;
  } else if (word == "Ca") {
    h.type = NodeType::Ca;
  } else if (word == "Rt") {
    h.type = NodeType::Router;
  } else {
    return Unexpected(fmt::format("unknown node type '{}' (expected Switch, Ca or Rt)", word));
  }
  c.skipSpace();
  const auto ports = c.decimal();
  if (!ports || *ports == 0 || *ports > 255)
    return Unexpected(fmt::format("expected a port count from 1 to 255 after '{}'", word));
  h.numPorts = static_cast<std::uint8_t>(*ports);
  c.skipSpace();
  const auto name = parseNodeName(c);
  if (!name) return Unexpected(name.error());
  if (name->type != h.type)
    return Unexpected(
        fmt::format("a {} header must name its node {}-<guid>", word, nameLetter(h.type)));
  h.guid = name->guid;
  c.skipSpace();
  if (!c.consume('#') || (c.skipSpace(), c.peek() != '"'))
    return Unexpected("expected '# \"<description>\"' after the node name");
  const std::string_view rest = c.rest();

  if (h.type != NodeType::Switch) {
    std::string_view body = trimRight(rest);
    if (body.ends_with("(scp)")) body = trimRight(body.substr(0, body.size() - 5));
    if (body.size() < 2 || !body.ends_with('"'))
      return Unexpected("expected the description in quotes after '#'");
    h.description = body.substr(1, body.size() - 2);
    return h;
  }

  static constexpr std::string_view kPort0 = "port 0 lid ";
  const std::size_t at = rest.rfind(kPort0);
  if (at == std::string_view::npos)
    return Unexpected("expected '\"<description>\" base port 0 lid <n> lmc <m>' after '#'");
  std::string_view head = trimRight(rest.substr(0, at));
  if (head.ends_with("enhanced")) {
    h.enhancedPort0 = true;
    head.remove_suffix(8);
  } else if (head.ends_with("base")) {
    head.remove_suffix(4);
  }
  head = trimRight(head);
  if (head.size() < 2 || !head.ends_with('"'))
    return Unexpected("expected the description in quotes before 'base port 0'");
  h.description = head.substr(1, head.size() - 2);
  Cursor t{rest.substr(at + std::string_view("port 0 ").size())};
  if (auto lid = lidAndLmc(t, h.lid, h.lmc); !lid)
    return Unexpected(fmt::format("switch port 0: {}", lid.error()));
  if (t.skipSpace(), !t.atEnd())
    return Unexpected("expected 'port 0 lid <n> lmc <0-7>' at the end of a switch header");
  return h;
}

LineResult<IbndPortLine> parseIbndPortLine(std::string_view line, NodeType owner) {
  Cursor c{line};
  IbndPortLine out;
  const auto port = portNumber(c);
  if (!port) return Unexpected("expected a port number from 1 to 255 as '[n]'");
  out.port = *port;
  if (!skipExtPort(c)) return Unexpected("expected '[ext <n>]' after the port number");
  // Switch port lines carry no '(...)' in ibnetdiscover's output; whether one
  // may stand there (ibdiagnet's port number) is the reader's call.
  const auto own = parenDigits(c);
  if (!own && owner != NodeType::Switch)
    return Unexpected(fmt::format("expected the port GUID as '[{}](<hex>)' on a {} port line",
                                  out.port, typeWord(owner)));
  if (own) out.portId = *own;
  if (!c.skipSpace()) return Unexpected("expected whitespace and the remote node name");
  const auto remote = parseNodeName(c);
  if (!remote) return Unexpected(remote.error());
  out.remoteType = remote->type;
  out.remoteGuid = remote->guid;
  const auto rport = portNumber(c);
  if (!rport) return Unexpected("expected the remote port as '[n]' right after the remote name");
  out.remotePort = *rport;
  if (!skipExtPort(c)) return Unexpected("expected '[ext <n>]' after the remote port");
  c.skipSpace();
  if (const auto g = parenGuid(c)) out.remotePortGuid = *g;
  c.skipSpace();
  if (!c.consume('#')) return Unexpected("expected '#' and the remote description");
  c.skipSpace();
  if (owner != NodeType::Switch) {
    if (auto lid = lidAndLmc(c, out.lid, out.lmc); !lid)
      return Unexpected(fmt::format("this port: {}", lid.error()));
    c.skipSpace();
  }
  if (auto tail = remoteTail(c.rest(), out); !tail) return Unexpected(tail.error());
  return out;
}

}  // namespace ibsm::topology
