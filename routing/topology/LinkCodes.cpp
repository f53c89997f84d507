#include "routing/topology/LinkCodes.h"

#include <fmt/format.h>
#include <ibsm/MadAttributes.h>

#include <algorithm>
#include <array>
#include <utility>

namespace ibsm::topology {
namespace {

struct SpeedName {
  std::string_view name;
  std::uint8_t speed;
  std::uint8_t ext;
};

// QDR before FDR10: both read as QDR, and formatLinkRate names a rate by its
// first entry.
constexpr std::array kSpeeds{
    SpeedName{"SDR", kSpeedSdr, 0},       SpeedName{"DDR", kSpeedDdr, 0},
    SpeedName{"QDR", kSpeedQdr, 0},       SpeedName{"FDR10", kSpeedQdr, 0},
    SpeedName{"FDR", kSpeedQdr, kExtFdr}, SpeedName{"EDR", kSpeedQdr, kExtEdr},
    SpeedName{"HDR", kSpeedQdr, kExtHdr}, SpeedName{"NDR", kSpeedQdr, kExtNdr},
    SpeedName{"XDR", kSpeedQdr, kExtXdr},
};

constexpr std::array<std::pair<std::string_view, std::uint8_t>, 5> kWidths{{
    {"12x", kWidth12x},
    {"1x", kWidth1x},
    {"2x", kWidth2x},
    {"4x", kWidth4x},
    {"8x", kWidth8x},
}};

// Lanes of an IBA width code (2x is code 16, so codes do not order widths).
int lanes(std::uint8_t width) {
  switch (width) {
    case kWidth1x:
      return 1;
    case kWidth2x:
      return 2;
    case kWidth4x:
      return 4;
    case kWidth8x:
      return 8;
    case kWidth12x:
      return 12;
    default:
      return 0;
  }
}

// Speeds in order: SDR, DDR, QDR, then the extended ones above all three.
int speedRank(const LinkRate& r) {
  int ext = 0;
  for (std::uint8_t bit = r.extSpeed; bit; bit >>= 1) ++ext;  // FDR 1, EDR 2, ... XDR 6
  return ext ? 3 + ext : (r.speed == kSpeedQdr ? 3 : r.speed);
}

std::uint8_t highestOf(std::uint8_t bits, std::initializer_list<std::uint8_t> order) {
  for (const std::uint8_t b : order)
    if (bits & b) return b;
  return 0;
}

}  // namespace

std::optional<LinkRate> parseLinkRate(std::string_view token) {
  std::size_t widthSize = 0;
  if (token.starts_with("??")) {
    widthSize = 2;
  } else {
    for (const auto& [name, code] : kWidths)
      if (token.starts_with(name)) widthSize = name.size();
  }
  if (widthSize == 0) return std::nullopt;
  return parseLinkRate(token.substr(0, widthSize), token.substr(widthSize));
}

std::optional<LinkRate> parseLinkRate(std::string_view width, std::string_view speed) {
  LinkRate rate;
  if (width != "??") {
    const auto* w = std::ranges::find(kWidths, width, [](const auto& e) { return e.first; });
    if (w == kWidths.end()) return std::nullopt;
    rate.width = w->second;
  }
  if (speed == "???") return rate;
  const auto* s = std::ranges::find(kSpeeds, speed, &SpeedName::name);
  if (s == kSpeeds.end()) return std::nullopt;
  rate.speed = s->speed;
  rate.extSpeed = s->ext;
  rate.speedKnown = true;
  return rate;
}

std::string formatLinkRate(const LinkRate& rate) {
  const auto* w = std::ranges::find(kWidths, rate.width, [](const auto& e) { return e.second; });
  std::string out{w == kWidths.end() ? std::string_view("??") : w->first};
  if (!rate.speedKnown) return out + "???";
  // FDR10 reads as QDR, so QDR is the name this table gives first for it.
  const auto* s = std::ranges::find_if(
      kSpeeds, [&](const SpeedName& n) { return n.speed == rate.speed && n.ext == rate.extSpeed; });
  return out + std::string(s == kSpeeds.end() ? std::string_view("???") : s->name);
}

LinkRate lowerLinkRate(const LinkRate& a, const LinkRate& b) {
  LinkRate out = a;
  if (!a.width || (b.width && lanes(b.width) < lanes(a.width))) out.width = b.width;
  if (!a.speedKnown || (b.speedKnown && speedRank(b) < speedRank(a))) {
    out.speed = b.speed;
    out.extSpeed = b.extSpeed;
    out.speedKnown = b.speedKnown;
  }
  return out;
}

bool ratesDisagree(const LinkRate& a, const LinkRate& b) {
  return (a.width && b.width && a.width != b.width) ||
         (a.speedKnown && b.speedKnown && (a.speed != b.speed || a.extSpeed != b.extSpeed));
}

std::string cableRateWarning(std::string_view file, const CableEnd& first, const CableEnd& second) {
  return fmt::format(
      "{}:{}: the two ends of a cable report different rates: {} says {} ({}:{}), {} says {} "
      "({}:{}); read as {}, the lower width and the lower speed",
      file, first.line, first.name, first.printed, file, first.line, second.name, second.printed,
      file, second.line, formatLinkRate(lowerLinkRate(first.rate, second.rate)));
}

LinkAttrs linkAttrsFromRate(const LinkRate& rate) {
  LinkAttrs a;
  if (rate.width) a.widthSupported = a.widthEnabled = a.widthActive = rate.width;
  if (rate.speedKnown) {
    a.speedSupported = a.speedEnabled = a.speedActive = rate.speed;
    a.extSpeedActive = rate.extSpeed;
  }
  return a;
}

void setCapturedLink(Port& port, const LinkRate& rate) {
  port.link = linkAttrsFromRate(rate);
  if (port.link.extSpeedActive != 0) port.capabilityMask |= capability::kIsExtendedSpeedsSupported;
}

std::uint8_t commonWidth(std::uint8_t a, std::uint8_t b) {
  return highestOf(a & b, {kWidth12x, kWidth8x, kWidth4x, kWidth2x, kWidth1x});
}

std::uint8_t commonSpeed(std::uint8_t a, std::uint8_t b) {
  return highestOf(a & b, {kSpeedQdr, kSpeedDdr, kSpeedSdr});
}

std::uint8_t commonExtSpeed(std::uint8_t a, std::uint8_t b) {
  return highestOf(a & b, {kExtNdr, kExtHdr, kExtEdr, kExtFdr});
}

std::string_view typeName(NodeType t) {
  switch (t) {
    case NodeType::Switch:
      return "switch";
    case NodeType::Ca:
      return "CA";
    case NodeType::Router:
      return "router";
  }
  return "node";
}

}  // namespace ibsm::topology
