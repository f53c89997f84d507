#include "sm/mad/MadLoss.h"

#include <algorithm>
#include <cmath>

namespace ibsm {

std::size_t MadLoss::bucketOf(const std::variant<DrPath, Lid>& to) {
  if (const auto* path = std::get_if<DrPath>(&to))
    return std::min<std::size_t>(path->hopCount(), kLidRouted - 1);
  return kLidRouted;
}

void MadLoss::answeredAt(std::size_t bucket, unsigned attempt) {
  for (unsigned lost = 1; lost < attempt; ++lost) update(bucket, 1.0);
  update(bucket, 0.0);
}

void MadLoss::update(std::size_t bucket, double sample) {
  double& r = rate_.at(bucket);
  r += kWeight * (sample - r);
}

unsigned MadLoss::attemptsFor(std::size_t bucket, const Limits& limits) const {
  const unsigned floor = std::max(limits.floor, 1U);
  const unsigned ceiling = std::max(limits.ceiling, floor);
  const double q = lossRate(bucket);
  if (q <= 0.0) return floor;
  if (q >= 1.0) return ceiling;
  // q^n <= target  <=>  n >= log(target) / log(q)
  const double n = std::ceil(std::log(limits.target) / std::log(q));
  return static_cast<unsigned>(std::clamp<double>(n, floor, ceiling));
}

}  // namespace ibsm
