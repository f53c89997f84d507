// What the SM knows one kind of device table holds, per owner (a switch's
// LFT, a port's PKey table, a port pair's SL2VL table) and per block -- the
// unit in which such tables are read and written. Programming reads a block
// only when it is worth knowing and writes it only when it differs from the
// plan, so a quiet sweep sends no table SMP at all, and a restarted SM on a
// running fabric rewrites only what is wrong.
//
//   BlockTable<Guid, LftBlock> lfts;
//   lfts.reset(sw, 3, BlockState::Unknown);       // a switch taken afresh: read its 3 blocks
//   lfts.learned(sw, 0, block);                   // a Get answered, or a Set acknowledged
//   lfts.forgotten(sw, 1);                        // a Set failed: write it again, unread
//   if (lfts.block(sw, 0) != planned) ...         // nullopt unless Known
//
// Owners are keyed by GUIDs, never NodeIds: the table outlives the Fabric
// of one sweep. Pure; HeldSubnet owns one per table kind.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <vector>

namespace ibsm::sm::program {

enum class BlockState : std::uint8_t {
  Unknown,  // contents not known; worth reading before writing (the device may hold the plan)
  Known,    // the device holds `block`: read back, or a Set acknowledged
  Stale,    // not known and not worth reading (a Set failed, or beyond what the device
            // uses): written outright, which costs what a read would
};

template <typename Owner, typename Block>
class BlockTable {
 public:
  struct Slot {
    BlockState state{BlockState::Unknown};
    Block block{};
  };

  // The owner is tracked (seen since it was last reset or erased).
  bool has(const Owner& owner) const { return owners_.contains(owner); }
  // Blocks tracked for the owner (0 when it is not tracked).
  std::size_t blocks(const Owner& owner) const {
    auto it = owners_.find(owner);
    return it == owners_.end() ? 0 : it->second.slots.size();
  }
  std::size_t size() const { return owners_.size(); }

  // Takes the owner afresh: `count` blocks in `state`, and the blocks past
  // them holding `rest` (Known) or, without it, Stale.
  void reset(const Owner& owner, std::size_t count, BlockState state,
             std::optional<Block> rest = std::nullopt) {
    Entry& e = owners_[owner];
    e.slots.assign(count, Slot{state, Block{}});
    e.rest = std::move(rest);
  }
  void erase(const Owner& owner) { owners_.erase(owner); }
  void eraseIf(const std::function<bool(const Owner&)>& pred) {
    std::erase_if(owners_, [&](const auto& kv) { return pred(kv.first); });
  }

  // An untracked owner's blocks are Unknown.
  BlockState state(const Owner& owner, std::uint16_t index) const {
    auto it = owners_.find(owner);
    if (it == owners_.end()) return BlockState::Unknown;
    const Entry& e = it->second;
    if (index < e.slots.size()) return e.slots[index].state;
    return e.rest ? BlockState::Known : BlockState::Stale;
  }
  // The contents of a Known block, else nullopt.
  std::optional<Block> block(const Owner& owner, std::uint16_t index) const {
    auto it = owners_.find(owner);
    if (it == owners_.end()) return std::nullopt;
    const Entry& e = it->second;
    if (index >= e.slots.size()) return e.rest;
    const Slot& s = e.slots[index];
    return s.state == BlockState::Known ? std::optional<Block>(s.block) : std::nullopt;
  }

  void learned(const Owner& owner, std::uint16_t index, const Block& contents) {
    slot(owner, index) = Slot{BlockState::Known, contents};
  }
  void forgotten(const Owner& owner, std::uint16_t index) {
    slot(owner, index) = Slot{BlockState::Stale, Block{}};
  }

 private:
  struct Entry {
    std::vector<Slot> slots;    // index = block number
    std::optional<Block> rest;  // what blocks past `slots` hold; nullopt: Stale
  };
  Slot& slot(const Owner& owner, std::uint16_t index) {
    Entry& e = owners_[owner];
    if (index >= e.slots.size()) {
      // Blocks between the old end and `index` keep what state() said of them.
      const Slot past = e.rest ? Slot{BlockState::Known, *e.rest} : Slot{BlockState::Stale, {}};
      e.slots.resize(index + std::size_t{1}, past);
    }
    return e.slots[index];
  }

  std::map<Owner, Entry> owners_;
};

}  // namespace ibsm::sm::program
