// What a PathRecord query's selectors (MTU, rate, PacketLifeTime: IBA
// 15.2.5.16) make of the path the routes offer, and the rate codes they
// order; apart from PathRecords.cpp, which finds the paths.
#include "sm/sa/PathSelectors.h"

#include <array>
#include <optional>
#include <utility>

namespace ibsm::sm::sa {
namespace {

// (rate code, Gb/s x 2), IBA 14.2.5.6 Table 145 / 15.2.5.16 Rate.
constexpr std::array<std::pair<std::uint8_t, unsigned>, 23> kRates{{
    {2, 5},    {5, 10},   {3, 20},   {11, 28},  {6, 40},    {15, 50},   {19, 56},   {4, 60},
    {7, 80},   {20, 100}, {12, 112}, {8, 120},  {9, 160},   {16, 200},  {13, 224},  {10, 240},
    {14, 336}, {17, 400}, {18, 600}, {21, 800}, {22, 1200}, {23, 1600}, {24, 2400},
}};

// A selector (IBA: 0 greater, 1 less, 2 exactly, 3 best) applied to what
// the path offers, on values ordered by `rank`; `below` gives the next
// lower value. False when the path cannot satisfy it.
template <typename Rank, typename Below>
bool select(std::uint8_t sel, std::uint8_t wanted, std::uint8_t& offered, Rank rank, Below below) {
  switch (sel) {
    case selector::kGreater:
      return rank(offered) > rank(wanted);
    case selector::kLess:
      if (rank(offered) < rank(wanted)) return true;
      if (auto lower = below(wanted)) return offered = *lower, true;
      return false;
    case selector::kExactly:
      if (rank(offered) < rank(wanted)) return false;
      offered = wanted;
      return true;
    default:
      return true;
  }
}

std::optional<std::uint8_t> rateBelow(std::uint8_t code) {
  std::optional<std::uint8_t> best;
  for (const auto& [c, v] : kRates) {
    if (v < rateHalfGbps(code) && (!best || v > rateHalfGbps(*best))) best = c;
  }
  return best;
}

std::optional<std::uint8_t> minusOne(std::uint8_t v, std::uint8_t floor) {
  return v > floor ? std::optional<std::uint8_t>(v - 1) : std::nullopt;
}

}  // namespace

bool applySelectors(const PathQuery& q, PathRecord& pr) {
  const auto has = [&](std::uint64_t bits) { return (q.mask & bits) == bits; };
  const auto id = [](std::uint8_t v) { return unsigned{v}; };
  if (has(prMask::kMtuSelector | prMask::kMtu) &&
      !select(q.query.mtuSelector, q.query.mtu, pr.mtu, id,
              [](std::uint8_t v) { return minusOne(v, 1); }))
    return false;
  if (has(prMask::kRateSelector | prMask::kRate) &&
      !select(q.query.rateSelector, q.query.rate, pr.rate, rateHalfGbps, rateBelow))
    return false;
  if (has(prMask::kPacketLifeSelector | prMask::kPacketLife)) {
    // A longer life is the safe side: "exactly" accepts a path whose life
    // is at most the one asked, and reports the one asked.
    const std::uint8_t sel = q.query.packetLifeTimeSelector;
    const std::uint8_t wanted = q.query.packetLifeTime;
    if (sel == selector::kGreater && pr.packetLifeTime <= wanted) return false;
    if (sel == selector::kLess && pr.packetLifeTime >= wanted) {
      if (wanted == 0) return false;
      pr.packetLifeTime = static_cast<std::uint8_t>(wanted - 1);
    }
    if (sel == selector::kExactly) {
      if (pr.packetLifeTime > wanted) return false;
      pr.packetLifeTime = wanted;
    }
  }
  return true;
}

std::uint8_t rateCode(const LinkAttrs& link) {
  static constexpr std::array<std::pair<std::uint8_t, unsigned>, 5> kLanes{
      {{1, 1}, {2, 4}, {4, 8}, {8, 12}, {16, 2}}};
  unsigned lanes = 1;
  for (const auto& [bit, n] : kLanes) {
    if (link.widthActive == bit) lanes = n;
  }
  unsigned lane = 5;  // SDR, Gb/s x 2
  if (link.speedActive == 2) lane = 10;
  if (link.speedActive == 4) lane = 20;
  if (link.extSpeedActive == 1) lane = 28;
  if (link.extSpeedActive == 2) lane = 50;
  if (link.extSpeedActive == 4) lane = 100;
  if (link.extSpeedActive == 8) lane = 200;
  return rateOfHalfGbps(lanes * lane);
}

unsigned rateHalfGbps(std::uint8_t code) {
  for (const auto& [c, v] : kRates) {
    if (c == code) return v;
  }
  return 0;
}

std::uint8_t rateOfHalfGbps(unsigned halfGbps) {
  std::uint8_t best = 2;
  unsigned bestValue = 0;
  for (const auto& [c, v] : kRates) {
    if (v <= halfGbps && v >= bestValue) best = c, bestValue = v;
  }
  return best;
}

}  // namespace ibsm::sm::sa
