// SL2VLTableRecords of the plan's SL2VL tables (IBA 15.2.5.4): a switch's
// carry its one LID and the (in, out) pair; a CA port's -- planSubnet() adds
// one for every linked CA port where the engine layers SLs -- its own LID,
// in port 0 and its port number as out port, as OpenSM answers them. A CA
// port that does not advertise IsSLMappingSupported was not written
// (sm/program's SL2VL diff), so it is not answered either.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/sm/sa/SaFixture.h"

namespace ibsm::sm::sa {
namespace {

using testing::SaFixture;

constexpr std::uint32_t kIsSlMappingSupported = 1U << 6;  // PortInfo:CapabilityMask

class Sl2VlRecordTest : public ::testing::Test {
 protected:
  Sl2VlRecordTest() {
    const Fabric& f = sa.plan.fabric;
    sw = f.switches().front();
    Sl2VlEntry layered{.sw = sw, .inPort = 1, .outPort = 2, .vl = {}};
    layered.vl[1] = 1;
    sa.plan.routing.sl2vl = {layered};
    for (std::size_t h : {0, 1})
      sa.plan.routing.sl2vl.push_back(
          Sl2VlEntry{.sw = sa.hostPort(h).node, .inPort = 0, .outPort = 1, .vl = {}});
    sa.plan.routing.vlsUsed = 2;
    sa.plan.fabric.port(sa.hostPort(0)).capabilityMask |= kIsSlMappingSupported;
    sa.rebuild();
  }

  std::vector<Sl2VlTableRecord> all() {
    const auto reply = sa.ask(saMethod::kGetTable, Sl2VlTableRecord{}, 0);
    EXPECT_EQ(reply.header.status, saStatus::kOk);
    return SaFixture::records<Sl2VlTableRecord>(reply);
  }

  SaFixture sa{FatTreeSpec{.levels = 2, .radix = 4}};
  NodeId sw{0};
};

TEST_F(Sl2VlRecordTest, ACaPortsRecordCarriesItsOwnLidInPort0AndItsPort) {
  const auto records = all();
  const Lid host0 = sa.lidOfHost(0);
  const auto it = std::ranges::find_if(records, [&](const auto& r) { return r.lid == host0; });
  ASSERT_NE(it, records.end());
  EXPECT_EQ(*it, (Sl2VlTableRecord{.lid = host0, .inPort = 0, .outPort = 1, .table = {}}));
  const Lid swLid = sa.plan.fabric.node(sw).ports[0].lid;
  EXPECT_EQ(std::ranges::count_if(records, [&](const auto& r) { return r.lid == swLid; }), 1);
}

TEST_F(Sl2VlRecordTest, ACaPortThatMapsNoSlsHasNoRecord) {
  const auto records = all();
  EXPECT_EQ(records.size(), 2U) << "the switch's and host 0's";
  const Lid host1 = sa.lidOfHost(1);
  EXPECT_TRUE(std::ranges::none_of(records, [&](const auto& r) { return r.lid == host1; }));
  for (const auto& r : records) EXPECT_NE(r.lid, Lid{}) << "no record without a LID";
}

}  // namespace
}  // namespace ibsm::sm::sa
