#include "sm/sa/MultiPathRecords.h"

#include <algorithm>
#include <array>
#include <span>
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

// The cables a path's packets cross from its SLID's port toward its DLID,
// each as (node << 8 | out port), as the snapshot's LFTs route them; empty
// where the route is cut.
std::vector<std::uint64_t> linksOf(const SaSubnet& subnet, const PathRecord& path) {
  std::vector<std::uint64_t> links;
  const auto from = subnet.portOfLid(path.slid);
  if (!from) return links;
  const Fabric& fabric = subnet.fabric();
  PortRef at = *from;
  constexpr int kMostHops = 64;
  for (int hop = 0; hop < kMostHops; ++hop) {
    std::uint8_t out = at.port;
    if (fabric.node(at.node).isSwitch()) {
      const Lft* lft = subnet.lft(at.node);
      out = lft ? lft->at(path.dlid) : kNoRoute;
      if (out == 0 || out == kNoRoute || out >= fabric.node(at.node).ports.size()) break;
    } else if (hop > 0) {
      break;  // arrived at an end port
    }
    links.push_back(std::uint64_t{at.node} << 8 | out);
    const auto& remote = fabric.port({at.node, out}).remote;
    if (!remote) break;
    at = *remote;
  }
  std::ranges::sort(links);
  return links;
}

// Reorders `paths` so that each comes after the ones that share fewest
// cables with those before it (IBA 15.2.5.20's independent paths): the
// first stays first, ties keep their order. A few dozen paths at most, so
// plainly quadratic.
void mostIndependentFirst(const SaSubnet& subnet, std::span<PathRecord> paths) {
  if (paths.size() < 2) return;
  std::vector<std::vector<std::uint64_t>> links;
  links.reserve(paths.size());
  for (const PathRecord& p : paths) links.push_back(linksOf(subnet, p));
  std::vector<std::uint32_t> shared(paths.size(), 0);  // with the paths placed so far
  for (std::size_t placed = 0; placed + 1 < paths.size(); ++placed) {
    for (std::size_t i = placed + 1; i < paths.size(); ++i)
      for (const std::uint64_t l : links[i])
        shared[i] += std::ranges::binary_search(links[placed], l);
    std::size_t best = placed + 1;
    for (std::size_t i = best + 1; i < paths.size(); ++i)
      if (shared[i] < shared[best]) best = i;
    // Move the best to placed + 1, keeping the others' order.
    const auto rot = [&](auto& v) {
      std::rotate(v.begin() + static_cast<std::ptrdiff_t>(placed + 1),
                  v.begin() + static_cast<std::ptrdiff_t>(best),
                  v.begin() + static_cast<std::ptrdiff_t>(best + 1));
    };
    std::rotate(paths.begin() + static_cast<std::ptrdiff_t>(placed + 1),
                paths.begin() + static_cast<std::ptrdiff_t>(best),
                paths.begin() + static_cast<std::ptrdiff_t>(best + 1));
    rot(links);
    rot(shared);
  }
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
  const bool independent = record.independenceSelector != 0;
  for (const Gid& sgid : record.sgids) {
    for (const Gid& dgid : record.dgids) {
      if (out.size() >= most && !independent) return out;
      query.sgid = sgid;
      query.dgid = dgid;
      // Every LID pair of the two ports, the most independent kept first.
      query.numbPath = static_cast<std::uint8_t>(kMaxPaths);
      auto paths = findPaths(
          subnet,
          PathQuery{.query = query, .mask = prBits, .requester = requester, .single = false});
      if (!paths) return std::unexpected(paths.error());
      mostIndependentFirst(subnet, *paths);
      const std::size_t room = independent ? paths->size() : most - out.size();
      out.insert(out.end(), paths->begin(),
                 paths->begin() + static_cast<std::ptrdiff_t>(std::min(room, paths->size())));
    }
  }
  // IndependenceSelector: over every port pair, the most independent first.
  if (independent) {
    mostIndependentFirst(subnet, out);
    if (out.size() > most) out.resize(most);
  }
  return out;
}

}  // namespace ibsm::sm::sa
