// The fabric a generator builds, kept as named nodes and numbered cables
// until it is written out as an ibsim net file. Generators only add nodes
// and cables; degradation removes inter-switch cables; render() writes the
// file. Node order is file order, which fixes the GUIDs ibsim hands out.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ibsm::topogen {

using NetNode = std::uint32_t;

// One end of a cable.
struct NetPort {
  NetNode node{0};
  int port{0};
};

struct NetCable {
  NetPort a;
  NetPort b;
};

class NetBuilder {
 public:
  NetNode addSwitch(std::string name, int ports);
  NetNode addHca(std::string name);  // one port, like the hosts of the samples
  // Ports must exist and be free: generators compute them, so a clash is a bug.
  void cable(NetPort a, NetPort b);

  std::size_t nodeCount() const { return nodes_.size(); }
  bool isSwitch(NetNode n) const { return nodes_[n].isSwitch; }
  // Cables with a switch at both ends, in the order they were made.
  const std::vector<NetCable>& switchCables() const { return switchCables_; }
  void removeSwitchCable(std::size_t index);

  // The net file, with `first` as its first record (the node ibsim attaches
  // the SM to) and every other node in the order it was added.
  std::string render(NetNode first) const;

 private:
  static constexpr NetNode kNoNode = ~NetNode{0};

  struct Peer {
    NetNode node{kNoNode};
    int port{0};
  };
  struct Node {
    std::string name;
    bool isSwitch{false};
    std::vector<Peer> ports;  // index = port number; [0] unused
  };

  void renderNode(std::string& out, const Node& node) const;

  std::vector<Node> nodes_;
  std::vector<NetCable> switchCables_;
  std::vector<bool> switchCableRemoved_;
};

}  // namespace ibsm::topogen
