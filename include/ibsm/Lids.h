// LID assignment, shared by the live SM and the dry run so that both hand
// out the same LIDs for the same fabric. A running fabric must never be
// renumbered: LIDs that ports already hold win, then the guid2lid state,
// then fresh LIDs in an order that does not depend on discovery order.
#pragma once

#include <ibsm/Error.h>
#include <ibsm/Fabric.h>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ibsm {

// OpenSM's guid2lid file: port GUID -> first and last LID of its range.
struct LidRange {
  Lid first;
  Lid last;
  auto operator<=>(const LidRange&) const = default;
};
using Guid2Lid = std::map<Guid, LidRange>;

[[nodiscard]] Result<Guid2Lid> parseGuid2Lid(std::string_view text, std::string_view fileName);
std::string formatGuid2Lid(const Guid2Lid& map);

struct LidAssignment {
  enum class Source : std::uint8_t { Kept, Guid2Lid, Fresh };
  PortRef port;
  Guid portGuid;
  Lid base;
  std::uint8_t lmc{0};
  Source source{Source::Fresh};
};

struct LidPlan {
  std::vector<LidAssignment> assignments;  // sorted by port GUID
  std::vector<std::string> notes;          // LIDs that could not be kept, and why
  std::uint8_t lmc{0};
  Lid maxLid;
};

// Switches get one LID on port 0 whatever the LMC; CA ports get 2^lmc
// aligned LIDs. Fails only when the unicast LID space runs out.
[[nodiscard]] Result<LidPlan> planLids(const Fabric& fabric, const Guid2Lid& state,
                                       std::uint8_t lmc);
void applyLids(Fabric& fabric, const LidPlan& plan);
Guid2Lid toGuid2Lid(const LidPlan& plan);

// LID -> the port that owns it (every LID of an LMC range maps to the port).
class LidIndex {
 public:
  explicit LidIndex(const Fabric& fabric);
  std::optional<PortRef> owner(Lid lid) const;
  Lid maxLid() const { return Lid{static_cast<std::uint16_t>(owners_.size() - 1)}; }

 private:
  static constexpr NodeId kNone = ~NodeId{0};
  std::vector<PortRef> owners_;  // index = LID; node == kNone when free
};

}  // namespace ibsm
