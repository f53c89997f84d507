// GetMulti(MultiPathRecord) (IBA 15.2.5.20): the PathRecords from each
// source GID to each destination GID the request lists, by the same rules
// as PathRecord (sm/sa/PathRecords.h: the programmed routes, the shared
// PKey, the partition's SL, the selectors, a QoS policy's level -- matched
// per source and destination on the request's ServiceID, PKey and
// QoSClass, as OpenSM's osm_qos_policy_get_qos_level_by_mpr does).
// NumbPath, when given, caps the answer's paths in all (OpenSM's reading:
// the first NumbPath found, pair by pair in the order listed). With LMC > 0
// a port pair has a path per LID pair; they come most independent first
// (IBA 15.2.5.17): the preferred pair, then each the one whose walk through
// the LFTs shares fewest cables with those before it, so that a NumbPath
// of N gets the N most disjoint routes the tables give. IndependenceSelector
// (non-zero) orders every port pair's paths together the same way before
// the cap, so paths of different source or destination ports count too.
//
//   auto paths = findMultiPaths(subnet, *record, header.componentMask, from.lid);
//   if (!paths) answer with paths.error();  // an SA status
#pragma once

#include <cstdint>
#include <expected>
#include <vector>

#include "sm/sa/SaRecords.h"
#include "sm/sa/SaSubnet.h"

namespace ibsm::sm::sa {

// MultiPathRecord component-mask bits (IBA 15.2.5.20, Table 213).
namespace mprMask {
inline constexpr std::uint64_t kNumbPath = 1ULL << 6;
inline constexpr std::uint64_t kServiceIdMsb = 1ULL << 16;
inline constexpr std::uint64_t kSgidCount = 1ULL << 19;
inline constexpr std::uint64_t kDgidCount = 1ULL << 20;
inline constexpr std::uint64_t kServiceIdLsb = 1ULL << 21;
}  // namespace mprMask

// kReqInsufficientComponents without both GID counts in the mask, or with
// one half of the ServiceID; kReqInvalid with no source or no destination;
// what PathRecords answer for a bad GID (kReqInvalidGid).
[[nodiscard]] std::expected<std::vector<PathRecord>, std::uint16_t> findMultiPaths(
    const SaSubnet& subnet, const MultiPathRecord& record, std::uint64_t mask, Lid requester);

}  // namespace ibsm::sm::sa
