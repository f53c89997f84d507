#include "tests/sm/support/FakeMKeys.h"

#include <algorithm>

namespace ibsm::testing {
namespace {

constexpr std::uint16_t kMaxViolations = 0xFFFF;
constexpr std::size_t kTrapReturnPathBytes = 30;  // DRNoticeReturnPath's room
constexpr std::uint8_t kNoticeSecurity = 2;
constexpr std::uint32_t kProducerCa = 1;
constexpr std::uint32_t kProducerSwitch = 2;
constexpr std::uint16_t kBadMKeyTrap = 256;

bool checked(Method m) {
  return m == Method::Get || m == Method::Set || m == Method::TrapRepress;
}

// 14.2.4.2: when the lease period runs out with no valid M_Key received,
// the SMA sets M_KeyProtectBits to zero (the key itself stays, so a Get
// shows it again and another SM can take the port over).
void expire(MKeyState& s, MadClock::time_point now) {
  if (s.leaseEnds && now >= *s.leaseEnds) {
    s.leaseEnds.reset();
    s.protectBits = 0;
  }
}

}  // namespace

MKeyCheck FakeMKeys::check(PortRef holder, const SmpHeader& smp, MadClock::time_point now) {
  if (!checked(smp.method)) return MKeyCheck::Pass;
  MKeyState& s = ports_[holder];
  expire(s, now);
  // 14.2.4: an M_Key of 0 in the port disables checking; a match passes.
  // C14-19: the lease timer stops when a valid M_Key has been received.
  if (s.key == 0 || smp.mKey == s.key) {
    s.leaseEnds.reset();
    return MKeyCheck::Pass;
  }
  // 14.2.4.1, the protection levels: level 0 lets any SubnGet through and
  // shows the M_Key; level 1 lets any SubnGet through but PortInfo:M_Key
  // reads as zero; levels 2 and 3 refuse a SubnGet without the key. SubnSet
  // and SubnTrapRepress need the key at every level. A Get let through is
  // no violation, and (C14-17) does not touch a running lease timer.
  if (smp.method == Method::Get && s.protectBits < 2) {
    return s.protectBits == 1 ? MKeyCheck::HideKey : MKeyCheck::Pass;
  }
  // 14.2.4.3: a failed check increments PortInfo:M_KeyViolations (it stops
  // at all ones) and, if the lease timer is not running and the lease period
  // is not zero, starts it; the SMA does not respond and sends trap 256.
  if (s.violations != kMaxViolations) ++s.violations;
  if (!s.leaseEnds && s.leasePeriod != 0) {
    s.leaseEnds = now + std::chrono::seconds(s.leasePeriod);
  }
  return MKeyCheck::Fail;
}

MKeyState FakeMKeys::state(PortRef holder, MadClock::time_point now) const {
  auto it = ports_.find(holder);
  MKeyState s = it == ports_.end() ? MKeyState{} : it->second;
  expire(s, now);
  return s;
}

void FakeMKeys::protect(PortRef holder, std::uint64_t key, std::uint8_t bits,
                        std::chrono::seconds lease) {
  MKeyState& s = ports_[holder];
  s.key = key;
  s.protectBits = bits;
  s.leasePeriod = static_cast<std::uint16_t>(lease.count());
}

void FakeMKeys::applySet(PortRef holder, const PortInfo& pi) {
  protect(holder, pi.mKey, pi.mKeyProtectBits, std::chrono::seconds(pi.mKeyLeasePeriod));
}

void FakeMKeys::show(PortRef holder, bool hide, MadClock::time_point now, PortInfo& pi) const {
  const MKeyState s = state(holder, now);
  pi.mKey = hide ? 0 : s.key;
  pi.mKeyProtectBits = s.protectBits;
  pi.mKeyLeasePeriod = s.leasePeriod;
  pi.mKeyViolations = s.violations;
}

bool FakeMKeys::mayTrap(PortRef holder, MadClock::time_point now, std::uint8_t subnetTimeout) {
  MKeyState& s = ports_[holder];
  const auto pace = std::chrono::nanoseconds(4096LL << std::min<unsigned>(subnetTimeout, 31));
  if (s.lastTrap && now < *s.lastTrap + pace) return false;
  s.lastTrap = now;
  ++s.badMKeyTraps;
  return true;
}

Notice FakeMKeys::badMKeyNotice(Lid lid, const Smp& offending, bool fromSwitch) {
  const SmpHeader& h = offending.header;
  Notice n;
  n.type = kNoticeSecurity;
  n.producerType = fromSwitch ? kProducerSwitch : kProducerCa;
  n.trapNumber = kBadMKeyTrap;
  n.issuerLid = lid;
  // 14.3.9 (trap 256's details): the port's LID, the offending SMP's
  // method, attribute, modifier and M_Key, and for a directed-route SMP its
  // DrSLID and hop count (the path truncated to the room there is).
  Trap256Details d;
  d.lid = lid;
  d.method = h.method;
  d.attributeId = h.attributeId;
  d.attributeModifier = h.attributeModifier;
  d.mKey = h.mKey;
  if (offending.isDirected()) {
    d.drSlid = h.drSlid;
    d.drNotice = true;
    d.drPathTruncated = h.hopCount > kTrapReturnPathBytes;
    d.drHopCount =
        static_cast<std::uint8_t>(std::min<std::size_t>(h.hopCount, kTrapReturnPathBytes));
  }
  n.dataDetails = encodeDetails(d);
  return n;
}

}  // namespace ibsm::testing
