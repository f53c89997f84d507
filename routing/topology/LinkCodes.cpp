#include "LinkCodes.h"

#include <array>
#include <utility>

namespace ibsm::topology {
namespace {

struct SpeedName {
  std::string_view name;
  std::uint8_t speed;
  std::uint8_t ext;
};

// FDR10 before FDR: the longer name must win.
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

std::uint8_t highestOf(std::uint8_t bits, std::initializer_list<std::uint8_t> order) {
  for (const std::uint8_t b : order)
    if (bits & b) return b;
  return 0;
}

}  // namespace

std::optional<LinkRate> parseLinkRate(std::string_view token) {
  LinkRate rate;
  if (token.starts_with("??")) {
    token.remove_prefix(2);
  } else {
    bool found = false;
    for (const auto& [name, code] : kWidths) {
      if (token.starts_with(name)) {
        rate.width = code;
        token.remove_prefix(name.size());
        found = true;
        break;
      }
    }
    if (!found) return std::nullopt;
  }
  if (token == "???") return rate;
  for (const SpeedName& s : kSpeeds) {
    if (token == s.name) {
      rate.speed = s.speed;
      rate.extSpeed = s.ext;
      rate.speedKnown = true;
      return rate;
    }
  }
  return std::nullopt;
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

std::uint8_t commonWidth(std::uint8_t a, std::uint8_t b) {
  return highestOf(a & b, {kWidth12x, kWidth8x, kWidth4x, kWidth2x, kWidth1x});
}

std::uint8_t commonSpeed(std::uint8_t a, std::uint8_t b) {
  return highestOf(a & b, {kSpeedQdr, kSpeedDdr, kSpeedSdr});
}

std::uint8_t commonExtSpeed(std::uint8_t a, std::uint8_t b) {
  return highestOf(a & b, {kExtNdr, kExtHdr, kExtEdr, kExtFdr});
}

}  // namespace ibsm::topology
