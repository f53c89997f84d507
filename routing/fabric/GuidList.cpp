#include <fmt/format.h>
#include <ibsm/GuidList.h>

#include <algorithm>
#include <cctype>
#include <charconv>

namespace ibsm {

std::optional<std::uint64_t> parseHex64(std::string_view text) {
  if (text.starts_with("0x") || text.starts_with("0X")) text.remove_prefix(2);
  if (text.empty()) return std::nullopt;
  std::uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v, 16);
  if (ec != std::errc{} || ptr != text.data() + text.size()) return std::nullopt;
  return v;
}

Result<std::vector<Guid>> parseGuidList(std::string_view text, std::string_view fileName) {
  std::vector<Guid> out;
  std::size_t lineNo = 0;
  while (!text.empty()) {
    ++lineNo;
    const auto eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
    if (const auto hash = line.find('#'); hash != std::string_view::npos)
      line = line.substr(0, hash);
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.front())))
      line.remove_prefix(1);
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back())))
      line.remove_suffix(1);
    if (line.empty()) continue;
    // OpenSM's parse_node_map() takes a node name after the GUID, which its
    // root, compute and I/O node lists ignore: so does ibsm.
    const auto blank =
        std::ranges::find_if(line, [](unsigned char c) { return std::isspace(c) != 0; });
    const std::string_view guid = line.substr(0, static_cast<std::size_t>(blank - line.begin()));
    const auto v = parseHex64(guid);
    if (!v || *v == 0)
      return std::unexpected(Error::at(
          fileName, lineNo,
          fmt::format("expected a GUID (e.g. 0x0002c90300a1b2c3), optionally followed by a node "
                      "name, found '{}'",
                      line)));
    out.emplace_back(*v);
  }
  return out;
}

}  // namespace ibsm
