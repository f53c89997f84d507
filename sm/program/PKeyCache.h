// What each port's PKey table holds, as far as the SM knows, per 32-entry
// block: programming reads a block only when it is unknown and writes it
// only when it differs from the plan, so a sweep with unchanged partitions
// sends no PKey SMP at all. Kept across sweeps inside SwitchTableCache
// (whoever keeps that keeps this), keyed by node GUID and port number.
//
//   auto reads = cache.admit(key, blocks, reset);  // each sweep, per managed port
//   for (auto b : reads) ... Get PKeyTable block b, then cache.learned(key, b, contents)
//   if (cache.block(key, 0) != wanted) ... Set block 0; on failure cache.forget(key, 0)
//
// A port that was reset (its node lost its LID: rebooted, or replaced by a
// node with the same GUID after a power cycle) holds its default table
// again; admit() with reset = true drops what was known of it.
#pragma once

#include <ibsm/Ids.h>
#include <ibsm/MadAttributes.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

namespace ibsm::sm {

inline constexpr std::size_t kPKeyBlockSize = 32;

// Blocks needed for `entries` PKeys (NodeInfo:PartitionCap,
// SwitchInfo:PartitionEnforcementCap).
constexpr std::uint16_t pkeyBlocks(std::uint16_t entries) {
  return static_cast<std::uint16_t>((entries + kPKeyBlockSize - 1) / kPKeyBlockSize);
}

struct PKeyPortKey {
  Guid node;
  std::uint8_t port{0};
  auto operator<=>(const PKeyPortKey&) const = default;
};

class PKeyCache {
 public:
  // Called for every managed port a sweep finds, with the blocks its table
  // has. A port seen for the first time, reset, or with another block
  // count is taken afresh: all its blocks are returned, to be read.
  // Otherwise nothing is read; blocks still unknown are simply written.
  std::vector<std::uint16_t> admit(PKeyPortKey port, std::uint16_t blocks, bool reset);

  std::optional<PKeyBlock> block(PKeyPortKey port, std::uint16_t index) const;
  // A Get answered, or a Set was acknowledged.
  void learned(PKeyPortKey port, std::uint16_t index, const PKeyBlock& contents);
  // A Set failed: the port may hold the old or the new contents.
  void forget(PKeyPortKey port, std::uint16_t index);
  std::size_t size() const { return ports_.size(); }

  // A switch port acknowledged a PortInfo Set but kept its old
  // PartitionEnforcement bits (ibsim does): asking again every sweep would
  // only cost SMPs, so planning stops asking until the node is reset.
  void enforcementIgnored(PKeyPortKey port) { ignoresEnforcement_.insert(port); }
  bool ignoresEnforcement(PKeyPortKey port) const { return ignoresEnforcement_.contains(port); }

 private:
  std::map<PKeyPortKey, std::vector<std::optional<PKeyBlock>>> ports_;
  std::set<PKeyPortKey> ignoresEnforcement_;
};

}  // namespace ibsm::sm
