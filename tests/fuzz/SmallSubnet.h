// The fabric the fuzz targets run on: one switch and three hosts with LMC
// 1, routed by hand. Small, so that the fuzzer's time goes to the code
// under test rather than to a fabric, and without the routing libraries,
// which would make the coverage build long. Host i (1..3) has node GUID
// 0x200+i and port GUID 0x300+i and is node i, the switch node 0 (the
// seed corpora and SmpRig address them so).
#pragma once

#include <ibsm/SubnetPlan.h>

#include <string>

namespace ibsm::fuzz {

// The LIDs planLids gives it (switch port 0, then the hosts' ports, LMC
// 1), for seeds made without the plan; SmpSeedsTest checks them.
inline constexpr Lid kSwitchLid{1};
inline constexpr Lid kHost1Lid{2};
inline constexpr Lid kHost2Lid{4};
inline constexpr Lid kHost3Lid{6};

// The plan, or abort() with a message on stderr: a fuzz target cannot run
// without its fabric.
SubnetPlan smallSubnetOrDie();

[[noreturn]] void die(const std::string& target, const std::string& why);

}  // namespace ibsm::fuzz
