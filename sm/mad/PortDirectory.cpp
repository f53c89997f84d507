#include "sm/mad/PortDirectory.h"

#include <ibsm/MadAttributes.h>

namespace ibsm::sm::mad {

std::optional<Guid> PortDirectory::learn(const std::variant<DrPath, Lid>& to, const Smp& answer) {
  const auto* path = std::get_if<DrPath>(&to);
  if (path == nullptr) return portAt(to);  // a LID-routed answer names nothing new
  if (answer.header.attributeId == AttributeId::NodeInfo) {
    const NodeInfo ni = decodeNodeInfo(answer.data);
    if (ni.portGuid) {
      byPath_[*path] = Reached{.port = ni.portGuid, .isSwitch = ni.nodeType == NodeType::Switch};
      return ni.portGuid;
    }
    return portAt(to);
  }
  auto at = byPath_.find(*path);
  if (at == byPath_.end()) return std::nullopt;
  const Guid port = at->second.port;
  if (answer.header.attributeId != AttributeId::PortInfo) return port;
  const PortInfo pi = decodePortInfo(answer.data);
  // Only the port that checks this route's SMPs: a switch's port 0, a CA's
  // entry port (modifier 0, or its own number).
  const std::uint32_t asked = answer.header.attributeModifier & 0xFF;
  if (asked != 0 && (at->second.isSwitch || asked != pi.localPortNum)) return port;
  if (pi.lid.isUnicast()) learnLids(port, pi.lid, pi.lmc);
  return port;
}

void PortDirectory::learnLids(Guid port, Lid base, std::uint8_t lmc) {
  if (lmc > 7) lmc = 7;
  if (auto old = lidsOf_.find(port); old != lidsOf_.end()) {
    if (old->second == std::pair{base, lmc}) return;
    const auto [oldBase, oldLmc] = old->second;
    for (unsigned i = 0; i < (1u << oldLmc); ++i) {
      auto it = byLid_.find(Lid{static_cast<std::uint16_t>(oldBase.value + i)});
      if (it != byLid_.end() && it->second == port) byLid_.erase(it);
    }
  }
  lidsOf_[port] = {base, lmc};
  for (unsigned i = 0; i < (1u << lmc) && base.value + i <= kMaxUnicastLid; ++i)
    byLid_[Lid{static_cast<std::uint16_t>(base.value + i)}] = port;
}

std::optional<Guid> PortDirectory::portAt(const std::variant<DrPath, Lid>& to) const {
  if (const auto* path = std::get_if<DrPath>(&to)) {
    auto it = byPath_.find(*path);
    if (it != byPath_.end()) return it->second.port;
    return std::nullopt;
  }
  auto it = byLid_.find(std::get<Lid>(to));
  if (it != byLid_.end()) return it->second;
  return std::nullopt;
}

}  // namespace ibsm::sm::mad
