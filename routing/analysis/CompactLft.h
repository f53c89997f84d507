// Internals of the compact LFT dump shared by its writer and reader
// (the layout is in include/ibsm/Dumps.h).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace ibsm::compact_lft {

inline constexpr std::size_t kHeaderBytes = 24;
inline constexpr std::size_t kTrailerBytes = 24;
inline constexpr std::size_t kRecordHead = 16;  // GUID, LID, description length, entries
inline constexpr std::string_view kEndMagic{"IBSM-END", 8};
inline constexpr std::uint16_t kCodecStored = 0;
inline constexpr std::uint16_t kCodecZstd = 1;

template <typename T>
inline void put(std::string& out, T value) {
  for (std::size_t i = 0; i < sizeof(T); ++i)
    out.push_back(static_cast<char>((static_cast<std::uint64_t>(value) >> (8 * i)) & 0xFF));
}

template <typename T>
inline T get(const char* p) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i)
    v |= std::uint64_t{static_cast<unsigned char>(p[i])} << (8 * i);
  return static_cast<T>(v);
}

// A 64-bit check of the tables, chained record by record: four lanes of
// multiply-xor over 8-byte words so it runs near memory speed.
inline std::uint64_t checksum(std::string_view bytes, std::uint64_t seed) {
  constexpr std::uint64_t kMul = 0x9E3779B97F4A7C15ULL;
  std::uint64_t lane[4] = {seed, seed ^ 0x243F6A8885A308D3ULL, seed ^ 0x13198A2E03707344ULL,
                           seed ^ 0xA4093822299F31D0ULL};
  const char* p = bytes.data();
  std::size_t n = bytes.size();
  for (; n >= 32; p += 32, n -= 32)
    for (int i = 0; i < 4; ++i) {
      std::uint64_t w;
      std::memcpy(&w, p + 8 * i, 8);
      lane[i] = std::rotl((lane[i] ^ w) * kMul, 31);
    }
  std::uint64_t h = bytes.size();
  for (const std::uint64_t l : lane) h = std::rotl((h ^ l) * kMul, 27);
  for (; n > 0; ++p, --n) h = (h ^ static_cast<unsigned char>(*p)) * kMul;
  return h ^ (h >> 32);
}

}  // namespace ibsm::compact_lft
