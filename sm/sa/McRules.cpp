#include "sm/sa/McRules.h"

#include <algorithm>

#include "sm/sa/Components.h"
#include "sm/sa/PathRecords.h"

namespace ibsm::sm::sa {
namespace {

constexpr std::uint16_t kIpv4Signature = 0x401B;
constexpr std::uint16_t kIpv6Signature = 0x601B;
constexpr std::uint16_t kSaAssignedSignature = 0xA01B;
constexpr std::uint8_t kReservedFlags = 0xE0;  // of byte 1's high nibble: only T may be set
constexpr std::uint16_t kPKeyBase = 0x7FFF;
constexpr std::uint16_t kFullMember = 0x8000;
constexpr std::uint8_t kMinMtu = 1, kMaxMtu = 5;

std::uint16_t signature(const Gid& mgid) {
  return static_cast<std::uint16_t>((mgid[2] << 8) | mgid[3]);
}

bool has(std::uint64_t mask, std::uint64_t bits) {
  return (mask & bits) == bits;
}

// The next rate code below `code` in bandwidth, if any.
std::optional<std::uint8_t> rateBelow(std::uint8_t code) {
  const unsigned half = rateHalfGbps(code);
  if (half <= 1) return std::nullopt;
  const std::uint8_t below = rateOfHalfGbps(half - 1);
  if (rateHalfGbps(below) == 0 || rateHalfGbps(below) >= half) return std::nullopt;
  return below;
}

// One of MTU or rate for a new group: the port's where the request leaves
// room, else what the selector names, refused where the port cannot.
std::optional<std::uint8_t> choose(bool given, std::uint8_t selector, std::uint8_t wanted,
                                   std::uint8_t port, bool isRate) {
  if (!given || selector == selector::kLargest) return port;
  const auto order = [&](std::uint8_t v) { return isRate ? rateHalfGbps(v) : unsigned{v}; };
  switch (selector) {
    case selector::kGreater:
      if (order(wanted) >= order(port)) return std::nullopt;
      return port;
    case selector::kLess:
      if (order(wanted) > order(port)) return port;
      if (isRate) return rateBelow(wanted);
      return wanted > kMinMtu ? std::optional<std::uint8_t>(wanted - 1) : std::nullopt;
    default:
      return wanted;
  }
}

}  // namespace

std::uint8_t mgidScope(const Gid& mgid) {
  return mgid[1] & 0x0F;
}

bool isZeroGid(const Gid& gid) {
  return std::ranges::all_of(gid, [](std::uint8_t b) { return b == 0; });
}

bool isKnownScope(std::uint8_t scope) {
  return scope == mcScope::kLinkLocal || scope == mcScope::kSiteLocal ||
         scope == mcScope::kOrganizationLocal || scope == mcScope::kGlobal;
}

bool isValidRequestedMgid(const Gid& mgid, std::uint64_t subnetPrefix) {
  if (mgid[0] != 0xFF || (mgid[1] & kReservedFlags) != 0) return false;
  if (!isKnownScope(mgidScope(mgid))) return false;
  if (signature(mgid) != kSaAssignedSignature || mgidScope(mgid) != mcScope::kLinkLocal)
    return true;
  std::uint64_t prefix = 0;
  for (int i = 4; i < 12; ++i) prefix = (prefix << 8) | mgid[i];
  return prefix == subnetPrefix;
}

bool isIpoibMgid(const Gid& mgid) {
  return signature(mgid) == kIpv4Signature || signature(mgid) == kIpv6Signature;
}

Gid ipoibBroadcastOf(const Gid& mgid) {
  // ff1<scope>:401b:<pkey>:0000:0000:0000:ffff:ffff (RFC 4391 section 4).
  Gid b{};
  b[0] = 0xFF;
  b[1] = static_cast<std::uint8_t>(0x10 | mgidScope(mgid));
  b[2] = kIpv4Signature >> 8;
  b[3] = kIpv4Signature & 0xFF;
  b[4] = mgid[4];
  b[5] = mgid[5];
  std::fill(b.begin() + 12, b.end(), std::uint8_t{0xFF});
  return b;
}

bool isIpoibBroadcast(const Gid& mgid) {
  return signature(mgid) == kIpv4Signature && ipoibBroadcastOf(mgid) == mgid;
}

std::uint8_t portMtu(const Fabric& fabric, PortRef port) {
  const Port& own = fabric.port(port);
  if (!own.remote) return own.mtuCap;
  return std::min(own.mtuCap, fabric.port(*own.remote).mtuCap);
}

std::uint8_t portRate(const Fabric& fabric, PortRef port) {
  return rateCode(fabric.port(port).link);
}

bool isValidMtu(std::uint8_t code) {
  return code >= kMinMtu && code <= kMaxMtu;
}

bool isValidRate(std::uint8_t code) {
  return rateHalfGbps(code) != 0;
}

bool givenLinkValuesValid(const McMemberRecord& r, std::uint64_t mask) {
  if (has(mask, mcmMask::kMtuSelector | mcmMask::kMtu) && !isValidMtu(r.mtu)) return false;
  return !has(mask, mcmMask::kRateSelector | mcmMask::kRate) || isValidRate(r.rate);
}

bool holdsPKey(std::span<const std::uint16_t> table, std::uint16_t pkey) {
  const std::uint16_t base = pkey & kPKeyBase;
  return base != 0 &&
         std::ranges::any_of(table, [&](std::uint16_t mine) { return (mine & kPKeyBase) == base; });
}

bool sharePKey(std::span<const std::uint16_t> a, std::span<const std::uint16_t> b) {
  return std::ranges::any_of(a, [&](std::uint16_t x) {
    return std::ranges::any_of(b, [&](std::uint16_t y) {
      return (x & kPKeyBase) != 0 && (x & kPKeyBase) == (y & kPKeyBase) &&
             ((x | y) & kFullMember) != 0;
    });
  });
}

bool selectorAccepts(std::uint8_t sel, std::uint8_t wanted, std::uint8_t have, bool isRate) {
  const auto order = [&](std::uint8_t v) { return isRate ? rateHalfGbps(v) : unsigned{v}; };
  switch (sel) {
    case selector::kGreater:
      return order(have) > order(wanted);
    case selector::kLess:
      return order(have) < order(wanted);
    case selector::kExactly:
      return order(have) == order(wanted);
    default:
      return true;
  }
}

std::optional<McLinkChoice> chooseLink(const McMemberRecord& r, std::uint64_t mask,
                                       std::uint8_t portMtu, std::uint8_t portRate) {
  const auto mtu = choose(has(mask, mcmMask::kMtuSelector | mcmMask::kMtu), r.mtuSelector, r.mtu,
                          portMtu, false);
  const auto rate = choose(has(mask, mcmMask::kRateSelector | mcmMask::kRate), r.rateSelector,
                           r.rate, portRate, true);
  if (!mtu || !rate || !isValidMtu(*mtu) || !isValidRate(*rate)) return std::nullopt;
  return McLinkChoice{.mtu = *mtu, .rate = *rate};
}

bool matchesGroupParams(const McGroupParams& g, const McMemberRecord& q, std::uint64_t mask) {
  if ((mask & mcmMask::kQKey) && q.qkey != g.qkey) return false;
  if (mask & mcmMask::kPKey) {
    if (((q.pkey | g.pkey) & kFullMember) == 0) return false;  // both limited
    if ((q.pkey & kPKeyBase) != (g.pkey & kPKeyBase)) return false;
  }
  if ((mask & mcmMask::kTClass) && q.tClass != g.tclass) return false;
  if ((mask & mcmMask::kSl) && q.sl != g.sl) return false;
  if ((mask & mcmMask::kFlowLabel) && q.flowLabel != g.flowLabel) return false;
  if ((mask & mcmMask::kHopLimit) && q.hopLimit != g.hopLimit) return false;
  if ((mask & mcmMask::kScope) && q.scope != g.scope) return false;
  if (has(mask, mcmMask::kMtuSelector | mcmMask::kMtu) &&
      !selectorAccepts(q.mtuSelector, q.mtu, g.mtu, false))
    return false;
  if (has(mask, mcmMask::kRateSelector | mcmMask::kRate) &&
      !selectorAccepts(q.rateSelector, q.rate, g.rate, true))
    return false;
  return !has(mask, mcmMask::kLifeSelector | mcmMask::kLife) ||
         selectorAccepts(q.packetLifeTimeSelector, q.packetLifeTime, g.packetLifeTime, false);
}

McMemberRecord groupRecord(const Gid& mgid, Lid mlid, const McGroupParams& p) {
  McMemberRecord r;
  r.mgid = mgid;
  r.qkey = p.qkey;
  r.mlid = mlid;
  r.mtuSelector = r.rateSelector = r.packetLifeTimeSelector = selector::kExactly;
  r.mtu = p.mtu;
  r.tClass = p.tclass;
  r.pkey = p.pkey;
  r.rate = p.rate;
  r.packetLifeTime = p.packetLifeTime;
  r.sl = p.sl;
  r.flowLabel = p.flowLabel;
  r.hopLimit = p.hopLimit;
  r.scope = p.scope;
  return r;
}

}  // namespace ibsm::sm::sa
