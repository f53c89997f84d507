#include "sm/mad/MadRto.h"

#include <algorithm>

namespace ibsm {

MadRto::MadRto(Limits limits) : limits_(limits) {
  limits_.floor = std::max(limits_.floor, Duration(1));
  limits_.cap = std::max(limits_.cap, limits_.floor);
}

void MadRto::sample(std::size_t bucket, Duration rtt) {
  Estimate& e = estimates_.at(bucket);
  rtt = std::max(rtt, Duration(0));
  if (e.samples++ == 0) {
    // RFC 6298 2.2: the first measurement R gives SRTT = R, RTTVAR = R/2.
    e.srtt = rtt;
    e.rttvar = rtt / 2;
    return;
  }
  // RFC 6298 2.3, alpha = 1/8 and beta = 1/4: RTTVAR first, from the old SRTT.
  const Duration deviation = e.srtt > rtt ? e.srtt - rtt : rtt - e.srtt;
  e.rttvar = (3 * e.rttvar + deviation) / 4;
  e.srtt = (7 * e.srtt + rtt) / 8;
}

MadRto::Duration MadRto::rto(std::size_t bucket) const {
  const Estimate& e = estimates_.at(bucket);
  if (e.samples == 0) return std::max(limits_.initial, limits_.floor);
  return std::clamp(e.srtt + 4 * e.rttvar, limits_.floor, limits_.cap);
}

MadRto::Duration MadRto::timeout(std::size_t bucket, unsigned attempt) const {
  Duration t = rto(bucket);
  // Not measured yet: the initial timeout is already the cautious one.
  if (estimates_.at(bucket).samples == 0) return t;
  for (unsigned n = 1; n < attempt && t < limits_.cap; ++n) t *= 2;
  return std::min(t, limits_.cap);
}

std::vector<MadRto::Learnt> MadRto::learnt() const {
  std::vector<Learnt> out;
  for (std::size_t key = 0; key < kKeys; ++key) {
    const Estimate& e = estimates_[key];
    if (e.samples == 0) continue;
    const std::size_t bucket = key / kKinds;
    out.push_back(Learnt{.lidRouted = bucket == MadLoss::kLidRouted,
                         .hops = bucket == MadLoss::kLidRouted ? 0 : bucket,
                         .kind = static_cast<Kind>(key % kKinds),
                         .estimate = e,
                         .timeout = rto(key)});
  }
  return out;
}

std::string_view MadRto::kindName(Kind kind) {
  switch (kind) {
    case Kind::Get:
      return "get";
    case Kind::Set:
      return "set";
    case Kind::TableSet:
      return "table_set";
  }
  return "get";
}

}  // namespace ibsm
