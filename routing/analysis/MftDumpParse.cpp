// parseMftDump: `ibroute -M` output (and formatMftDump's) back into tables.
#include <fmt/format.h>
#include <ibsm/Dumps.h>

#include <charconv>
#include <optional>

#include "routing/topology/TextScan.h"

namespace ibsm {
namespace {

constexpr std::size_t kFirstColumn = 12;  // "0xc000" and six blanks

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

template <typename T>
std::optional<T> number(std::string_view s, int base) {
  T value{};
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value, base);
  if (ec != std::errc{} || ptr != s.data() + s.size()) return std::nullopt;
  return value;
}

// Column titles, the verbose capability line, the trailer, and ibwarn lines
// that stderr mixed in.
bool isDecoration(std::string_view s) {
  return s.starts_with("Ports:") || s.starts_with("ibwarn:") || s.starts_with("MLid") ||
         s.starts_with("Switch multicast mlid capability") || s.ends_with("mlids dumped") ||
         s.find_first_not_of("0123456789 ") == std::string_view::npos;
}

class Parser {
 public:
  explicit Parser(std::string_view fileName) : fileName_(fileName) {}

  Result<void> line(std::string_view raw, std::size_t number) {
    line_ = number;
    if (raw.ends_with('\r')) raw.remove_suffix(1);
    const std::string_view s = trim(raw);
    if (s.empty() || s.starts_with('#')) return {};
    if (s.starts_with("Multicast mlids [")) return header(s);
    if (s.starts_with("Unicast lids"))
      return error("a multicast dump (ibroute -M), not a unicast one");
    if (raw.starts_with("0x")) return entry(raw);
    if (isDecoration(s)) return {};
    return error(
        "a 'Multicast mlids [...] of switch ... guid 0x...' header, column titles, an "
        "entry '0xMLID  x x ...', or 'N valid mlids dumped'");
  }

  std::vector<DumpedMft> take() { return std::move(tables_); }

 private:
  std::unexpected<Error> error(std::string_view expected) const {
    return std::unexpected(Error::at(fileName_, line_, fmt::format("expected {}", expected)));
  }

  Result<void> header(std::string_view s) {
    DumpedMft t;
    if (const auto at = s.find(" of switch Lid "); at != s.npos) {
      const std::string_view rest = s.substr(at + 15);
      const auto lid = number<std::uint16_t>(rest.substr(0, rest.find(' ')), 10);
      if (!lid) return error("a decimal switch LID after 'of switch Lid'");
      t.switchLid = Lid{*lid};
    }
    const auto at = s.find(" guid 0x");
    if (at == s.npos) return error("' guid 0x<switch GUID>' in the switch header");
    std::string_view rest = s.substr(at + 8);
    const auto guid = number<std::uint64_t>(rest.substr(0, rest.find(' ')), 16);
    rest.remove_prefix(std::min(rest.size(), rest.find(' ')));
    if (!guid || !rest.starts_with(" (") || !rest.ends_with("):"))
      return error("'guid 0x<hex GUID> (<description>):' in the switch header");
    t.switchGuid = Guid{*guid};
    t.description = std::string(rest.substr(2, rest.size() - 4));
    for (const auto& other : tables_)
      if (other.switchGuid == t.switchGuid)
        return error(fmt::format("each switch once, but {} is listed again", t.switchGuid));
    tables_.push_back(std::move(t));
    return {};
  }

  // "0xc000      x   x" (a column per port) or, with -b, "0xc000      0016"
  // (a 16-bit word per 16 ports).
  Result<McPortMask> mask(std::string_view rest) const {
    McPortMask m;
    const std::string_view words = trim(rest);
    if (words.find_first_not_of("x ") == std::string_view::npos) {
      for (std::size_t i = 0; i < rest.size(); ++i) {
        if (rest[i] != 'x') continue;
        if (i % 2 != 0 || i / 2 >= m.size()) return error("'x' marks in the port columns");
        m.set(i / 2);
      }
      return m;
    }
    if (words.size() % 4 != 0 || words.size() / 4 > m.size() / 16)
      return error("port mask words of 4 hex digits (ibroute -b)");
    for (std::size_t w = 0; w < words.size() / 4; ++w) {
      const auto bits = number<std::uint16_t>(words.substr(w * 4, 4), 16);
      if (!bits) return error("port mask words of 4 hex digits (ibroute -b)");
      for (std::size_t b = 0; b < 16; ++b)
        if (*bits & (1U << b)) m.set(w * 16 + b);
    }
    return m;
  }

  Result<void> entry(std::string_view raw) {
    if (tables_.empty()) return error("a 'Multicast mlids' switch header before the first entry");
    const auto mlid = number<std::uint16_t>(raw.substr(2, 4), 16);
    if (raw.size() < 6 || !mlid || *mlid < kFirstMlid.value || *mlid > kLastMlid.value ||
        (raw.size() > 6 && raw[6] != ' '))
      return error("an entry '0x<MLID 0xc000-0xfffe>' then its ports");
    const auto m = mask(raw.size() > kFirstColumn ? raw.substr(kFirstColumn) : std::string_view{});
    if (!m) return std::unexpected(m.error());
    auto& entries = tables_.back().mft.entries;
    if (entries.contains(*mlid))
      return error(fmt::format("MLID 0x{:04x} once per switch, but it is listed again", *mlid));
    if (m->any()) entries.emplace(*mlid, *m);
    return {};
  }

  std::string_view fileName_;
  std::size_t line_{0};
  std::vector<DumpedMft> tables_;
};

}  // namespace

Result<std::vector<DumpedMft>> parseMftDump(std::string_view text, std::string_view fileName) {
  Parser parser(fileName);
  topology::LineReader lines(text);
  for (std::string_view raw; lines.next(raw);)
    if (auto ok = parser.line(raw, lines.number()); !ok) return std::unexpected(ok.error());
  return parser.take();
}

Result<std::vector<SwitchMft>> mftsByNode(const Fabric& fabric,
                                          const std::vector<DumpedMft>& dumped) {
  std::vector<SwitchMft> out(fabric.size());
  for (const DumpedMft& d : dumped) {
    const auto id = fabric.findNode(d.switchGuid);
    if (!id || !fabric.node(*id).isSwitch())
      return fail(fmt::format("MFT dump: {} is not a switch of the fabric", d.switchGuid));
    for (const auto& [mlid, mask] : d.mft.entries)
      for (std::size_t p = fabric.node(*id).numPorts() + 1U; p < mask.size(); ++p)
        if (mask.test(p))
          return fail(fmt::format("MFT dump: switch {} has no port {} (MLID 0x{:04x})",
                                  d.switchGuid, p, mlid));
    out[*id] = d.mft;
  }
  return out;
}

}  // namespace ibsm
