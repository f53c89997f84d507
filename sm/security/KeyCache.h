// The M_Keys of one scheme kept by port GUID, so that the HMAC of a port's
// key is computed once per scheme rather than once per SMP sent (issue 32:
// ~1.1 us of ibsm's ~10.5 us CPU per SMP went to it). The table belongs to
// the scheme it was filled from (KeyScheme::id): asked with another -- a
// reload's, a rotation's new secret or its end -- it empties itself before
// answering, so a key is never served from a scheme that is no longer the
// running one. clear() empties it on purpose (a takeover: the fabric may
// have been keyed by another master meanwhile, the secret file rewritten).
// Keys are secrets too: they are zeroed when dropped.
//
//   KeyCache cache;
//   smp.mKey = cache.keysFor(scheme, portGuid).current;   // HMAC at most once
//
// One thread: the daemon's loop (MKeyService); not for the planning thread.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "sm/security/KeyScheme.h"

namespace ibsm::security {

class KeyCache {
 public:
  struct Keys {
    std::uint64_t current{0};   // KeyScheme::keyFor
    std::uint64_t previous{0};  // KeyScheme::previousKeyFor (0: no rotation)
  };
  struct Counts {
    std::uint64_t served{0};    // answered from the table
    std::uint64_t computed{0};  // worked out (HMACs) and kept
    std::uint64_t dropped{0};   // tables emptied: another scheme, or clear()
  };

  KeyCache() = default;
  ~KeyCache();
  KeyCache(const KeyCache&) = delete;
  KeyCache& operator=(const KeyCache&) = delete;

  // The keys `scheme` gives `portGuid`, as its keyFor and previousKeyFor
  // would. A scheme with nothing to derive (off, one key) is answered at
  // once and nothing is kept.
  [[nodiscard]] Keys keysFor(const KeyScheme& scheme, std::uint64_t portGuid);
  // Empties the table (zeroing the keys); the next ask computes again.
  void clear();

  [[nodiscard]] const Counts& counts() const { return counts_; }
  [[nodiscard]] std::size_t size() const { return keys_.size(); }

 private:
  std::uint64_t schemeId_{0};  // the scheme the table holds keys of; 0: none
  std::unordered_map<std::uint64_t, Keys> keys_;
  Counts counts_;
};

}  // namespace ibsm::security
