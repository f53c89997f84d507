#include "routing/topology/NetFileSyntax.h"

#include <fmt/format.h>

#include <array>
#include <cctype>

#include "routing/topology/LinkCodes.h"
#include "routing/topology/TextScan.h"

namespace ibsm::topology {
namespace {

using Unexpected = std::unexpected<std::string>;

bool isAlpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool isSpace(char c) {
  return c == ' ' || c == '\n' || isBlank(c);
}

NetLineResult<void> checkName(std::string_view name, std::string_view what) {
  if (name.empty()) return Unexpected(fmt::format("empty {}", what));
  if (name.find_first_of("#@") != std::string_view::npos)
    return Unexpected(fmt::format(
        "{} \"{}\" contains '#' or '@', which ibsim reserves for modules and aliases", what, name));
  if (name.size() > kMaxNetName)
    return Unexpected(fmt::format("{} \"{}\" is longer than the {} characters ibsim keeps", what,
                                  name, kMaxNetName));
  return {};
}

// ibsim's parse_node_desc: after '#', a quoted description or text up to the
// first of " enhanced port ", " base port ", " lid ", " lmc " (tried in that
// order); `rest` is what follows, where the switch LID and port 0 kind are.
struct Described {
  std::string_view description;
  std::optional<std::string_view> rest;
};

Described parseDescription(std::string_view afterHash) {
  std::string_view s = afterHash;
  while (!s.empty() && isSpace(s.front())) s.remove_prefix(1);
  if (s.starts_with('"')) {
    s.remove_prefix(1);
    const std::size_t close = s.find('"');
    if (close == std::string_view::npos) return {s, std::nullopt};
    return {s.substr(0, close), s.substr(close + 1)};
  }
  for (const std::string_view cut : {" enhanced port ", " base port ", " lid ", " lmc "}) {
    if (const std::size_t at = s.find(cut); at != std::string_view::npos)
      return {s.substr(0, at), s.substr(at + 1)};
  }
  return {s, std::nullopt};
}

// The number after the first `key` in s, read as ibsim's strtoul(.., 0) does.
std::optional<std::uint64_t> valueAfter(std::string_view s, std::string_view key) {
  const std::size_t at = s.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  return cNumber(s.substr(at + key.size()));
}

// ibsim's parse_port_link_width_and_speed on "lid <n> <w>x<speed>": the
// ibnetdiscover annotation sets the enabled width and speeds of the port.
void applyRateAnnotation(std::string_view text, NetPortLine& out) {
  Cursor c{text};
  if (!c.consume("lid")) return;
  c.skipSpace();
  c.consume('-');
  if (!c.decimal()) return;
  c.skipSpace();
  const auto width = c.decimal();
  if (!width || !c.consume('x')) return;
  c.skipSpace();
  std::string_view speed = c.word();
  if (speed.empty()) return;
  if (speed.size() > 9) speed = speed.substr(0, 9);
  switch (*width) {
    case 12:
      out.widthEnabled = kWidth1x | kWidth4x | kWidth12x;
      break;
    case 8:
      out.widthEnabled = kWidth8x;
      break;
    case 4:
      out.widthEnabled = kWidth1x | kWidth4x;
      break;
    case 1:
      out.widthEnabled = kWidth1x;
      break;
    case 2:
      out.widthEnabled = kWidth2x;
      break;
    default:
      break;
  }
  struct Rate {
    std::string_view name;
    std::uint8_t speed;
    std::optional<std::uint8_t> ext;
  };
  // ibsim matches a speed that is a prefix of one of these, in this order.
  static constexpr std::array<Rate, 8> kRates{{
      {"SDR", kSpeedSdr, std::nullopt},
      {"DDR", kSpeedSdr | kSpeedDdr, std::nullopt},
      {"QDR", kSpeedAll, std::nullopt},
      {"FDR", kSpeedAll, kExtFdr},
      {"EDR", kSpeedAll, kExtFdr | kExtEdr},
      {"HDR", kSpeedAll, kExtFdr | kExtEdr | kExtHdr},
      {"NDR", kSpeedAll, kExtFdr | kExtEdr | kExtHdr | kExtNdr},
      {"FDR10", kSpeedAll, std::nullopt},
  }};
  for (const Rate& r : kRates) {
    if (r.name.starts_with(speed)) {
      out.speedEnabled = r.speed;
      if (r.ext) out.extSpeedEnabled = *r.ext;
      return;
    }
  }
}

// ibsim's parse_port_opt, run on every '=' after the remote name, comments
// included: the option is the nearest letter before the '='.
NetLineResult<void> applyOptions(std::string_view line, std::size_t from, NetPortLine& out) {
  for (std::size_t eq = line.find('=', from + 1); eq != std::string_view::npos;
       eq = line.find('=', eq + 1)) {
    std::size_t k = eq;
    while (k > 0 && !isAlpha(line[k])) --k;
    const std::uint64_t v = cNumber(line.substr(eq + 1));
    switch (line[k]) {
      case 'w':
        if (v < 1 || v > kWidthAll)
          return Unexpected(
              fmt::format("bad link width w={}: expected an enabled-width mask 1-31 "
                          "(1=1x 2=4x 4=8x 8=12x 16=2x)",
                          v));
        out.widthEnabled = static_cast<std::uint8_t>(v);
        break;
      case 's':
        if (v > kSpeedAll)
          return Unexpected(fmt::format(
              "bad link speed s={}: expected an enabled-speed mask 1-7 (1=SDR 2=DDR 4=QDR)", v));
        out.speedEnabled = static_cast<std::uint8_t>(v == 0 ? kSpeedQdr : v);
        break;
      case 'e':
        if (v > 15)
          return Unexpected(fmt::format(
              "bad extended speed e={}: expected a mask 0-15 (1=FDR 2=EDR 4=HDR 8=NDR)", v));
        out.extSpeedEnabled = static_cast<std::uint8_t>(v);
        break;
      default:
        break;
    }
  }
  return {};
}

}  // namespace

std::uint64_t cNumber(std::string_view s) {
  while (!s.empty() && isSpace(s.front())) s.remove_prefix(1);
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
      std::isxdigit(static_cast<unsigned char>(s[2]))) {
    base = 16;
    s.remove_prefix(2);
  } else if (s.starts_with('0')) {
    base = 8;
  }
  Cursor c{s};
  return c.number(base).value_or(0);
}

bool isNetHeader(std::string_view line) {
  return line.starts_with("Switch") || line.starts_with("Hca") || line.starts_with("Ca") ||
         line.starts_with("Rt");
}

NetLineResult<NetHeader> parseNetHeader(std::string_view line) {
  Cursor c{line};
  const auto word = c.letters();
  NetHeader h;
  if (word == "Switch") {
    h.type = NodeType::Switch;
  } else if (word == "Hca" || word == "Ca") {
    h.type = NodeType::Ca;
  } else if (word == "Rt" || word == "Rtr") {
    h.type = NodeType::Router;
  } else {
    return Unexpected(
        fmt::format("unknown node type '{}' (expected Switch, Hca, Ca, Rt or Rtr)", word));
  }
  if (!c.skipSpace()) return Unexpected(fmt::format("expected a blank after '{}'", word));
  const auto count = c.decimal();
  if (!count || *count == 0 || *count > 255)
    return Unexpected(fmt::format("expected a port count from 1 to 255 after '{}'", word));
  // ibsim reads the count from a fixed offset (6 for Switch, 3 otherwise) with
  // strtoul(.., 0), so "010" is 8 to it.
  std::string_view fromOffset =
      line.substr(std::min<std::size_t>(line.size(), h.type == NodeType::Switch ? 6 : 3));
  while (!fromOffset.empty() && !isDigit(fromOffset.front())) fromOffset.remove_prefix(1);
  if (const auto ibsimCount = cNumber(fromOffset); ibsimCount != *count)
    return Unexpected(
        fmt::format("ibsim reads the port count of this '{}' header as {}, not {} "
                    "(write it in decimal without leading zeros)",
                    word, ibsimCount, *count));
  h.numPorts = static_cast<std::uint8_t>(*count);
  if (!c.skipSpace()) return Unexpected("expected a blank and the node name in quotes");
  const auto name = c.quoted();
  if (!name) return Unexpected("expected the node name in quotes after the port count");
  if (auto ok = checkName(*name, "node name"); !ok) return Unexpected(ok.error());
  h.name = *name;
  h.description = *name;
  c.skipSpace();
  if (c.atEnd()) return h;
  if (!c.consume('#'))
    return Unexpected(
        fmt::format("unexpected '{}' after the node name (a description goes after "
                    "'#')",
                    c.rest()));
  const Described d = parseDescription(c.rest());
  if (!d.description.empty()) h.description = d.description;
  if (h.description.size() > kMaxNetName)
    return Unexpected(fmt::format("description \"{}\" is longer than the {} characters ibsim keeps",
                                  h.description, kMaxNetName));
  if (h.type != NodeType::Switch || !d.rest) return h;
  h.enhancedPort0 = d.rest->find("enhanced port 0") != std::string_view::npos;
  if (const auto lid = valueAfter(*d.rest, "lid ")) {
    if (*lid > 0xFFFF) return Unexpected(fmt::format("LID {} does not fit in 16 bits", *lid));
    h.lid = static_cast<std::uint16_t>(*lid);
  }
  if (const auto lmc = valueAfter(*d.rest, "lmc ")) {
    if (*lmc > 7) return Unexpected(fmt::format("LMC {} is not between 0 and 7", *lmc));
    h.lmc = static_cast<std::uint8_t>(*lmc);
  }
  return h;
}

NetLineResult<NetPortLine> parseNetPortLine(std::string_view line, NodeType owner) {
  Cursor c{line};
  NetPortLine out;
  c.consume('[');
  const auto port = c.decimal();
  if (!port || !c.consume(']')) return Unexpected("expected a port number as '[n]'");
  if (*port == 0) return Unexpected("port [0] cannot be cabled (ibsim rejects it)");
  if (*port > 255) return Unexpected(fmt::format("port [{}] is beyond 255", *port));
  out.port = static_cast<std::uint8_t>(*port);
  c.skipSpace();
  if (c.consume('(')) {  // an ibnetdiscover port GUID; ibsim gives its own
    if (!c.hex() || !c.consume(')')) return Unexpected("expected a hex port GUID in '(...)'");
    c.skipSpace();
  }
  const auto remote = c.quoted();
  if (!remote) return Unexpected("expected the remote node name in quotes after the port number");
  if (remote->find('@') != std::string_view::npos)
    return Unexpected(fmt::format("\"{}\": ibsim aliases ('@') are not supported", *remote));
  if (auto ok = checkName(*remote, "remote node name"); !ok) return Unexpected(ok.error());
  out.remote = *remote;
  const std::size_t afterName = c.position();
  if (c.consume('[')) {
    const auto rport = c.decimal();
    if (!rport || !c.consume(']') || *rport == 0 || *rport > 255)
      return Unexpected("expected the remote port as '[n]' with n from 1 to 255");
    out.remotePort = static_cast<std::uint8_t>(*rport);
  } else if (c.skipSpace(), c.peek() == '[') {
    return Unexpected(
        "ibsim reads the remote port only when '[n]' follows the closing quote directly; "
        "here it would use port 1");
  }
  // What may stand before a '#': w=, s=, e= and an ibnetdiscover "(port GUID)".
  for (c.skipSpace(); !c.atEnd() && c.peek() != '#'; c.skipSpace()) {
    if (c.consume('(')) {
      if (!c.hex() || !c.consume(')')) return Unexpected("expected a hex port GUID in '(...)'");
      continue;
    }
    const auto token = c.word();
    if (token.size() < 3 || token[1] != '=' ||
        std::string_view("wse").find(token[0]) == std::string_view::npos)
      return Unexpected(
          fmt::format("unexpected '{}' (ibsim port options are w=, s= and e=)", token));
  }
  if (auto opts = applyOptions(line, afterName, out); !opts) return Unexpected(opts.error());

  // ibsim's parse_port_connection_data, for switches and CAs only.
  if (owner == NodeType::Router) return out;
  const std::string_view rest = line.substr(afterName);
  const std::size_t lastQuote = rest.rfind('"');
  const std::size_t lidAt = rest.find("lid", lastQuote == std::string_view::npos ? 0 : lastQuote);
  if (owner == NodeType::Ca) {
    if (const auto lid = valueAfter(rest, "lid ")) {
      if (*lid > 0xFFFF) return Unexpected(fmt::format("LID {} does not fit in 16 bits", *lid));
      out.lid = static_cast<std::uint16_t>(*lid);
    }
    if (const auto lmc = valueAfter(rest, "lmc ")) {
      if (*lmc > 7) return Unexpected(fmt::format("LMC {} is not between 0 and 7", *lmc));
      out.lmc = static_cast<std::uint8_t>(*lmc);
    }
  }
  if (lidAt != std::string_view::npos) applyRateAnnotation(rest.substr(lidAt), out);
  return out;
}

}  // namespace ibsm::topology
