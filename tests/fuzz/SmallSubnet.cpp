#include "tests/fuzz/SmallSubnet.h"

#include <ibsm/Lids.h>

#include <cstdio>
#include <cstdlib>

namespace ibsm::fuzz {

void die(const std::string& target, const std::string& why) {
  std::fprintf(stderr, "%s: %s\n", target.c_str(), why.c_str());
  std::abort();
}

SubnetPlan smallSubnetOrDie() {
  SubnetPlan plan;
  Fabric& f = plan.fabric;
  const auto sw = f.addNode(Node::makeSwitch(Guid{0x100}, 4, "sw"));
  if (!sw) die("fuzz", sw.error().message);
  for (std::uint8_t i = 1; i <= 3; ++i) {
    const auto ca = f.addNode(Node::makeCa(Guid{0x200U + i}, {Guid{0x300U + i}}, "host"));
    if (!ca || !f.connect({*sw, i}, {*ca, 1})) die("fuzz", "cannot cable the fabric");
  }
  const auto lids = planLids(f, {}, 1);
  if (!lids) die("fuzz", lids.error().message);
  applyLids(f, *lids);
  plan.routing.lfts.resize(f.size());
  Lft& lft = plan.routing.lfts[*sw];
  lft.port.assign(64, kNoRoute);
  lft.port[f.node(*sw).ports[0].lid.value] = 0;
  for (std::uint8_t i = 1; i <= 3; ++i) {
    const Port& host = f.port(*f.node(*sw).ports[i].remote);
    for (int l = 0; l < 2; ++l) lft.port[host.lid.value + l] = i;
  }
  return plan;
}

}  // namespace ibsm::fuzz
