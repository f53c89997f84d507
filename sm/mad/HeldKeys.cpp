#include "sm/mad/HeldKeys.h"

#include <ibsm/MadAttributes.h>

namespace ibsm::sm::mad {
namespace {

bool ours(const PortKeys& keys, std::uint64_t key) {
  return key != 0 && (key == keys.current || key == keys.previous);
}

std::uint64_t other(const PortKeys& keys, std::uint64_t key) {
  return key == keys.current ? keys.previous : keys.current;
}

}  // namespace

std::uint64_t HeldKeys::keyFor(Guid port, PortKeys keys, unsigned attempt) const {
  if (!keys.rotating()) return keys.current;
  const std::uint64_t seen = held(port);
  const std::uint64_t first = ours(keys, seen) ? seen : keys.previous;
  // Odd attempts: what the port was seen to hold; even ones: the other key.
  return attempt % 2 == 1 ? first : other(keys, first);
}

void HeldKeys::learn(Guid port, PortKeys keys, Method method, const Smp& answer) {
  if (!keys.rotating()) {
    held_.clear();  // the rotation ended: nothing left to choose between
    return;
  }
  if (answer.header.status != 0) return;
  const std::uint64_t sent = answer.header.mKey;  // the request's, echoed
  if (answer.header.attributeId == AttributeId::PortInfo) {
    const PortInfo pi = decodePortInfo(answer.data);
    if (ours(keys, pi.mKey)) {
      held_[port] = pi.mKey;
      return;
    }
    // Level 1 and up hide the key from a Get without it (14.2.4.1).
    if (method == Method::Get && pi.mKey == 0 && pi.mKeyProtectBits != 0 && ours(keys, sent)) {
      held_[port] = other(keys, sent);
      return;
    }
  }
  // A Set passes only with the port's key, at every level.
  if (method == Method::Set && ours(keys, sent)) held_[port] = sent;
}

std::uint64_t HeldKeys::held(Guid port) const {
  auto it = held_.find(port);
  return it == held_.end() ? 0 : it->second;
}

}  // namespace ibsm::sm::mad
