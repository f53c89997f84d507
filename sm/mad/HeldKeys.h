// Which of two M_Keys a port holds while the SM moves the fabric from one
// key scheme to the next (an M_Key rotation, issue 29), so that the MAD
// engine sends every SMP with the key its port holds: the previous one
// until that port's Set to the new key succeeded, the new one after.
//
// What the answers going by prove (IBA 14.2.4): a PortInfo answer that
// shows one of the two keys is what the port holds; a Get answered with
// PortInfo:M_Key 0 and protect bits set was sent with the key the port does
// not hold (level 1 hides the key from a wrong one), so it holds the other;
// a Set answered was sent with the key it held. A port never seen holds
// the previous key (a rotation starts with every port on it). When an SMP
// goes unanswered the engine alternates the two keys from one attempt to
// the next (keyFor): an answer lost after the Set that moved the port to
// its new key is retried with the new key, a request lost with the old.
//
// Outside a rotation (no previous key) every SMP carries the current key,
// and nothing is remembered.
#pragma once

#include <ibsm/Ids.h>
#include <ibsm/Mad.h>

#include <cstdint>
#include <map>

namespace ibsm::sm::mad {

struct PortKeys {
  std::uint64_t current{0};
  std::uint64_t previous{0};  // 0: no rotation under way
  bool rotating() const { return previous != 0 && previous != current; }
};

class HeldKeys {
 public:
  // The key attempt `attempt` (1, 2, ...) of an SMP to `port` carries.
  [[nodiscard]] std::uint64_t keyFor(Guid port, PortKeys keys, unsigned attempt) const;
  // What an answer to a `method` SMP (Get or Set) of `port` says of its key.
  void learn(Guid port, PortKeys keys, Method method, const Smp& answer);
  // No rotation under way (no previous key): nothing to remember.
  void forget() { held_.clear(); }
  // The key the port was last seen to hold, 0 when unknown.
  [[nodiscard]] std::uint64_t held(Guid port) const;
  std::size_t size() const { return held_.size(); }

 private:
  std::map<Guid, std::uint64_t> held_;  // only while a rotation is under way
};

}  // namespace ibsm::sm::mad
