#include "sm/control/PathRequest.h"

#include <fmt/format.h>

#include <charconv>
#include <vector>

namespace ibsm::sm::control {

std::string encodePathRequest(const PathRequest& r) {
  return fmt::format("path\t{}\t{}\t{}\t{}\t{}", r.json ? "json" : "text", r.sl,
                     r.mgid ? *r.mgid : "-", r.from, r.to.empty() ? "-" : r.to);
}

Result<PathRequest> decodePathRequest(std::string_view line) {
  std::vector<std::string_view> fields;
  while (true) {
    const auto tab = line.find('\t');
    fields.push_back(line.substr(0, tab));
    if (tab == std::string_view::npos) break;
    line.remove_prefix(tab + 1);
  }
  if (fields.size() != 6 || fields[0] != "path")
    return fail("expected 'path<TAB>json|text<TAB>SL<TAB>MGID|-<TAB>FROM<TAB>TO|-'");
  PathRequest r;
  if (fields[1] != "json" && fields[1] != "text")
    return fail(fmt::format("expected json or text, not '{}'", fields[1]));
  r.json = fields[1] == "json";
  unsigned sl = 16;
  const auto [end, ec] = std::from_chars(fields[2].data(), fields[2].data() + fields[2].size(), sl);
  if (ec != std::errc{} || end != fields[2].data() + fields[2].size() || sl > 15)
    return fail(fmt::format("expected an SL from 0 to 15, not '{}'", fields[2]));
  r.sl = static_cast<std::uint8_t>(sl);
  if (fields[3] != "-") r.mgid = std::string(fields[3]);
  r.from = std::string(fields[4]);
  if (fields[5] != "-") r.to = std::string(fields[5]);
  if (r.from.empty()) return fail("expected FROM");
  if (!r.mgid && r.to.empty()) return fail("expected TO (or an MGID)");
  return r;
}

}  // namespace ibsm::sm::control
