// QoS tables programmed on the in-memory fake fabric: a fat tree given an
// SL2VL table on every port pair (CA ports, switch port 0, external ports)
// and VLArbitration tables with a VLHighLimit on every port holds them all
// after one sweep, read back over the wire (Get SLtoVLMappingTable, Get
// VLArbitrationTable: IBA 14.2.5.8, 14.2.5.9; PortInfo:VLHighLimit); a
// second sweep sends nothing; a refused VLArbitration Set is retried by the
// next sweep, unread, and holds no link back.
#include <gtest/gtest.h>
#include <ibsm/QosPolicy.h>

#include <algorithm>

#include "sm/program/DiffParts.h"
#include "tests/sm/program/ProgramBench.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::sm::program {
namespace {

using ibsm::testing::FakeFabricTransport;
using Fate = FakeFabricTransport::Fate;

constexpr std::uint8_t kLowCap = 64;   // blocks 1 and 2
constexpr std::uint8_t kHighCap = 16;  // block 3 only, half of it
constexpr std::uint8_t kHighLimit = 4;
constexpr std::uint32_t kIsSlMappingSupported = 1U << 6;

std::vector<qos::VlWeight> weights(std::size_t n, std::uint8_t firstVl) {
  std::vector<qos::VlWeight> out;
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back({.vl = static_cast<std::uint8_t>((firstVl + i) % 8),
                   .weight = static_cast<std::uint8_t>(16 + i)});
  }
  return out;
}

// The ports a node has tables on: a switch's port 0 and cabled ports, a
// CA's cabled ports.
std::vector<std::uint8_t> tablePorts(const Node& node) {
  std::vector<std::uint8_t> out;
  if (node.isSwitch()) out.push_back(0);
  for (std::uint8_t p = 1; p <= node.numPorts(); ++p)
    if (node.ports[p].connected()) out.push_back(p);
  return out;
}

// SL s -> VL s % 8 everywhere, a low table of 64 entries and a high one of 20.
qos::QosTables everyPort(const Fabric& f) {
  qos::QosTables t;
  std::array<std::uint8_t, 16> vls{};
  for (std::uint8_t sl = 0; sl < 16; ++sl) vls[sl] = sl % 8;
  for (NodeId n = 0; n < f.size(); ++n) {
    const Node& node = f.node(n);
    const auto ports = tablePorts(node);
    for (const std::uint8_t out : ports) {
      const PortRef port{n, out};
      if (node.isSwitch()) {
        for (const std::uint8_t in : ports)
          t.sl2vl.push_back({.port = port, .inPort = in, .vl = vls});
      } else {
        t.sl2vl.push_back({.port = port, .inPort = 0, .vl = vls});
      }
      t.vlArb.push_back(
          {.port = port, .highLimit = kHighLimit, .high = weights(20, 5), .low = weights(64, 0)});
    }
  }
  std::ranges::sort(t.sl2vl);
  std::ranges::sort(t.vlArb);
  return t;
}

// Block `block` as a port running `operVls` should hold it.
VlArbitrationBlock expectedBlock(const qos::QosVlArb& q, std::uint16_t block,
                                 std::uint8_t operVls) {
  const bool low = block <= vlArbBlock::kLowSecond;
  const auto& table = low ? q.low : q.high;
  const std::size_t first =
      (block == vlArbBlock::kLowSecond || block == vlArbBlock::kHighSecond) ? 32 : 0;
  const std::size_t cap = low ? kLowCap : kHighCap;
  VlArbitrationBlock b;
  for (std::size_t i = 0; first + i < std::min(cap, first + 32); ++i) {
    const qos::VlWeight e = first + i < table.size() ? table[first + i] : qos::VlWeight{};
    b.entries[i] = {.vl = static_cast<std::uint8_t>(e.vl & vlMask(operVls)), .weight = e.weight};
  }
  return b;
}

class QosOnFatTree : public ::testing::Test {
 protected:
  QosOnFatTree()
      : bench(ibsm::testing::sampleFabric("fat-tree-3level-k8.net"), PortRef{0, 1}, "ftree") {
    bench.wire().setVlArbCaps(kLowCap, kHighCap);
    Fabric& f = bench.wire().fabric();
    for (NodeId n = 0; n < f.size(); ++n) {
      if (f.node(n).isSwitch()) continue;
      for (std::uint8_t p = 1; p <= f.node(n).numPorts(); ++p)
        f.node(n).ports[p].capabilityMask |= kIsSlMappingSupported;
    }
    tables = everyPort(f);
  }
  ProgramSummary sweep() {
    return bench.sweep([this](SubnetPlan& plan) { plan.qosTables = tables; });
  }

  ProgramBench bench;
  qos::QosTables tables;
};

TEST_F(QosOnFatTree, EveryPortHoldsItsTablesAfterOneSweepAndTheNextSendsNothing) {
  const ProgramSummary s = sweep();
  ASSERT_TRUE(s.complete()) << ::testing::PrintToString(s.failures);
  const FakeFabricTransport& wire = bench.wire();
  const Fabric& f = wire.fabric();

  std::size_t blocks = 0;
  for (const qos::QosVlArb& q : tables.vlArb) {
    const std::uint8_t operVls = wire.operationalVls(q.port);
    for (const std::uint16_t block :
         {vlArbBlock::kLowFirst, vlArbBlock::kLowSecond, vlArbBlock::kHighFirst}) {
      EXPECT_EQ(wire.vlArb(q.port, block), expectedBlock(q, block, operVls))
          << f.describe(q.port) << " block " << block;
      ++blocks;
    }
    EXPECT_EQ(wire.vlHighLimit(q.port), kHighLimit) << f.describe(q.port);
  }
  for (const qos::QosSl2Vl& t : tables.sl2vl) {
    SlToVlTable want{t.vl};
    for (std::uint8_t& vl : want.vl) vl &= vlMask(wire.operationalVls(t.port));
    EXPECT_EQ(wire.sl2vl(t.port.node, t.inPort, t.port.port), want)
        << f.describe(t.port) << " in " << int{t.inPort};
  }
  // Fresh ports hold zeros (and ibsim's SL2VL default): every block and table differs.
  EXPECT_EQ(s.table(TableKind::VlArb).written, blocks);
  EXPECT_EQ(s.table(TableKind::VlArb).read, blocks);
  EXPECT_EQ(s.table(TableKind::Sl2Vl).written, tables.sl2vl.size());
  bench.expectHoldsThePlan();

  const ProgramSummary again = sweep();
  EXPECT_TRUE(again.complete());
  EXPECT_EQ(again.requests(), 0U) << "no read, no Set: the held model knows every table";
}

TEST_F(QosOnFatTree, OnlyTheBlocksThatDifferAreWritten) {
  // Every port but the SM's holds its planned low table already.
  const qos::QosVlArb& smPorts =
      *std::ranges::find(tables.vlArb, bench.smPort(), &qos::QosVlArb::port);
  for (const qos::QosVlArb& q : tables.vlArb) {
    if (q.port == bench.smPort()) continue;
    for (const std::uint16_t block : {vlArbBlock::kLowFirst, vlArbBlock::kLowSecond})
      bench.wire().setVlArb(q.port, block,
                            expectedBlock(q, block, bench.wire().operationalVls(q.port)));
  }
  // The operational VLs the fake reports before the sweep are the ones it runs after (VLCap).
  const ProgramSummary s = sweep();
  ASSERT_TRUE(s.complete()) << ::testing::PrintToString(s.failures);
  std::size_t lowSets = 0;
  for (const auto& m : bench.programSmps()) {
    if (!isSet(m.smp, AttributeId::VlArbitrationTable)) continue;
    if ((m.smp.header.attributeModifier >> 16) <= vlArbBlock::kLowSecond) ++lowSets;
  }
  EXPECT_EQ(lowSets, 2U) << "the SM's port's blocks 1 and 2 only";
  EXPECT_EQ(s.table(TableKind::VlArb).written, tables.vlArb.size() + 2) << "block 3 everywhere";
  EXPECT_EQ(
      bench.wire().vlArb(smPorts.port, vlArbBlock::kLowSecond),
      expectedBlock(smPorts, vlArbBlock::kLowSecond, bench.wire().operationalVls(smPorts.port)));
}

TEST_F(QosOnFatTree, ARefusedVlArbitrationSetIsRetriedUnreadAndHoldsNoLink) {
  // Switch port 0 of the first switch refuses its block 1 once.
  NodeId sw = 0;
  while (!bench.wire().fabric().node(sw).isSwitch()) ++sw;
  auto isVictim = [](const Smp& m) {
    return isSet(m, AttributeId::VlArbitrationTable) &&
           m.header.attributeModifier == vlArbitrationModifier(vlArbBlock::kLowFirst, 0) &&
           m.header.hopCount > 0;
  };
  const DrPath path = ibsm::testing::routesFrom(bench.wire().fabric(), bench.smPort())[sw];
  auto victimHere = [&](const Smp& m) {
    return isVictim(m) && m.initialPath == path.initialPath() &&
           m.header.hopCount == path.hopCount();
  };
  bench.wire().setFaults([&](const Smp& req, std::size_t) {
    return victimHere(req) ? Fate::answeredWith(madstatus::kInvalidField) : Fate{};
  });
  const ProgramSummary failed = sweep();
  EXPECT_FALSE(failed.complete()) << "left dirty: the daemon sweeps again";
  EXPECT_EQ(failed.phase(ProgramPhase::Sl2Vl).failures, 1U);
  EXPECT_EQ(failed.phase(ProgramPhase::Active).deferred, 0U) << "QoS shares hold no link back";
  const Guid guid = bench.wire().fabric().node(sw).guid;
  EXPECT_EQ(bench.held().table<VlArbKind>().state(PortKey{guid, 0}, vlArbBlock::kLowFirst),
            BlockState::Stale);
  bench.expectHoldsThePlan();

  bench.wire().setFaults({});
  const ProgramSummary retried = sweep();
  EXPECT_TRUE(retried.complete()) << ::testing::PrintToString(retried.failures);
  EXPECT_EQ(retried.table(TableKind::VlArb).written, 1U);
  EXPECT_EQ(retried.table(TableKind::VlArb).read, 0U) << "a Stale block is written outright";
  EXPECT_EQ(bench.count(victimHere), 1U);
  const qos::QosVlArb& q = *std::ranges::find(tables.vlArb, PortRef{sw, 0}, &qos::QosVlArb::port);
  EXPECT_EQ(bench.wire().vlArb(PortRef{sw, 0}, vlArbBlock::kLowFirst),
            expectedBlock(q, vlArbBlock::kLowFirst, bench.wire().operationalVls(PortRef{sw, 0})));
}

}  // namespace
}  // namespace ibsm::sm::program
