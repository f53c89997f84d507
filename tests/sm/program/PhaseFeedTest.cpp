// A programming phase longer than SubnetProgrammer::kPhaseAhead: its SMPs
// are made as the first are answered, not all before the first goes out
// (issue 32). What the fabric ends up holding, what is sent, and what a
// lost Set leaves behind must be as for a short phase.
#include <gtest/gtest.h>
#include <ibsm/Engines.h>

#include "tests/sm/program/ProgramBench.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::sm::program {
namespace {

using ibsm::testing::FakeFabricTransport;
using Fate = FakeFabricTransport::Fate;

// A 3-level radix-16 fat tree: 320 switches, 1,344 LIDs, 22 LFT blocks a
// switch -- ~7,000 LFT Sets, more than the feed keeps ahead.
ProgramBench radix16() {
  Fabric f = ibsm::testing::generatedFabric(FatTreeSpec{.levels = 3, .radix = 16});
  const NodeId first = 0;
  const PortRef sm = f.node(first).isSwitch() ? PortRef{first, 0} : PortRef{first, 1};
  return ProgramBench(std::move(f), sm, "ftree");
}

TEST(PhaseFeed, ALongPhaseSendsEachStepOnceInOrderAndTheFabricHoldsThePlan) {
  ProgramBench bench = radix16();
  const ProgramSummary s = bench.sweep();
  ASSERT_TRUE(s.complete()) << ::testing::PrintToString(s.failures);
  const PhaseReport& lfts = s.phase(ProgramPhase::Lfts);
  ASSERT_GT(lfts.requests, SubnetProgrammer::kPhaseAhead) << "the fabric is too small to tell";
  EXPECT_EQ(lfts.transmissions, lfts.requests) << "nothing lost: no step sent twice";
  EXPECT_EQ(bench.count([](const Smp& m) { return isSet(m, AttributeId::LinearForwardingTable); }),
            s.table(TableKind::Lft).written);
  // Round robin over the switches (LftDiff.cpp) survives the feed: block
  // indexes never go down along the phase.
  std::uint32_t lastBlock = 0;
  for (const auto& sent : bench.programSmps()) {
    if (!isSet(sent.smp, AttributeId::LinearForwardingTable)) continue;
    EXPECT_GE(sent.smp.header.attributeModifier, lastBlock);
    lastBlock = sent.smp.header.attributeModifier;
  }
  bench.expectHoldsThePlan();
}

TEST(PhaseFeed, ASetLostPastTheLeadIsRetriedAndHoldsBackOnlyItsSwitch) {
  ProgramBench bench = radix16();
  const Fabric& fabric = bench.wire().fabric();
  const NodeId sw = fabric.switches().back();
  const DrPath path = ibsm::testing::routesFrom(fabric, bench.smPort())[sw];
  // The last block of the last switch: among the last steps of the phase.
  const std::uint32_t lastBlock = static_cast<std::uint32_t>(fabric.size() / kLftBlockSize);
  auto lost = [&](const Smp& m) {
    return isSet(m, AttributeId::LinearForwardingTable) &&
           m.header.attributeModifier == lastBlock && m.initialPath == path.initialPath() &&
           m.header.hopCount == path.hopCount();
  };
  bench.wire().setFaults(
      [&](const Smp& m, std::size_t) { return lost(m) ? Fate::dropped() : Fate{}; });
  const ProgramSummary failed = bench.sweep();
  ASSERT_GT(failed.phase(ProgramPhase::Lfts).requests, SubnetProgrammer::kPhaseAhead);
  EXPECT_EQ(failed.phase(ProgramPhase::Lfts).failures, 1U);
  EXPECT_GT(bench.count(lost), 1U) << "retried before given up";
  EXPECT_FALSE(failed.complete());
  EXPECT_GT(failed.phase(ProgramPhase::Active).deferred, 0U) << "the switch's links stay Armed";
  EXPECT_GT(failed.portsActivated, 0U) << "every other link goes Active";

  bench.wire().setFaults({});
  const ProgramSummary next = bench.sweep();
  EXPECT_TRUE(next.complete()) << ::testing::PrintToString(next.failures);
  EXPECT_EQ(bench.count(lost), 1U) << "only the lost block is written again";
  bench.expectHoldsThePlan();
}

}  // namespace
}  // namespace ibsm::sm::program
