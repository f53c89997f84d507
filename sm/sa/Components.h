// The component mask (IBA 15.2.4.1): bit i of a query's ComponentMask says
// that the i-th field of the query's record must match. Each record's
// components are listed here in mask-bit order as (bit, width) in the
// record's encoding, so matching compares the encoded bytes of a candidate
// and of the query directly: no decoding, and one table per record beside
// its layout (SaRecordCodec.cpp) that tests hold against each other.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace ibsm::sm::sa {

// MCMemberRecord's component mask bits (IBA 15.2.5.17), by name: the SA
// reads a membership request by them, not only matches bytes.
namespace mcmMask {
inline constexpr std::uint64_t kMgid = 1ULL << 0;
inline constexpr std::uint64_t kPortGid = 1ULL << 1;
inline constexpr std::uint64_t kQKey = 1ULL << 2;
inline constexpr std::uint64_t kMlid = 1ULL << 3;
inline constexpr std::uint64_t kMtuSelector = 1ULL << 4;
inline constexpr std::uint64_t kMtu = 1ULL << 5;
inline constexpr std::uint64_t kTClass = 1ULL << 6;
inline constexpr std::uint64_t kPKey = 1ULL << 7;
inline constexpr std::uint64_t kRateSelector = 1ULL << 8;
inline constexpr std::uint64_t kRate = 1ULL << 9;
inline constexpr std::uint64_t kLifeSelector = 1ULL << 10;
inline constexpr std::uint64_t kLife = 1ULL << 11;
inline constexpr std::uint64_t kSl = 1ULL << 12;
inline constexpr std::uint64_t kFlowLabel = 1ULL << 13;
inline constexpr std::uint64_t kHopLimit = 1ULL << 14;
inline constexpr std::uint64_t kScope = 1ULL << 15;
inline constexpr std::uint64_t kJoinState = 1ULL << 16;
inline constexpr std::uint64_t kProxyJoin = 1ULL << 17;
// What every Set and Delete names (o15-0.1.x): the group, the port, the bits.
inline constexpr std::uint64_t kJoin = kMgid | kPortGid | kJoinState;
// What a Set that creates a group must give besides (o15-0.2.3); MTU, rate,
// packet life and hop limit the SA may choose.
inline constexpr std::uint64_t kCreate = kJoin | kQKey | kTClass | kPKey | kFlowLabel | kSl;
}  // namespace mcmMask

struct Component {
  std::uint16_t bit{0};
  std::uint16_t width{0};
  // The candidate must have every bit the query has set (OpenSM's rule for
  // PortInfoRecord:CapabilityMask, which srp_daemon relies on), not equal it.
  bool subset{false};
};

// The components of a record attribute in mask order; empty for an
// attribute that has none (ClassPortInfo) or that the SA does not serve.
std::span<const Component> componentsOf(std::uint16_t attributeId);

// The padded size of a record attribute's records (AttributeOffset * 8);
// 0 for an attribute the SA does not serve.
std::size_t recordSizeOf(std::uint16_t attributeId);

// True when `mask` selects no bit past the record's last component.
bool maskFits(std::uint64_t mask, std::span<const Component> components);

// Whether `candidate` equals `query` in every component `mask` selects.
// Both are encoded records of the same attribute.
bool matches(std::span<const std::uint8_t> candidate, std::span<const std::uint8_t> query,
             std::uint64_t mask, std::span<const Component> components);

}  // namespace ibsm::sm::sa
