// The test client's own MCMemberRecord codec (IBA 15.2.5.17), field by
// field, independent of ibsm's (sm/sa/SaRecords.h): the client judges
// an SA's multicast answers, so it must not share the SA's encoder.
//
//   McMemberRecord r;
//   r.mgid = parseGid("ff12:401b:ffff::ffff:ffff").value();
//   r.joinState = 0x1;
//   r.encode(mad.data());                  // into a request's SA data
//   McMemberRecord a = McMemberRecord::decode(answer.data());
//
// Offsets in the record (bytes): MGID 0, PortGID 16, Q_Key 32, MLID 36,
// MTUSelector:2|MTU:6 38, TClass 39, P_Key 40, RateSelector:2|Rate:6 42,
// PacketLifeTimeSelector:2|PacketLifeTime:6 43, SL:4|FlowLabel:20|HopLimit:8
// 44, Scope:4|JoinState:4 48, ProxyJoin:1 49 (the high bit).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "SaPort.h"

namespace ibsm::test::sa {

inline constexpr std::uint16_t kMcMemberRecord = 0x0038;

// ComponentMask bits of MCMemberRecord (IBA 15.2.5.17, in field order).
namespace mcr {
inline constexpr std::uint64_t kMgid = 1ULL << 0, kPortGid = 1ULL << 1, kQkey = 1ULL << 2,
                               kMlid = 1ULL << 3, kMtuSelector = 1ULL << 4, kMtu = 1ULL << 5,
                               kTclass = 1ULL << 6, kPkey = 1ULL << 7, kRateSelector = 1ULL << 8,
                               kRate = 1ULL << 9, kPacketLifeTimeSelector = 1ULL << 10,
                               kPacketLifeTime = 1ULL << 11, kSl = 1ULL << 12,
                               kFlowLabel = 1ULL << 13, kHopLimit = 1ULL << 14, kScope = 1ULL << 15,
                               kJoinState = 1ULL << 16, kProxyJoin = 1ULL << 17;
// What the IBA (o15-0.1.8) requires of a Set that creates a group, MTU and
// rate with their selectors beside.
inline constexpr std::uint64_t kCreate = kMgid | kPortGid | kQkey | kTclass | kPkey | kFlowLabel |
                                         kSl | kJoinState | kMtuSelector | kMtu | kRateSelector |
                                         kRate;
// A plain join of an existing group.
inline constexpr std::uint64_t kJoin = kMgid | kPortGid | kJoinState;
}  // namespace mcr

inline constexpr std::uint8_t kSelectorExactly = 2;

using Gid = std::array<std::uint8_t, 16>;

// "ff12:401b:ffff::ffff:ffff" (inet6 text) or "0" (all zero); nullopt when
// it is neither.
std::optional<Gid> parseGid(const std::string& text);
std::string formatGid(const Gid& gid);  // inet6 text, lower case, :: for zeros
Gid makeGid(std::uint64_t prefix, std::uint64_t guid);
std::uint64_t gidGuid(const Gid& gid);  // the interface ID (low 64 bits)

struct McMemberRecord {
  Gid mgid{};
  Gid portGid{};
  std::uint32_t qkey = 0;
  std::uint16_t mlid = 0;
  std::uint8_t mtuSelector = 0, mtu = 0;
  std::uint8_t tclass = 0;
  std::uint16_t pkey = 0;
  std::uint8_t rateSelector = 0, rate = 0;
  std::uint8_t packetLifeTimeSelector = 0, packetLifeTime = 0;
  std::uint8_t sl = 0;
  std::uint32_t flowLabel = 0;
  std::uint8_t hopLimit = 0;
  std::uint8_t scope = 0;
  std::uint8_t joinState = 0;
  bool proxyJoin = false;

  void encode(Bytes record) const;
  static McMemberRecord decode(Bytes record);
};

}  // namespace ibsm::test::sa
