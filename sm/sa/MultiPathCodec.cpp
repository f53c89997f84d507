// The MultiPathRecord's layout (IBA 15.2.5.20): a 24-byte record of the
// PathRecord's constraints, its two GID counts, then the GIDs themselves. It
// lives apart from SaRecordCodec.cpp because its length depends on its
// counts: the one SA record that is not a fixed size.
#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "sm/mad/BitField.h"
#include "sm/sa/SaRecords.h"

namespace ibsm {
namespace {

using sm::mad::Field;
using M = MultiPathRecord;

constexpr auto kMultiPathFields = std::tuple{
    Field{&M::rawTraffic, 0, 1},
    Field{&M::flowLabel, 4, 20},
    Field{&M::hopLimit, 24, 8},
    Field{&M::tClass, 32, 8},
    Field{&M::reversible, 40, 1},
    Field{&M::numbPath, 41, 7},
    Field{&M::pkey, 48, 16},
    Field{&M::qosClass, 64, 12},
    Field{&M::sl, 76, 4},
    Field{&M::mtuSelector, 80, 2},
    Field{&M::mtu, 82, 6},
    Field{&M::rateSelector, 88, 2},
    Field{&M::rate, 90, 6},
    Field{&M::packetLifeTimeSelector, 96, 2},
    Field{&M::packetLifeTime, 98, 6},
    Field{&M::serviceIdMsb, 104, 8},
    Field{&M::independenceSelector, 112, 2},
    Field{&M::serviceIdLsb, 136, 56},
};
constexpr unsigned kSgidCountBit = 120;
constexpr unsigned kDgidCountBit = 128;
constexpr std::size_t kGidBytes = 16;

}  // namespace

std::vector<std::uint8_t> encodeRecord(const MultiPathRecord& r) {
  std::vector<std::uint8_t> out(M::kSize + kGidBytes * (r.sgids.size() + r.dgids.size()), 0);
  const std::span<std::uint8_t> bytes(out);
  sm::mad::encodeFields(r, kMultiPathFields, bytes);
  sm::mad::setBits(bytes, kSgidCountBit, 8, r.sgids.size());
  sm::mad::setBits(bytes, kDgidCountBit, 8, r.dgids.size());
  auto at = out.begin() + M::kSize;
  for (const Gid& g : r.sgids) at = std::ranges::copy(g, at).out;
  for (const Gid& g : r.dgids) at = std::ranges::copy(g, at).out;
  return out;
}

template <>
Result<MultiPathRecord> decodeRecord(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < M::kSize) {
    return fail(fmt::format("MultiPathRecord of {} bytes: it takes {} before its GIDs",
                            bytes.size(), M::kSize));
  }
  M r;
  sm::mad::decodeFields(bytes, kMultiPathFields, r);
  const auto sources = sm::mad::getBits(bytes, kSgidCountBit, 8);
  const auto dests = sm::mad::getBits(bytes, kDgidCountBit, 8);
  const std::size_t needed = M::kSize + kGidBytes * (sources + dests);
  if (bytes.size() < needed) {
    return fail(
        fmt::format("MultiPathRecord of {} source and {} destination GIDs in {} bytes: "
                    "they take {}",
                    sources, dests, bytes.size(), needed));
  }
  const auto gidAt = [&](std::size_t i) {
    Gid g{};
    std::copy_n(bytes.begin() + static_cast<std::ptrdiff_t>(M::kSize + kGidBytes * i), g.size(),
                g.begin());
    return g;
  };
  for (std::size_t i = 0; i < sources; ++i) r.sgids.push_back(gidAt(i));
  for (std::size_t i = 0; i < dests; ++i) r.dgids.push_back(gidAt(sources + i));
  return r;
}

}  // namespace ibsm
