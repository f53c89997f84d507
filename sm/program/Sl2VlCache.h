// What each switch's SLtoVLMappingTables hold, as far as the SM knows, per
// (input port, output port): programming reads a table only the first time
// the plan needs it and writes it only when it differs, so a sweep with
// unchanged routes sends no SL2VL SMP at all. Kept across sweeps inside
// SwitchTableCache (whoever keeps that keeps this), keyed by node GUID.
//
//   if (reset) cache.reset(guid);                 // the node lost its LID
//   if (cache.admit(key)) ... Get the table, then cache.learned(key, table)
//   if (cache.table(key) != wanted) ... Set it; on failure cache.forget(key)
//
// A CA port has one table (modifier 0); it is keyed with in = 0 and out =
// the port number.
#pragma once

#include <ibsm/Ids.h>
#include <ibsm/MadAttributes.h>

#include <cstdint>
#include <map>
#include <optional>

namespace ibsm::sm {

struct Sl2VlKey {
  Guid node;
  std::uint8_t in{0};
  std::uint8_t out{0};
  auto operator<=>(const Sl2VlKey&) const = default;
};

class Sl2VlCache {
 public:
  // True the first time a table is seen (since the node's last reset): the
  // caller reads it. A table forgotten after a failed Set is not read
  // again but written: the next Set costs what a Get would.
  bool admit(Sl2VlKey key);
  // The node was reset (it lost its LID): its tables are back to the
  // vendor's defaults, whatever was known of them.
  void reset(Guid node);

  // The table's contents, or nullopt when they are not known.
  std::optional<SlToVlTable> table(Sl2VlKey key) const;
  // A Get answered, or a Set was acknowledged.
  void learned(Sl2VlKey key, const SlToVlTable& contents);
  // A Set failed: the port pair may hold the old or the new table.
  void forget(Sl2VlKey key);
  std::size_t size() const { return tables_.size(); }

 private:
  std::map<Sl2VlKey, std::optional<SlToVlTable>> tables_;
};

}  // namespace ibsm::sm
