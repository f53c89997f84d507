// The IBA's M_Key rules as an SMA applies them, for the fake fabric
// (FakeFabricTransport): ibsim neither stores nor checks M_Keys, so this is
// where protection is proven. Each rule cites IBA 1.3 volume 1, section
// 14.2.4 "Management Key" (the IBA is not public: its words are given in
// paraphrase, its compliance numbers where Linux's qib driver quotes them,
// commit 6199c896 "IB/qib: Fix M_Key lease timeout handling").
//
//   FakeMKeys keys;
//   keys.protect(holder, 0x1234, 2, 60s);             // as another SM would
//   switch (keys.check(holder, smp.header, now)) {     // every Get, Set, TrapRepress
//     case MKeyCheck::Fail: /* drop it, send trap 256 */ break;
//     ...
//   }
//
// State lives per holder: a CA's port, or a switch's port 0, which holds the
// switch's (PortInfo:M_Key and its companions are port 0's only on a
// switch, 14.2.5.6). Nothing is protected until something sets a key.
#pragma once

#include <ibsm/Fabric.h>
#include <ibsm/Mad.h>
#include <ibsm/MadAttributes.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>

#include "sm/mad/MadTransport.h"

namespace ibsm::testing {

// One port's M_Key state (the PortInfo fields of 14.2.5.6 and the lease
// timer of 14.2.4.2).
struct MKeyState {
  std::uint64_t key{0};  // 0: the port is not protected (14.2.4)
  std::uint8_t protectBits{0};
  std::uint16_t leasePeriod{0};                   // seconds; 0: the lease never expires
  std::optional<MadClock::time_point> leaseEnds;  // the running lease timer
  std::uint16_t violations{0};                    // PortInfo:M_KeyViolations
  std::optional<MadClock::time_point> lastTrap;   // trap 256's pacing
  unsigned badMKeyTraps{0};                       // traps 256 the port sent
};

// What the SMA does with an SMP after checking its M_Key.
enum class MKeyCheck {
  Pass,     // process it
  HideKey,  // process it, but PortInfo:M_Key reads as 0 (level 1 Get)
  Fail,     // drop it silently: a violation (trap 256 follows)
};

class FakeMKeys {
 public:
  // The port whose M_Key guards an SMP that arrived at `at`.
  static PortRef holder(const Node& node, PortRef at) {
    return node.isSwitch() ? PortRef{at.node, 0} : at;
  }

  // Applies 14.2.4's checks to a Get, Set or TrapRepress (other methods
  // pass): lease expiry first, then the table of protection levels; a
  // match stops the lease timer, a violation counts and starts it.
  MKeyCheck check(PortRef holder, const SmpHeader& smp, MadClock::time_point now);

  // The state as of `now`: a lease that ran out has cleared the protect bits.
  MKeyState state(PortRef holder, MadClock::time_point now) const;
  // As if an SM had set PortInfo:M_Key, M_KeyProtectBits and
  // M_KeyLeasePeriod (what a passing Set(PortInfo) does, see applySet).
  void protect(PortRef holder, std::uint64_t key, std::uint8_t bits, std::chrono::seconds lease);
  // A Set(PortInfo) that passed its check writes the three fields.
  void applySet(PortRef holder, const PortInfo& pi);
  // PortInfo as a Get shows it: the key (or 0, `hide`), bits, lease and
  // the violations counter.
  void show(PortRef holder, bool hide, MadClock::time_point now, PortInfo& pi) const;

  // Whether a port may send trap 256 now: not twice within its Subnet
  // Timeout (4.096 us * 2^PortInfo:SubnetTimeout), as Linux's SMA paces
  // traps (qib_send_trap, "o14-2"), so that a wrong-keyed TrapRepress
  // answering trap 256 cannot bounce traps back and forth.
  bool mayTrap(PortRef holder, MadClock::time_point now, std::uint8_t subnetTimeout);

  // Trap 256's Notice for an SMP that failed at a port with LID `lid`.
  static Notice badMKeyNotice(Lid lid, const Smp& offending, bool fromSwitch);

 private:
  std::map<PortRef, MKeyState> ports_;  // holders whose state ever changed
};

}  // namespace ibsm::testing
