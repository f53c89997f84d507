// The fabric a generator builds, kept as named nodes and numbered cables
// until it is written out as an ibsim net file. Generators only add nodes
// and cables; degradation removes inter-switch cables; render() writes the
// file. Node order is file order, which fixes the GUIDs ibsim hands out.
// A system image GUID is the one thing a node carries beyond its name and
// ports: ibsim takes it from a `sysimgguid=` line that holds for the next
// record only, so render() writes one before each node that has its own.
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

  // Several nodes of one chassis (a switch and its SHARP aggregation node)
  // report the same SystemImageGUID; 0 leaves ibsim's default, the node GUID.
  void setSystemImageGuid(NetNode n, std::uint64_t guid) { nodes_.at(n).systemImageGuid = guid; }

  std::size_t nodeCount() const { return nodes_.size(); }
  bool isSwitch(NetNode n) const { return nodes_[n].isSwitch; }
  const std::string& name(NetNode n) const { return nodes_.at(n).name; }
  int ports(NetNode n) const { return static_cast<int>(nodes_.at(n).ports.size()) - 1; }
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
    std::uint64_t systemImageGuid{0};
  };

  void renderNode(std::string& out, const Node& node) const;

  std::vector<Node> nodes_;
  std::vector<NetCable> switchCables_;
  std::vector<bool> switchCableRemoved_;
};

}  // namespace ibsm::topogen
