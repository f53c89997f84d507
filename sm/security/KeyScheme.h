// How the SM chooses a port's M_Key: derived per port from the subnet secret
// (ibsm's default), OpenSM's one subnet-wide key (sm.m_key), or no key. A
// scheme may also hold the one it replaces, so that during a rotation the
// engine can still reach a port that holds its previous key.
//
//   auto scheme = KeyScheme::derived(*loadSecret(file, true));
//   smp.mKey = scheme.keyFor(portGuid);       // 0 when off
//   auto next = KeyScheme::derived(newSecret()).withPrevious(old);
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sm/security/Secret.h"

namespace ibsm::security {

class KeyScheme {
 public:
  static KeyScheme off();
  static KeyScheme derived(Secret secret);
  // One key for every port, OpenSM's m_key; 0 is OpenSM's "no M_Key": off().
  static KeyScheme single(std::uint64_t key);

  [[nodiscard]] bool enabled() const;
  // The key `portGuid` should hold; 0 when off.
  [[nodiscard]] std::uint64_t keyFor(std::uint64_t portGuid) const;
  // What an operator may read (status, logs): the kind of scheme and the
  // secrets' fingerprints, never a key or a secret.
  [[nodiscard]] std::string describe() const;

  // The same scheme, remembering `previous` (a secret's keys, or a single key)
  // as the one ports may still hold.
  [[nodiscard]] KeyScheme withPrevious(Secret previous) const;
  [[nodiscard]] KeyScheme withPreviousKey(std::uint64_t previous) const;
  [[nodiscard]] KeyScheme withoutPrevious() const;
  [[nodiscard]] bool hasPrevious() const;
  // The key the previous scheme gave `portGuid`; 0 when there is none.
  [[nodiscard]] std::uint64_t previousKeyFor(std::uint64_t portGuid) const;
  // The secret the current keys derive from; null for a single key or off.
  // For the one who writes it to disk (KeyRotation.h), never to print.
  [[nodiscard]] const Secret* currentSecret() const;

  // Which scheme this is: a copy keeps its source's id, while every scheme
  // made (off, derived, single) or changed (withPrevious, withoutPrevious)
  // gets one never given before, so that a table of keys kept for one
  // (KeyCache.h) knows when a reload or a rotation has replaced it.
  [[nodiscard]] std::uint64_t id() const { return id_; }
  // Its keys are HMACs of a secret (current or previous): worth keeping.
  [[nodiscard]] bool derivesKeys() const;

 private:
  struct Source {
    std::optional<Secret> secret{};  // derived keys
    std::uint64_t single{0};         // else one key; 0: none
    [[nodiscard]] std::uint64_t keyFor(std::uint64_t portGuid) const;
    [[nodiscard]] std::string describe() const;
  };
  explicit KeyScheme(Source current) : current_(std::move(current)), id_(newId()) {}
  static std::uint64_t newId();

  Source current_;
  std::optional<Source> previous_;
  std::uint64_t id_;
};

}  // namespace ibsm::security
