// Which group each global port of a dragonfly group leads to. Every group
// has the same number of global ports; each pair of groups gets
// ports/(groups-1) links, and the remainder goes to extra links chosen as a
// circulant graph (group i to i±1, i±2, ...) so every group still uses the
// same number of ports and parallel links are spread over all pairs.
//
//   GlobalLinks links(9, 8, GlobalLinks::Order::Circulant);
//   auto far = links.peer(0, 0);  // {group 1, its port index 7}
#pragma once

#include <optional>
#include <vector>

namespace ibsm::topogen {

class GlobalLinks {
 public:
  // The order peers take within one round of ports:
  //   Circulant  port j of group A leads to group A+j+1 (mod groups), the
  //              arrangement of Kim et al. and of the dragonfly sample;
  //   Ascending  the other groups in ascending order (the dragonfly+ sample).
  enum class Order { Circulant, Ascending };

  struct Far {
    int group{0};
    int port{0};  // global port index within that group
  };

  // Requires 2 <= groups <= portsPerGroup + 1.
  GlobalLinks(int groups, int portsPerGroup, Order order);

  // The other end of global port `port` of `group`; nullopt when the port
  // stays uncabled (an odd remainder with an odd number of groups).
  std::optional<Far> peer(int group, int port) const;

 private:
  int peerInRound(int group, int j) const;
  int positionInRound(int group, int peerGroup) const;

  int groups_;
  int ports_;
  Order order_;
  int rounds_;                   // full rounds: links every pair gets
  std::vector<int> extras_;      // offsets of the extra links, one per extra port
  std::vector<int> extraIndex_;  // offset -> position in extras_, or -1
};

}  // namespace ibsm::topogen
