#include "sm/control/PathRequest.h"

#include <fmt/format.h>

#include <charconv>
#include <vector>

namespace ibsm::sm::control {
namespace {

template <typename T>
std::string optionalText(const std::optional<T>& value, bool hex) {
  if (!value) return "-";
  return hex ? fmt::format("{:#x}", *value) : fmt::format("{}", *value);
}

// "-" or a number of at most `max`.
template <typename T>
Result<std::optional<T>> optionalField(std::string_view text, std::uint64_t max,
                                       std::string_view what) {
  if (text == "-") return std::optional<T>{};
  auto value = parsePathNumber(text, max, what);
  if (!value) return std::unexpected(value.error());
  return std::optional<T>(static_cast<T>(*value));
}

}  // namespace

Result<std::uint64_t> parsePathNumber(std::string_view text, std::uint64_t max,
                                      std::string_view what) {
  int base = 10;
  std::string_view digits = text;
  if (digits.starts_with("0x") || digits.starts_with("0X")) {
    digits.remove_prefix(2);
    base = 16;
  }
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
  if (digits.empty() || ec != std::errc{} || end != digits.data() + digits.size() || value > max)
    return fail(
        fmt::format("expected {} (decimal or 0x hex, at most {:#x}), not '{}'", what, max, text));
  return value;
}

std::string encodePathRequest(const PathRequest& r) {
  return fmt::format("path\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}", r.json ? "json" : "text",
                     optionalText(r.query.sl, false), r.mgid ? *r.mgid : "-", r.from,
                     r.to.empty() ? "-" : r.to, optionalText(r.query.pkey, true),
                     optionalText(r.query.serviceId, true), optionalText(r.query.qosClass, false));
}

Result<PathRequest> decodePathRequest(std::string_view line) {
  std::vector<std::string_view> fields;
  while (true) {
    const auto tab = line.find('\t');
    fields.push_back(line.substr(0, tab));
    if (tab == std::string_view::npos) break;
    line.remove_prefix(tab + 1);
  }
  if ((fields.size() != 6 && fields.size() != 9) || fields[0] != "path")
    return fail(
        "expected 'path<TAB>json|text<TAB>SL|-<TAB>MGID|-<TAB>FROM<TAB>TO|-"
        "[<TAB>PKEY|-<TAB>SERVICE_ID|-<TAB>QOS_CLASS|-]'");
  PathRequest r;
  if (fields[1] != "json" && fields[1] != "text")
    return fail(fmt::format("expected json or text, not '{}'", fields[1]));
  r.json = fields[1] == "json";
  auto sl = optionalField<std::uint8_t>(fields[2], 15, "an SL from 0 to 15");
  if (!sl) return std::unexpected(sl.error());
  r.query.sl = *sl;
  if (fields[3] != "-") r.mgid = std::string(fields[3]);
  r.from = std::string(fields[4]);
  if (fields[5] != "-") r.to = std::string(fields[5]);
  if (fields.size() == 9) {
    auto pkey = optionalField<std::uint16_t>(fields[6], 0xFFFF, "a PKey");
    if (!pkey) return std::unexpected(pkey.error());
    auto sid = optionalField<std::uint64_t>(fields[7], ~std::uint64_t{0}, "a ServiceID");
    if (!sid) return std::unexpected(sid.error());
    auto qosClass = optionalField<std::uint8_t>(fields[8], 0xFF, "a QoS class from 0 to 255");
    if (!qosClass) return std::unexpected(qosClass.error());
    r.query.pkey = *pkey;
    r.query.serviceId = *sid;
    r.query.qosClass = *qosClass;
  }
  if (r.from.empty()) return fail("expected FROM");
  if (!r.mgid && r.to.empty()) return fail("expected TO (or an MGID)");
  return r;
}

}  // namespace ibsm::sm::control
