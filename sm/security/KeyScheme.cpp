#include "sm/security/KeyScheme.h"

#include <fmt/format.h>

#include <atomic>

#include "sm/security/PortKey.h"

namespace ibsm::security {

std::uint64_t KeyScheme::Source::keyFor(std::uint64_t portGuid) const {
  return secret ? portMKey(*secret, portGuid) : single;
}

std::string KeyScheme::Source::describe() const {
  if (secret)
    return fmt::format("per-port keys derived from secret {} (HMAC-SHA256 of the port GUID)",
                       fingerprint(*secret));
  return single != 0 ? "one subnet-wide key (sm.m_key)" : "no keys";
}

std::uint64_t KeyScheme::newId() {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

KeyScheme KeyScheme::off() {
  return KeyScheme(Source{});
}

KeyScheme KeyScheme::derived(Secret secret) {
  return KeyScheme(Source{.secret = std::move(secret)});
}

KeyScheme KeyScheme::single(std::uint64_t key) {
  return KeyScheme(Source{.single = key});
}

bool KeyScheme::enabled() const {
  return current_.secret.has_value() || current_.single != 0;
}

std::uint64_t KeyScheme::keyFor(std::uint64_t portGuid) const {
  return current_.keyFor(portGuid);
}

std::string KeyScheme::describe() const {
  std::string text = enabled() ? "M_Key on: " + current_.describe() : "M_Key off";
  if (previous_) text += "; ports may still hold the previous scheme's: " + previous_->describe();
  return text;
}

KeyScheme KeyScheme::withPrevious(Secret previous) const {
  KeyScheme next = *this;
  next.id_ = newId();
  next.previous_ = Source{.secret = std::move(previous)};
  return next;
}

KeyScheme KeyScheme::withPreviousKey(std::uint64_t previous) const {
  KeyScheme next = *this;
  next.id_ = newId();
  next.previous_ = Source{.single = previous};
  return next;
}

KeyScheme KeyScheme::withoutPrevious() const {
  KeyScheme next = *this;
  next.id_ = newId();
  next.previous_.reset();
  return next;
}

bool KeyScheme::hasPrevious() const {
  return previous_.has_value();
}

std::uint64_t KeyScheme::previousKeyFor(std::uint64_t portGuid) const {
  return previous_ ? previous_->keyFor(portGuid) : 0;
}

bool KeyScheme::derivesKeys() const {
  return current_.secret.has_value() || (previous_ && previous_->secret.has_value());
}

const Secret* KeyScheme::currentSecret() const {
  return current_.secret ? &*current_.secret : nullptr;
}

}  // namespace ibsm::security
