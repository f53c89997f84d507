// What each switch's linear forwarding table holds, as far as the SM knows,
// per 64-entry block. Programming writes only blocks that differ from the
// plan or whose contents are unknown, so a sweep that changes nothing sends
// no LFT Sets, and a restarted SM on a running fabric rewrites only what is
// wrong. The cache outlives sweeps and is keyed by node GUID (NodeIds are
// only meaningful within one Fabric).
//
//   auto reads = cache.admit(guid, Lid{switchInfo.linearFdbTop});  // each sweep
//   for (auto b : reads) ... Get LFT block b, then cache.learned(guid, b, contents)
//   if (cache.block(guid, 3) != planned) ... Set block 3; on failure cache.forget(guid, 3)
#pragma once

#include <ibsm/Ids.h>
#include <ibsm/MadAttributes.h>

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "PKeyCache.h"
#include "Sl2VlCache.h"

namespace ibsm::sm {

inline constexpr std::size_t kLftBlockSize = 64;

// The block a switch holds when nothing was ever programmed: every LID unrouted.
LftBlock emptyLftBlock();

class SwitchTableCache {
 public:
  // Called for every switch a sweep finds, with the LinearFDBTop it read.
  // A switch seen for the first time, or whose LinearFDBTop is not what the
  // SM last wrote or read (it rebooted, or someone else programmed it), is
  // taken afresh: with LinearFDBTop 0 it holds nothing; otherwise its
  // blocks up to LinearFDBTop are unknown and returned, to be read.
  std::vector<std::uint16_t> admit(Guid sw, Lid linearFdbTop);

  // The block's contents, or nullopt when they are not known.
  std::optional<LftBlock> block(Guid sw, std::uint16_t index) const;
  bool knows(Guid sw) const { return switches_.contains(sw); }
  std::size_t size() const { return switches_.size(); }

  // A Get answered, or a Set was acknowledged.
  void learned(Guid sw, std::uint16_t index, const LftBlock& contents);
  // A Set failed: the switch may hold the old or the new contents.
  void forget(Guid sw, std::uint16_t index);
  // LinearFDBTop as the SM wrote it, or unknown after a failed Set (the
  // next admit() then takes whatever the switch reports, keeping blocks).
  void topWritten(Guid sw, Lid top);
  void topUncertain(Guid sw);

  // The ports' PKey tables live here too, so that the one cache a sweep
  // loop keeps (and drops when it loses mastership) covers both.
  PKeyCache& pkeys() { return pkeys_; }
  const PKeyCache& pkeys() const { return pkeys_; }
  // And the switches' SL2VL tables (routing engines that need VLs).
  Sl2VlCache& sl2vl() { return sl2vl_; }
  const Sl2VlCache& sl2vl() const { return sl2vl_; }

 private:
  struct Entry {
    std::optional<Lid> top;
    std::vector<std::optional<LftBlock>> blocks;  // index = block number
    bool restEmpty{false};                        // blocks past `blocks` hold nothing (vs. unknown)
  };
  std::optional<LftBlock>& slot(Guid sw, std::uint16_t index);

  std::unordered_map<Guid, Entry> switches_;
  PKeyCache pkeys_;
  Sl2VlCache sl2vl_;
};

}  // namespace ibsm::sm
