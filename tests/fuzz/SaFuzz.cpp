// libFuzzer target over the SA's decoder and dispatcher: any bytes, as a
// GMP from a host of a small planned fat tree, must be answered or dropped
// without a crash, a sanitizer report or an answer that does not decode.
//
//   cmake -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++-19 -DIBSM_FUZZ=ON
//   ninja -C build-fuzz SaFuzz && build-fuzz/tests/fuzz/SaFuzz -runs=10000000
//
// It keeps the SA's state between inputs (ServiceRecords registered and
// multicast groups joined by one input are seen by the next), as the
// daemon's SA does. An input longer than one MAD is a sequence of MADs,
// 256 bytes each, sent by the hosts in turn (the SM's host first), so that
// one input can create a group, join it for another port and leave it.
// After each MAD the groups must hold the SA's invariants: MLIDs unique
// and multicast, every group kept by a Full or SendOnlyFull member or
// pre-created.
#include <ibsm/SubnetPlan.h>

#include <cstdlib>
#include <set>

#include "sm/sa/SaMad.h"
#include "sm/sa/SaResponder.h"
#include "tests/fuzz/SmallSubnet.h"

namespace {

using namespace ibsm;

// The fabric's SA, its SM on the first host, queries from the hosts; the
// default partition's IPoIB broadcast group pre-created, as the
// configuration does.
struct Sa {
  Sa() : plan(fuzz::smallSubnetOrDie()) {
    const PortRef smPort{plan.fabric.endNodes().front(), 1};
    responder.setSubnet(sm::sa::SaSubnet::build(
        {.plan = std::make_shared<const SubnetPlan>(plan), .smPort = smPort}, {}));
    for (const NodeId host : plan.fabric.endNodes())
      hosts.push_back(plan.fabric.port({host, 1}).lid);
    // Every port that may join a group: the hosts' and the switch's port 0.
    for (NodeId id = 0; id < plan.fabric.size(); ++id) {
      for (const std::uint8_t p : plan.fabric.node(id).endpointPorts())
        endPortGuids.push_back(plan.fabric.port({id, p}).guid);
    }
    Gid broadcast{0xFF, 0x12, 0x40, 0x1B, 0xFF, 0xFF};
    std::fill(broadcast.begin() + 12, broadcast.end(), std::uint8_t{0xFF});
    responder.setPrecreated({McGroupSpec{.mgid = broadcast, .params = {}, .where = "fuzz"}});
  }
  SubnetPlan plan;
  sm::sa::SaResponder responder;
  std::vector<Lid> hosts;
  std::vector<Guid> endPortGuids;
};

// Past this many groups the ports "leave the fabric" (dropPort), which
// deletes every group but the pre-created one: the state stays small, so
// that the fuzzer's time goes to requests, not to growing tables.
constexpr std::size_t kMaxGroups = 64;

[[noreturn]] void die(const std::string& why) {
  fuzz::die("SaFuzz", why);
}

Sa& sa() {
  static Sa* instance = new Sa;  // never destroyed: libFuzzer may exit from any thread
  return *instance;
}

void checkGroups(const sm::sa::McGroups& groups) {
  std::set<std::uint16_t> mlids;
  for (const McGroupRoute& route : groups.routes()) {
    if (route.mlid.value < kFirstMlid.value || route.mlid.value > kLastMlid.value ||
        !mlids.insert(route.mlid.value).second)
      die("an MLID outside the multicast range or used twice");
    const sm::sa::McGroup* g = groups.group(route.mgid);
    if (!g || (!g->precreated && !g->kept())) die("a group that nothing keeps");
    if (g->members.size() != route.members.size()) die("routes() lost a member");
  }
  if (mlids.size() != groups.size()) die("routes() lost a group");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span input(data, size);
  const std::size_t mads = std::max<std::size_t>(1, (size + kMadSize - 1) / kMadSize);
  for (std::size_t turn = 0; turn < mads; ++turn) {
    const std::size_t at = turn * kMadSize;
    const auto mad = input.subspan(at, std::min(kMadSize, size - at));
    GmpAddress from;
    from.lid = sa().hosts[turn % sa().hosts.size()];
    auto reply = sa().responder.answer(mad, from);
    if (reply) {
      auto back = decodeSaMad(*reply);
      if (!back || (back->header.method & saMethod::kResponse) == 0) std::abort();
    }
    checkGroups(sa().responder.groups());
  }
  if (sa().responder.groups().size() > kMaxGroups) {
    for (const Guid guid : sa().endPortGuids) sa().responder.dropPort(guid);
    if (sa().responder.groups().size() != 1) die("dropPort left groups nothing keeps");
    checkGroups(sa().responder.groups());
  }
  (void)sa().responder.takeGroupEvents();
  return 0;
}
