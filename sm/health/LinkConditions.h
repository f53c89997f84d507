// Links that trained below what their two ends could do: a pure function of
// one Fabric (the last discovery), so the daemon and a test judge the same
// links the same way.
//
//   for (const DowngradedLink& d : downgradedLinks(fabric))
//     log("{}", d.detail);  // "h1"[1] 4x SDR expected, 1x SDR active; ...
//
// The rule, per end: an end expects the highest width (and speed) it both
// supports and enables and that its peer supports; the link is downgraded
// when either end is active below its own expectation. Extended speeds
// (FDR and up) beat the base ones when both ends have them.
//
// Why the peer's Supported and not its Enabled: a link whose two ends
// enable different widths trains at the lowest common one without any
// fault, so "common enabled" would never flag an enable-mask mismatch
// (ibsim's `w=3` cabled to `w=1` trains at 1x and would pass), yet an end set
// up for 4x running at 1x is what an operator wants to hear about. Why not
// Supported alone, as iblinkinfo's "Could be" does: ibsim reports 1x-12x
// Supported on every port whatever it enables, so every link would be
// flagged; on real fabrics ports enabled below what they support (a
// deliberately narrowed link) would be flagged too.
#pragma once

#include <ibsm/Fabric.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ibsm::sm::health {

// Signalling rates in increasing order, base (PortInfo:LinkSpeed) then
// extended (LinkSpeedExt).
enum class Speed : std::uint8_t { None, Sdr, Ddr, Qdr, Fdr, Edr, Hdr, Ndr };
std::string_view speedName(Speed s);  // "SDR" ... "NDR", "none"

// Lanes: 1, 2, 4, 8 or 12; 0 for an empty mask.
unsigned widestLanes(std::uint8_t widthMask);
unsigned activeLanes(std::uint8_t widthActive);
// The fastest speed of a base mask and an extended mask (the extended one
// wins when not empty).
Speed fastest(std::uint8_t speedMask, std::uint8_t extSpeedMask);

struct EndRate {
  PortRef port{};
  unsigned expectedLanes{0};
  unsigned activeLanes{0};
  Speed expectedSpeed{Speed::None};
  Speed activeSpeed{Speed::None};

  bool downgraded() const { return activeLanes < expectedLanes || activeSpeed < expectedSpeed; }
};

// What one end of a trained link expects of it and runs at.
EndRate endRate(const Fabric& fabric, PortRef end);

struct DowngradedLink {
  EndRate a{};  // the end with the lower (node GUID, port)
  EndRate b{};
  // `"h1"[1] (0x..) 4x SDR expected, 1x SDR active; "s1"[3] (0x..) 1x SDR ...`
  std::string detail{};
};

// Every cabled link whose ends both carry link attributes (a port Down or
// with no width active is not trained yet and is skipped), each link once.
std::vector<DowngradedLink> downgradedLinks(const Fabric& fabric);

}  // namespace ibsm::sm::health
