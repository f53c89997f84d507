#include <fmt/format.h>
#include <ibsm/GuidList.h>

#include <charconv>

namespace ibsm {

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
    std::string_view digits = line;
    if (digits.starts_with("0x") || digits.starts_with("0X")) digits.remove_prefix(2);
    std::uint64_t v = 0;
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, 16);
    if (digits.empty() || ec != std::errc{} || ptr != digits.data() + digits.size() || v == 0)
      return std::unexpected(
          Error::at(fileName, lineNo,
                    fmt::format("expected one GUID (e.g. 0x0002c90300a1b2c3), found '{}'", line)));
    out.emplace_back(v);
  }
  return out;
}

}  // namespace ibsm
