// OpenSM's guid2lid format, so state moves between OpenSM and ibsm:
//   0x0002c90300001234 0x0001 0x0001
#include <fmt/format.h>
#include <ibsm/GuidList.h>
#include <ibsm/Lids.h>

#include <charconv>
#include <sstream>

namespace ibsm {
Result<Guid2Lid> parseGuid2Lid(std::string_view text, std::string_view fileName) {
  Guid2Lid out;
  std::size_t lineNo = 0;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    ++lineNo;
    if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::string g, lo, hi, extra;
    if (!(words >> g)) continue;
    if (!(words >> lo >> hi) || (words >> extra))
      return std::unexpected(
          Error::at(fileName, lineNo, "expected '<port GUID> <first LID> <last LID>'"));
    const auto guid = parseHex64(g);
    const auto first = parseHex64(lo);
    const auto last = parseHex64(hi);
    if (!guid || *guid == 0)
      return std::unexpected(Error::at(fileName, lineNo, fmt::format("bad port GUID '{}'", g)));
    if (!first || !last || *first == 0 || *first > *last || *last > kMaxUnicastLid)
      return std::unexpected(Error::at(
          fileName, lineNo,
          fmt::format("bad LID range '{} {}': expected unicast LIDs, first <= last", lo, hi)));
    if (!out.emplace(Guid{*guid}, LidRange{Lid{static_cast<std::uint16_t>(*first)},
                                           Lid{static_cast<std::uint16_t>(*last)}})
             .second)
      return std::unexpected(
          Error::at(fileName, lineNo, fmt::format("port GUID {} appears twice", Guid{*guid})));
  }
  return out;
}

std::string formatGuid2Lid(const Guid2Lid& map) {
  std::string out;
  for (const auto& [guid, range] : map)
    out += fmt::format("0x{:016x} 0x{:04x} 0x{:04x}\n", guid.value, range.first.value,
                       range.last.value);
  return out;
}

}  // namespace ibsm
