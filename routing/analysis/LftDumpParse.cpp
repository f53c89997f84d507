// parseLftDump: opensm-lfts.dump and dump_fts / ibroute output (see Dumps.h).
#include <fmt/format.h>
#include <ibsm/Dumps.h>

#include <charconv>
#include <optional>

#include "routing/topology/TextScan.h"

namespace ibsm {
namespace {

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t\r");
  return s.substr(first, last - first + 1);
}

// Reads an unsigned number at the front of s (hex after "0x" when base is 16)
// and drops it from s.
template <typename T>
std::optional<T> takeNumber(std::string_view& s, int base) {
  T value{};
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value, base);
  if (ec != std::errc{} || ptr == s.data()) return std::nullopt;
  s.remove_prefix(static_cast<std::size_t>(ptr - s.data()));
  return value;
}

bool takePrefix(std::string_view& s, std::string_view prefix) {
  if (!s.starts_with(prefix)) return false;
  s.remove_prefix(prefix.size());
  return true;
}

// "ibroute: iberror: [pid 812] main: failed: dump tables: ..." (the pid and
// function only in some versions).
bool isIbError(std::string_view s) {
  const auto at = s.find("iberror:");
  return at != s.npos && (at == 0 || s.substr(0, at).ends_with(": "));
}

class Parser {
 public:
  // `held`: a capture of what switches hold, which may stop at an iberror.
  Parser(std::string_view fileName, bool held) : fileName_(fileName), held_(held) {}

  Result<void> line(std::string_view raw, std::size_t number) {
    line_ = number;
    const std::string_view s = trim(raw);
    if (s.empty() || s.starts_with('#')) return {};
    if (s.starts_with("Unicast lids [")) return header(s);
    if (s.starts_with("0x")) return entry(s);
    if (held_ && isIbError(s)) return cut(s);
    if (held_ && s.starts_with("ibwarn:")) return {};
    if (s.starts_with("Multicast mlids"))
      return error("a unicast LFT dump, not a multicast one ('Multicast mlids')");
    if ((s.starts_with("Lid ") && s.find("Out") != s.npos) ||
        (s.starts_with("Port ") && s.find("Info") != s.npos))
      return {};  // dump_fts column titles
    if (s.ends_with("lids dumped")) {
      std::string_view rest = s;
      if (takeNumber<unsigned>(rest, 10)) {
        whole_ = true;
        return {};
      }
    }
    if (isIbError(s))
      return error(
          "a table, but the tool that dumped it stopped here (a switch did not answer): "
          "dump it again");
    return error(
        "a 'Unicast lids [...] of switch ... guid 0x...' header, an entry "
        "'0xLID PORT', or 'N lids dumped'");
  }

  std::vector<DumpedLft> take() { return std::move(tables_); }
  std::vector<LftDumpCut> takeCuts() { return std::move(cuts_); }

 private:
  Result<void> error(std::string_view expected) const {
    return std::unexpected(Error::at(fileName_, line_, fmt::format("expected {}", expected)));
  }

  // The table the iberror cut, if any (headed, not yet "N lids dumped"),
  // is left out: a part of a table would count as entries that changed.
  Result<void> cut(std::string_view s) {
    LftDumpCut c{.line = line_, .message = std::string(s), .switchGuid = {}, .description = {}};
    if (!tables_.empty() && !whole_) {
      c.switchGuid = tables_.back().switchGuid;
      c.description = tables_.back().description;
      tables_.pop_back();
    }
    whole_ = true;
    cuts_.push_back(std::move(c));
    return {};
  }

  Result<void> header(std::string_view s) {
    whole_ = false;
    DumpedLft t;
    // OpenSM writes the range in decimal, dump_fts in hex.
    std::string_view rest = s.substr(s.find('[') + 1);
    const bool hex = takePrefix(rest, "0x");
    (void)takeNumber<unsigned>(rest, hex ? 16 : 10);
    if (!takePrefix(rest, "-")) return error("a LID range such as '[0-6]' or '[0x0-0x6]'");
    takePrefix(rest, "0x");
    const auto top = takeNumber<unsigned>(rest, hex ? 16 : 10);
    if (!top || *top > 0xFFFF) return error("a LID range such as '[0-6]' or '[0x0-0x6]'");
    if (const auto at = s.find(" of switch Lid "); at != s.npos) {
      std::string_view lid = s.substr(at + 15);
      const auto value = takeNumber<std::uint16_t>(lid, 10);
      if (!value) return error("a decimal switch LID after 'of switch Lid'");
      t.switchLid = Lid{*value};
    }
    const auto at = s.find(" guid 0x");
    if (at == s.npos) return error("' guid 0x<switch GUID>' in the switch header");
    rest = s.substr(at + 8);
    const auto guid = takeNumber<std::uint64_t>(rest, 16);
    if (!guid || !takePrefix(rest, " (") || !rest.ends_with("):"))
      return error("'guid 0x<hex GUID> (<description>):' in the switch header");
    rest.remove_suffix(2);
    // OpenSM quotes the description, dump_fts does not.
    if (rest.size() >= 2 && rest.front() == '\'' && rest.back() == '\'')
      rest = rest.substr(1, rest.size() - 2);
    t.switchGuid = Guid{*guid};
    t.description = std::string(rest);
    for (const auto& other : tables_)
      if (other.switchGuid == t.switchGuid)
        return error(fmt::format("each switch once, but {} is listed again", t.switchGuid));
    t.lft.port.assign(std::size_t{*top} + 1, kNoRoute);
    tables_.push_back(std::move(t));
    return {};
  }

  Result<void> entry(std::string_view s) {
    if (tables_.empty()) return error("a 'Unicast lids' switch header before the first entry");
    std::string_view rest = s.substr(2);
    const auto lid = takeNumber<std::uint32_t>(rest, 16);
    if (!lid || *lid > kMaxUnicastLid || rest.empty() ||
        (rest.front() != ' ' && rest.front() != '\t'))
      return error("an entry '0x<unicast LID> <port>'");
    rest = trim(rest);
    const auto port = takeNumber<unsigned>(rest, 10);
    if (!port || *port > kNoRoute || !(rest.empty() || rest.front() == ' ' || rest.front() == '\t'))
      return error("an out port 0..255 after the LID");
    auto& table = tables_.back().lft.port;
    if (*lid >= table.size()) table.resize(*lid + 1, kNoRoute);
    const auto out = static_cast<std::uint8_t>(*port);
    if (table[*lid] != kNoRoute && table[*lid] != out)
      return error(fmt::format("LID 0x{:04x} once per switch, but it is listed again with port {}",
                               *lid, out));
    table[*lid] = out;
    return {};
  }

  std::string_view fileName_;
  bool held_{false};
  std::size_t line_{0};
  std::vector<DumpedLft> tables_;
  std::vector<LftDumpCut> cuts_;
  bool whole_{true};  // the last table's "N lids dumped" came (or none is open)
};

}  // namespace

Result<std::vector<DumpedLft>> parseLftDump(std::string_view text, std::string_view fileName) {
  topology::LineReader lines(text);
  return parseLftDump([&](std::string_view& raw) { return lines.next(raw); }, fileName);
}

Result<std::vector<DumpedLft>> parseLftDump(const NextLine& next, std::string_view fileName) {
  Parser parser(fileName, false);
  std::size_t number = 0;
  for (std::string_view raw; next(raw);)
    if (auto ok = parser.line(raw, ++number); !ok) return std::unexpected(ok.error());
  return parser.take();
}

Result<HeldLftDump> parseHeldLftDump(const NextLine& next, std::string_view fileName) {
  Parser parser(fileName, true);
  std::size_t number = 0;
  for (std::string_view raw; next(raw);)
    if (auto ok = parser.line(raw, ++number); !ok) return std::unexpected(ok.error());
  return HeldLftDump{.tables = parser.take(), .cuts = parser.takeCuts()};
}

}  // namespace ibsm
