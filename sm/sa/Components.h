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
