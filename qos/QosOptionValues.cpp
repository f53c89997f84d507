// opensm.conf's QoS option values: the "VL:weight,..." and "VL,VL,..."
// syntax, and each port type's set as OpenSM builds it (its own value, else
// the general one, else OpenSM's default).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <ibsm/QosOptions.h>

#include <charconv>

namespace ibsm::qos {
namespace {

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

// C's strtoul with base 0 over the whole text, as OpenSM reads numbers.
std::optional<unsigned> cNumber(std::string_view text) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    base = 16;
  } else if (text.size() > 1 && text[0] == '0') {
    base = 8;
  }
  unsigned v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v, base);
  if (text.empty() || ec != std::errc{} || ptr != text.data() + text.size()) return std::nullopt;
  return v;
}

std::vector<std::string_view> items(std::string_view text) {
  std::vector<std::string_view> out;
  while (true) {
    const auto comma = text.find(',');
    out.push_back(trim(text.substr(0, comma)));
    if (comma == std::string_view::npos) return out;
    text.remove_prefix(comma + 1);
  }
}

constexpr std::string_view kVlArbSyntax =
    "up to 64 VL:weight pairs separated by ',' (VL 0-14, weight 0-255), such as \"0:4,1:0\"";
constexpr std::string_view kSl2VlSyntax =
    "16 VLs (0-15, the VL of SL 0 to SL 15) separated by ',', such as "
    "\"0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,7\"";

// OpenSM's defaults (its opensm.conf documents them).
constexpr std::string_view kDefaultHigh =
    "0:4,1:0,2:0,3:0,4:0,5:0,6:0,7:0,8:0,9:0,10:0,11:0,12:0,13:0,14:0";
constexpr std::string_view kDefaultLow =
    "0:0,1:4,2:4,3:4,4:4,5:4,6:4,7:4,8:4,9:4,10:4,11:4,12:4,13:4,14:4";
constexpr std::string_view kDefaultSl2Vl = "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,7";

std::vector<VlWeight> padded(std::vector<VlWeight> entries) {
  entries.resize(kVlArbEntries);
  return entries;
}

template <typename T>
const T& pick(const std::optional<T>& own, const std::optional<T>& general, const T& dflt) {
  return own ? *own : general ? *general : dflt;
}

}  // namespace

Result<std::vector<VlWeight>> parseVlArbOption(std::string_view text) {
  std::vector<VlWeight> out;
  if (trim(text).empty())
    return fail(fmt::format("expected {}, found an empty value", kVlArbSyntax));
  for (const std::string_view item : items(text)) {
    const auto colon = item.find(':');
    const auto vl = cNumber(trim(item.substr(0, colon)));
    const auto weight =
        colon == std::string_view::npos ? std::nullopt : cNumber(trim(item.substr(colon + 1)));
    if (!vl || !weight || *vl > 14 || *weight > 255)
      return fail(fmt::format("expected {}, found '{}'", kVlArbSyntax, item));
    out.push_back({static_cast<std::uint8_t>(*vl), static_cast<std::uint8_t>(*weight)});
  }
  if (out.size() > kVlArbEntries)
    return fail(fmt::format("expected {}, found {} pairs", kVlArbSyntax, out.size()));
  return out;
}

Result<std::array<std::uint8_t, 16>> parseSl2VlOption(std::string_view text) {
  const auto vls = items(text);
  if (vls.size() != 16)
    return fail(fmt::format("expected {}, found {} value{}", kSl2VlSyntax, vls.size(),
                            vls.size() == 1 ? "" : "s"));
  std::array<std::uint8_t, 16> out{};
  for (std::size_t sl = 0; sl < 16; ++sl) {
    const auto vl = cNumber(vls[sl]);
    if (!vl || *vl > 15)
      return fail(fmt::format("expected {}, found '{}' for SL {}", kSl2VlSyntax, vls[sl], sl));
    out[sl] = static_cast<std::uint8_t>(*vl);
  }
  return out;
}

std::string formatVlArb(const std::vector<VlWeight>& entries) {
  std::string out;
  for (const auto& e : entries)
    out += fmt::format("{}{}:{}", out.empty() ? "" : ",", e.vl, e.weight);
  return out;
}

std::string formatSl2Vl(const std::array<std::uint8_t, 16>& vls) {
  return fmt::format("{}", fmt::join(vls, ","));
}

QosTableSet QosOptions::tablesFor(QosPortType type) const {
  static const std::vector<VlWeight> high = *parseVlArbOption(kDefaultHigh);
  static const std::vector<VlWeight> low = *parseVlArbOption(kDefaultLow);
  static const std::array<std::uint8_t, 16> sl2vlDefault = *parseSl2VlOption(kDefaultSl2Vl);
  const QosTableOptions& own = type == QosPortType::Ca               ? ca
                               : type == QosPortType::Switch0        ? sw0
                               : type == QosPortType::SwitchExternal ? swe
                                                                     : rtr;
  QosTableSet set;
  set.maxVls = own.maxVls.value_or(all.maxVls.value_or(15));
  set.highLimit = own.highLimit.value_or(all.highLimit.value_or(0));
  set.high = padded(pick(own.vlarbHigh, all.vlarbHigh, high));
  set.low = padded(pick(own.vlarbLow, all.vlarbLow, low));
  set.sl2vl = pick(own.sl2vl, all.sl2vl, sl2vlDefault);
  return set;
}

}  // namespace ibsm::qos
