// PathRecords (IBA 15.2.5.16) computed from the routes the SM programmed:
// the LFTs are followed from the source port hop by hop to the destination,
// MTU and rate are the lowest along those links, the PKey one both ports
// share, the SL one the route's SL2VL carries (the partition's `sl` when
// it does), PacketLifeTime the subnet's setting. With a QoS policy
// (SubnetPlan::qos) the level of its first matching rule sets the SL,
// caps MTU and rate, narrows the PKeys and replaces the PacketLifeTime,
// as OpenSM's SA does.
//
//   auto paths = findPaths(subnet, {.query = pr, .mask = mask, .requester = from.lid,
//                                   .single = method == saMethod::kGet});
//   if (!paths) answer with paths.error();  // an SA status
#pragma once

#include <cstdint>
#include <expected>
#include <vector>

#include "sm/sa/SaRecords.h"
#include "sm/sa/SaSubnet.h"

namespace ibsm::sm::sa {

// PathRecord component-mask bits (IBA 15.2.5.16, Table 209).
namespace prMask {
inline constexpr std::uint64_t kServiceId = 0x3;  // both halves
inline constexpr std::uint64_t kDgid = 1ULL << 2;
inline constexpr std::uint64_t kSgid = 1ULL << 3;
inline constexpr std::uint64_t kDlid = 1ULL << 4;
inline constexpr std::uint64_t kSlid = 1ULL << 5;
inline constexpr std::uint64_t kFlowLabel = 1ULL << 8;
inline constexpr std::uint64_t kHopLimit = 1ULL << 9;
inline constexpr std::uint64_t kTClass = 1ULL << 10;
inline constexpr std::uint64_t kReversible = 1ULL << 11;
inline constexpr std::uint64_t kNumbPath = 1ULL << 12;
inline constexpr std::uint64_t kPKey = 1ULL << 13;
inline constexpr std::uint64_t kQosClass = 1ULL << 14;
inline constexpr std::uint64_t kSl = 1ULL << 15;
inline constexpr std::uint64_t kMtuSelector = 1ULL << 16;
inline constexpr std::uint64_t kMtu = 1ULL << 17;
inline constexpr std::uint64_t kRateSelector = 1ULL << 18;
inline constexpr std::uint64_t kRate = 1ULL << 19;
inline constexpr std::uint64_t kPacketLifeSelector = 1ULL << 20;
inline constexpr std::uint64_t kPacketLife = 1ULL << 21;
}  // namespace prMask

struct PathQuery {
  PathRecord query;
  std::uint64_t mask{0};
  Lid requester;       // the source when the query names none
  bool single{false};  // a Get: one path per port pair unless NumbPath says more
};

// The paths that match, in order (per port pair, preferred LID pair
// first); an SA status when the query itself is wrong: a GID of another
// subnet or of no port (kReqInvalidGid), no destination for a Get
// (kReqInsufficientComponents), no source and an unknown requester
// (kReqInvalid).
[[nodiscard]] std::expected<std::vector<PathRecord>, std::uint16_t> findPaths(
    const SaSubnet& subnet, const PathQuery& q);
// The same into `out` (cleared first, its capacity kept): the responder
// reuses one vector, so a Get allocates nothing here.
[[nodiscard]] std::expected<void, std::uint16_t> findPaths(const SaSubnet& subnet,
                                                           const PathQuery& q,
                                                           std::vector<PathRecord>& out);

// IBA rate code of a link of this width and speed (PortInfo encodings):
// 3 for 4x SDR (10 Gb/s), 16 for 4x EDR (100 Gb/s).
std::uint8_t rateCode(const LinkAttrs& link);
// Gb/s times 2 of a rate code, for ordering rates (codes are not ordered).
unsigned rateHalfGbps(std::uint8_t code);
// The highest rate code of at most this many Gb/s x 2.
std::uint8_t rateOfHalfGbps(unsigned halfGbps);

}  // namespace ibsm::sm::sa
