// What the programming step writes that is not in the SubnetPlan: values an
// operator configures once for the subnet (the config module fills this).
#pragma once

#include <cstdint>
#include <optional>

#include "sm/security/KeyScheme.h"

namespace ibsm::sm::program {

struct ProgramOptions {
  // PortInfo:GidPrefix of every LID-carrying port; IBA's default link-local
  // prefix unless the site runs several subnets.
  std::uint64_t subnetPrefix{0xfe80000000000000ULL};
  // SwitchInfo:LifeTimeValue (how long a packet may sit in a switch, as
  // 4.096 us * 2^value). Unset: each switch keeps what it holds.
  std::optional<std::uint8_t> switchLifeTime;
  // PortInfo:HOQLife of switch external ports (4.096 us * 2^value; 20 and
  // above: never drop), by what is at the other end of the cable: another
  // switch, or a CA or router (a leaf). Unset: each port keeps what it
  // holds. Rides on the state Sets a port in Init gets anyway; a port
  // already up that holds another value gets a Set of its own.
  std::optional<std::uint8_t> headOfQueueLifetime;
  std::optional<std::uint8_t> leafHeadOfQueueLifetime;
  // PortInfo:SubnetTimeout of every LID-carrying port: how long a client
  // waits for the SA, 4.096 us * 2^value (OpenSM's default 18: about 1 s).
  // Written with every PortInfo Set such a port gets, never alone (Diff.h).
  std::uint8_t subnetTimeout{18};
  // Sets PortInfo:ClientReregister on the CA ports that support it and are
  // due (HeldSubnet::reregisterDue: new to this master, so on its first
  // sweep, after a takeover, and on ports it sees for the first time),
  // which asks their clients to register again with the new SA. Off: never.
  bool clientReregister{true};
  // M_Key protection (IBA 14.2.4), written with the PortInfo Sets of every
  // CA port and switch port 0 (a switch's external ports are checked
  // against port 0's key): PortInfo:M_Key = mKeys.keyFor(port GUID),
  // M_KeyProtectBits, M_KeyLeasePeriod (seconds; 0: never expires). A port
  // holding other values gets a Set of its own, once: one that acknowledges
  // it but keeps no key (ibsim) is not asked again (HeldSubnet). Off: each
  // port keeps what it holds.
  security::KeyScheme mKeys{security::KeyScheme::off()};
  std::uint8_t mKeyProtectBits{1};
  std::uint16_t mKeyLeaseSeconds{60};
};

}  // namespace ibsm::sm::program
