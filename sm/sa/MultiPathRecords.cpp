#include "sm/sa/MultiPathRecords.h"

#include <array>
#include <utility>

#include "sm/sa/PathRecords.h"

namespace ibsm::sm::sa {
namespace {

// The MultiPathRecord components that are PathRecord components too, as
// (MultiPathRecord bit, PathRecord bits).
constexpr std::array<std::pair<unsigned, std::uint64_t>, 13> kSameComponents{{
    {2, prMask::kFlowLabel},
    {3, prMask::kHopLimit},
    {4, prMask::kTClass},
    {5, prMask::kReversible},
    {7, prMask::kPKey},
    {8, prMask::kQosClass},
    {9, prMask::kSl},
    {10, prMask::kMtuSelector},
    {11, prMask::kMtu},
    {12, prMask::kRateSelector},
    {13, prMask::kRate},
    {14, prMask::kPacketLifeSelector},
    {15, prMask::kPacketLife},
}};

constexpr std::uint64_t kServiceId = mprMask::kServiceIdMsb | mprMask::kServiceIdLsb;
constexpr std::size_t kMaxPaths = 127;  // NumbPath's largest value

// The PathRecord query of one source and destination with the request's
// constraints, and its mask.
std::pair<PathRecord, std::uint64_t> pathQuery(const MultiPathRecord& r, std::uint64_t mask) {
  PathRecord q;
  q.rawTraffic = r.rawTraffic;
  q.flowLabel = r.flowLabel;
  q.hopLimit = r.hopLimit;
  q.tClass = r.tClass;
  q.reversible = r.reversible;
  q.pkey = r.pkey;
  q.qosClass = r.qosClass;
  q.sl = r.sl;
  q.mtuSelector = r.mtuSelector;
  q.mtu = r.mtu;
  q.rateSelector = r.rateSelector;
  q.rate = r.rate;
  q.packetLifeTimeSelector = r.packetLifeTimeSelector;
  q.packetLifeTime = r.packetLifeTime;
  q.serviceId = (std::uint64_t{r.serviceIdMsb} << 56) | r.serviceIdLsb;
  std::uint64_t prBits = prMask::kSgid | prMask::kDgid | prMask::kNumbPath;
  for (const auto& [bit, pr] : kSameComponents)
    if ((mask >> bit) & 1U) prBits |= pr;
  if ((mask & kServiceId) == kServiceId) prBits |= prMask::kServiceId;
  return {q, prBits};
}

}  // namespace

std::expected<std::vector<PathRecord>, std::uint16_t> findMultiPaths(const SaSubnet& subnet,
                                                                     const MultiPathRecord& record,
                                                                     std::uint64_t mask,
                                                                     Lid requester) {
  constexpr std::uint64_t kCounts = mprMask::kSgidCount | mprMask::kDgidCount;
  if ((mask & kCounts) != kCounts) return std::unexpected(saStatus::kReqInsufficientComponents);
  if ((mask & kServiceId) != 0 && (mask & kServiceId) != kServiceId)
    return std::unexpected(saStatus::kReqInsufficientComponents);
  if (record.sgids.empty() || record.dgids.empty()) return std::unexpected(saStatus::kReqInvalid);
  const std::size_t most =
      (mask & mprMask::kNumbPath) && record.numbPath > 0 ? record.numbPath : kMaxPaths;
  auto [query, prBits] = pathQuery(record, mask);
  std::vector<PathRecord> out;
  for (const Gid& sgid : record.sgids) {
    for (const Gid& dgid : record.dgids) {
      if (out.size() >= most) return out;
      query.sgid = sgid;
      query.dgid = dgid;
      query.numbPath = static_cast<std::uint8_t>(most - out.size());
      const auto paths = findPaths(
          subnet,
          PathQuery{.query = query, .mask = prBits, .requester = requester, .single = false});
      if (!paths) return std::unexpected(paths.error());
      out.insert(out.end(), paths->begin(), paths->end());
    }
  }
  return out;
}

}  // namespace ibsm::sm::sa
