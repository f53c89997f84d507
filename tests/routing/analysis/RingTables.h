// Rings of switches for the credit-loop tests: r0 .. r(n-1), ri[2] cabled
// to r(i+1)[3], host hi on ri[1]; tables that send everything clockwise
// (out port 2) until it arrives; and SL2VL tables that put SL 1 on VL 1
// and every other SL on VL 0 at every turn. Test-only helpers.
//
//   const Fabric f = handRing(3);
//   HandTables t = clockwise(f, 3);
//   slOneOnVlOne(f, 3, t.result());
#pragma once

#include <fmt/format.h>
#include <ibsm/Fabric.h>
#include <ibsm/Routing.h>

#include <string>

#include "tests/routing/analysis/HandTables.h"
#include "tests/support/FabricBuilder.h"

namespace ibsm::testing {

inline std::string ringSwitch(int i, int n) {
  return fmt::format("r{}", (i % n + n) % n);
}

// Not testing::ringFabric (tests/support/FabricFixtures.h), whose ports
// differ: one name for both broke the one-definition rule, and a build that
// did not inline took the other ring.
inline Fabric handRing(int n) {
  FabricBuilder b;
  for (int i = 0; i < n; ++i) b.addSwitch(ringSwitch(i, n));
  for (int i = 0; i < n; ++i) b.cable(ringSwitch(i, n), 2, ringSwitch(i + 1, n), 3);
  for (int i = 0; i < n; ++i) b.addHost(fmt::format("h{}", i), ringSwitch(i, n), 1);
  return b.build();
}

// Everything goes clockwise (out port 2) until it arrives.
inline HandTables clockwise(const Fabric& f, int n) {
  HandTables t(f);
  t.deliverLocally();
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != j) t.toward(ringSwitch(i, n), ringSwitch(j, n), 2);
  return t;
}

// SL 1 on VL 1, every other SL on VL 0, at every turn (ports 0..3) of the
// n switches; two VLs used.
inline void slOneOnVlOne(const Fabric& f, int n, RoutingResult& into) {
  for (int i = 0; i < n; ++i)
    for (std::uint8_t in = 0; in <= 3; ++in)
      for (std::uint8_t out = 0; out <= 3; ++out) {
        Sl2VlEntry e{nodeNamed(f, ringSwitch(i, n)), in, out, {}};
        for (std::uint8_t sl = 0; sl < 16; ++sl) e.vl[sl] = sl == 1 ? 1 : 0;
        into.sl2vl.push_back(e);
      }
  into.vlsUsed = 2;
}

}  // namespace ibsm::testing
