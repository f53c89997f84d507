// Link width and speed as both readers meet them: the "4xQDR" tokens of
// ibnetdiscover and the enabled/active bit sets of ibsim, turned into the IBA
// PortInfo codes LinkAttrs carries.
#pragma once

#include <ibsm/Fabric.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ibsm::topology {

// IBA LinkWidth bits.
inline constexpr std::uint8_t kWidth1x = 1, kWidth4x = 2, kWidth8x = 4, kWidth12x = 8,
                              kWidth2x = 16;
inline constexpr std::uint8_t kWidthAll = 31;
// IBA LinkSpeed bits.
inline constexpr std::uint8_t kSpeedSdr = 1, kSpeedDdr = 2, kSpeedQdr = 4;
inline constexpr std::uint8_t kSpeedAll = 7;
// IBA LinkSpeedExt bits. XDR is not in the 4-bit field; rdma-core reports it
// as 32 in its aggregated extended speed, and so do we.
inline constexpr std::uint8_t kExtFdr = 1, kExtEdr = 2, kExtHdr = 4, kExtNdr = 8, kExtXdr = 32;

// What one ibnetdiscover port line says about its link; 0 means the capture
// printed "??" or "???" (ibnetdiscover could not read the PortInfo).
struct LinkRate {
  std::uint8_t width{0};
  std::uint8_t speed{0};
  std::uint8_t extSpeed{0};
  bool speedKnown{false};

  bool operator==(const LinkRate&) const = default;
};

// "4xQDR", "1xSDR", "12xEDR", "2xNDR", "4xFDR10", "??SDR", "4x???".
// FDR10 (a Mellanox extension outside PortInfo) reads as QDR.
std::optional<LinkRate> parseLinkRate(std::string_view token);
// The same as two tokens, as `ibnetdiscover -p` prints them: "4x" "QDR".
std::optional<LinkRate> parseLinkRate(std::string_view width, std::string_view speed);

// "4xQDR", with "??" / "???" for what is not known.
std::string formatLinkRate(const LinkRate& rate);

// What a cable runs at when its two ends report different rates: the lower
// width and the lower speed, each on its own (a link trains to what both
// ends can do). An end that could not read one of them ("??") does not vote.
LinkRate lowerLinkRate(const LinkRate& a, const LinkRate& b);

// True when both ends know a width and the widths differ, or likewise speeds.
bool ratesDisagree(const LinkRate& a, const LinkRate& b);

// One end of a cable as a capture line tells it.
struct CableEnd {
  std::string name;  // port [3] of switch 0x... "leaf0"
  std::size_t line{0};
  LinkRate rate;
  std::string printed;  // the rate as the line prints it: "4xFDR10"
};

// The one warning per cable whose ends disagree, from the end read first:
//   f:3: the two ends of a cable report different rates: port [1] of ... says
//   4xSDR (f:3), port [2] of ... says 1xSDR (f:8); read as 1xSDR, the lower
//   width and the lower speed
std::string cableRateWarning(std::string_view file, const CableEnd& first, const CableEnd& second);

// The word the readers' messages use for a node type: "switch", "CA", "router".
std::string_view typeName(NodeType t);

// LinkAttrs for a link seen in a capture: only the active rate is known, so
// supported and enabled say the same.
LinkAttrs linkAttrsFromRate(const LinkRate& rate);

// A captured port's link from its rate, and what the rate says of the port:
// a port that runs an extended speed (FDR and up) has IsExtendedSpeedsSupported
// set, as it answers PortInfo (LinkSpeedExt* are reserved without it).
void setCapturedLink(Port& port, const LinkRate& rate);

// The highest width / speed / extended speed two enabled sets share, the way
// a link trains (and ibsim computes it); 0 when they share none.
std::uint8_t commonWidth(std::uint8_t a, std::uint8_t b);
std::uint8_t commonSpeed(std::uint8_t a, std::uint8_t b);
std::uint8_t commonExtSpeed(std::uint8_t a, std::uint8_t b);

}  // namespace ibsm::topology
