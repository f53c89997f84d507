// IBA draws every MAD layout as big-endian bit fields: bit 0 is the most
// significant bit of byte 0, and a field may start anywhere and cross byte
// boundaries (PortInfo:LMC is 3 bits at bit 277). These helpers read and
// write such a field, so each layout can be written as a table of
// (member, bit offset, width) taken straight from the spec's tables.
#pragma once

#include <ibsm/Ids.h>

#include <cassert>
#include <cstdint>
#include <span>
#include <type_traits>

namespace ibsm::sm::mad {

inline std::uint64_t getBits(std::span<const std::uint8_t> buf, unsigned bit, unsigned width) {
  assert(width >= 1 && width <= 64 && (bit + width) <= buf.size() * 8);
  std::uint64_t value = 0;
  if (bit % 8 == 0 && width % 8 == 0) {  // most fields: whole bytes, big-endian
    for (unsigned b = bit / 8; b < (bit + width) / 8; ++b) value = (value << 8) | buf[b];
    return value;
  }
  for (unsigned i = bit; i < bit + width; ++i) {
    value = (value << 1) | ((buf[i / 8] >> (7 - i % 8)) & 1U);
  }
  return value;
}

inline void setBits(std::span<std::uint8_t> buf, unsigned bit, unsigned width,
                    std::uint64_t value) {
  assert(width >= 1 && width <= 64 && (bit + width) <= buf.size() * 8);
  if (bit % 8 == 0 && width % 8 == 0) {
    for (unsigned b = (bit + width) / 8; b-- > bit / 8; value >>= 8)
      buf[b] = static_cast<std::uint8_t>(value & 0xFFU);
    return;
  }
  for (unsigned i = bit + width; i-- > bit; value >>= 1) {
    const auto mask = static_cast<std::uint8_t>(0x80U >> (i % 8));
    buf[i / 8] =
        static_cast<std::uint8_t>((value & 1U) ? (buf[i / 8] | mask) : (buf[i / 8] & ~mask));
  }
}

// One named field of a layout: which member of S, where it sits on the wire.
template <typename S, typename T>
struct Field {
  T S::*member;
  std::uint16_t bit;
  std::uint8_t width;
};

template <typename T>
std::uint64_t toRaw(const T& v) {
  if constexpr (std::is_same_v<T, Guid> || std::is_same_v<T, Lid>) {
    return v.value;
  } else {
    return static_cast<std::uint64_t>(v);
  }
}

template <typename T>
T fromRaw(std::uint64_t raw) {
  if constexpr (std::is_same_v<T, Guid>) {
    return Guid{raw};
  } else if constexpr (std::is_same_v<T, Lid>) {
    return Lid{static_cast<std::uint16_t>(raw)};
  } else if constexpr (std::is_same_v<T, bool>) {
    return raw != 0;
  } else {
    return static_cast<T>(raw);
  }
}

// Encode and decode walk the same table, so they cannot disagree on a field.
template <typename S, typename Table>
void encodeFields(const S& value, const Table& table, std::span<std::uint8_t> out) {
  std::apply(
      [&](const auto&... f) { (setBits(out, f.bit, f.width, toRaw(value.*(f.member))), ...); },
      table);
}

template <typename S, typename Table>
void decodeFields(std::span<const std::uint8_t> in, const Table& table, S& value) {
  std::apply(
      [&](const auto&... f) {
        ((value.*(f.member) = fromRaw<std::remove_cvref_t<decltype(value.*(f.member))>>(
              getBits(in, f.bit, f.width))),
         ...);
      },
      table);
}

// A whole layout in and out of its data part (`Bytes`: SmpData, PerfData...).
template <typename Bytes, typename S, typename Table>
Bytes encodeLayout(const S& value, const Table& table) {
  Bytes out{};
  encodeFields(value, table, out);
  return out;
}

template <typename S, typename Bytes, typename Table>
S decodeLayout(const Bytes& data, const Table& table) {
  S value;
  decodeFields(data, table, value);
  return value;
}

}  // namespace ibsm::sm::mad
