// What the programming step writes that is not in the SubnetPlan: values an
// operator configures once for the subnet (the config module fills this).
#pragma once

#include <cstdint>
#include <optional>

namespace ibsm::sm::program {

struct ProgramOptions {
  // PortInfo:GidPrefix of every LID-carrying port; IBA's default link-local
  // prefix unless the site runs several subnets.
  std::uint64_t subnetPrefix{0xfe80000000000000ULL};
  // SwitchInfo:LifeTimeValue (how long a packet may sit in a switch, as
  // 4.096 us * 2^value). Unset: each switch keeps what it holds.
  std::optional<std::uint8_t> switchLifeTime;
  // Sets PortInfo:ClientReregister on CA ports that support it, which asks
  // their clients to register again with the SA. An SM wants this once,
  // when it takes over a subnet; the caller decides when.
  bool clientReregister{false};
};

}  // namespace ibsm::sm::program
