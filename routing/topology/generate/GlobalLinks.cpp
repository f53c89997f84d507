#include "routing/topology/generate/GlobalLinks.h"

namespace ibsm::topogen {

GlobalLinks::GlobalLinks(int groups, int portsPerGroup, Order order)
    : groups_(groups), ports_(portsPerGroup), order_(order) {
  const int others = groups_ - 1;
  rounds_ = ports_ / others;
  const int remainder = ports_ % others;
  // Offsets come in pairs o and groups-o, so the link A -> A+o is the same
  // cable as (A+o) -> A; offset groups/2 is its own partner.
  for (int o = 1; 2 * o < groups_ && static_cast<int>(extras_.size()) + 2 <= remainder; ++o) {
    extras_.push_back(o);
    extras_.push_back(groups_ - o);
  }
  if (static_cast<int>(extras_.size()) < remainder && groups_ % 2 == 0)
    extras_.push_back(groups_ / 2);
  extraIndex_.assign(static_cast<std::size_t>(groups_), -1);
  for (std::size_t i = 0; i < extras_.size(); ++i) extraIndex_[extras_[i]] = static_cast<int>(i);
}

int GlobalLinks::peerInRound(int group, int j) const {
  if (order_ == Order::Circulant) return (group + j + 1) % groups_;
  return j < group ? j : j + 1;
}

int GlobalLinks::positionInRound(int group, int peerGroup) const {
  if (order_ == Order::Circulant) return (peerGroup - group - 1 + groups_) % groups_;
  return peerGroup < group ? peerGroup : peerGroup - 1;
}

std::optional<GlobalLinks::Far> GlobalLinks::peer(int group, int port) const {
  const int others = groups_ - 1;
  if (port < rounds_ * others) {
    // The k-th link of a pair sits in round k on both sides.
    const int round = port / others;
    const int far = peerInRound(group, port % others);
    return Far{far, round * others + positionInRound(far, group)};
  }
  const int extra = port - rounds_ * others;
  if (extra >= static_cast<int>(extras_.size())) return std::nullopt;
  const int offset = extras_[extra];
  const int far = (group + offset) % groups_;
  return Far{far, rounds_ * others + extraIndex_[(groups_ - offset) % groups_]};
}

}  // namespace ibsm::topogen
