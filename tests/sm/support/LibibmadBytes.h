// The reference side of the layout tests: a buffer filled one field at a
// time by libibmad (mad_set_field and friends), an encoder written
// independently of ibsm's, to compare ibsm's bytes with. Tests that include
// this link libibmad (PkgConfig::IBMAD); the product never does.
#pragma once

#include <infiniband/mad.h>

#include <array>
#include <cstddef>
#include <cstdint>

namespace ibsm::testing {

template <std::size_t N>
struct LibibmadBytes {
  std::array<std::uint8_t, N> bytes{};
  LibibmadBytes& set(MAD_FIELDS f, std::uint32_t v) {
    mad_set_field(bytes.data(), 0, f, v);
    return *this;
  }
  LibibmadBytes& set64(MAD_FIELDS f, std::uint64_t v) {
    mad_set_field64(bytes.data(), 0, f, v);
    return *this;
  }
  LibibmadBytes& array(MAD_FIELDS f, const void* data) {
    mad_encode_field(bytes.data(), f, const_cast<void*>(data));
    return *this;
  }
};

}  // namespace ibsm::testing
