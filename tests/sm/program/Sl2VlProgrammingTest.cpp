// SL2VL programming against the in-memory fake fabric: a dragonfly routed
// on two VLs gets every SLtoVLMappingTable the engine lists, and every CA
// port its own (planSubnet(): every SL on VL 0), and enough OperationalVLs
// on its links before any of them goes Active; the tables of a node no SM
// has configured (no LID, no M_Key) are written unread, those of a node
// that holds a LID read once and written only where they differ; a failed
// Set is retried, and nothing is sent when the engine needs one VL or a CA
// port maps no SLs.
#include <gtest/gtest.h>

#include "sm/program/DiffParts.h"
#include "tests/sm/program/ProgramBench.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::sm::program {
namespace {

using ibsm::testing::FakeFabricTransport;
using Fate = FakeFabricTransport::Fate;

constexpr std::uint32_t kIsSlMappingSupported = 1U << 6;  // PortInfo:CapabilityMask

bool isSl2Vl(const Smp& m) {
  return m.header.attributeId == AttributeId::SlToVlTable;
}

// dragonfly-a4-p2-h2 as ibsim serves it: the SM on the first CA, every CA
// port advertising IsSLMappingSupported (ibsim's do).
std::unique_ptr<ProgramBench> dragonflyBench(std::uint8_t maxVls) {
  Fabric f = ibsm::testing::sampleFabric("dragonfly-a4-p2-h2.net");
  for (const NodeId ca : f.endNodes())
    for (std::uint8_t p = 1; p <= f.node(ca).numPorts(); ++p)
      f.node(ca).ports[p].capabilityMask |= kIsSlMappingSupported;
  auto bench = std::make_unique<ProgramBench>(std::move(f), PortRef{0, 1}, "dragonfly");
  bench->maxVls = maxVls;
  return bench;
}

// Every cabled port starts running VL0 only, so the run must raise it.
void startOnOneVl(FakeFabricTransport& wire) {
  const Fabric& f = wire.fabric();
  for (NodeId n = 0; n < f.size(); ++n) {
    for (std::uint8_t p = 1; p <= f.node(n).numPorts(); ++p) {
      if (f.node(n).ports[p].connected()) wire.setOperationalVls({n, p}, 1);
    }
  }
}

class Sl2VlOnDragonfly : public ::testing::Test {
 protected:
  std::unique_ptr<ProgramBench> bench = dragonflyBench(2);
};

TEST_F(Sl2VlOnDragonfly, ProgramsEveryListedPairAndTwoOperationalVlsBeforeAnyLinkIsActive) {
  startOnOneVl(bench->wire());
  const ProgramSummary s = bench->sweep();
  ASSERT_TRUE(s.complete()) << ::testing::PrintToString(s.failures);
  const auto& entries = bench->plan().routing.sl2vl;
  ASSERT_EQ(bench->plan().routing.engine, "dragonfly");
  ASSERT_EQ(bench->plan().routing.vlsUsed, 2);
  ASSERT_FALSE(entries.empty());

  for (const Sl2VlEntry& e : entries) {
    EXPECT_EQ(bench->wire().sl2vl(e.sw, e.inPort, e.outPort).vl, e.vl)
        << bench->wire().fabric().node(e.sw).description << " in " << int{e.inPort} << " out "
        << int{e.outPort};
  }
  // A fresh fabric: every node without a LID or an M_Key, so its tables are
  // the vendor's reset contents (ibsim's: SL n -> VL n), written unread.
  EXPECT_EQ(s.table(TableKind::Sl2Vl).read, 0U);
  EXPECT_EQ(s.table(TableKind::Sl2Vl).written, entries.size());
  EXPECT_EQ(s.phase(ProgramPhase::Sl2Vl).tableRequests[TableKind::Sl2Vl], entries.size());
  EXPECT_EQ(s.requests(TableKind::Sl2Vl), entries.size());

  const Fabric& f = bench->wire().fabric();
  for (NodeId n = 0; n < f.size(); ++n) {
    for (std::uint8_t p = 1; p <= f.node(n).numPorts(); ++p) {
      if (!f.node(n).ports[p].connected()) continue;
      EXPECT_GE(dataVls(bench->wire().operationalVls({n, p})), 2) << f.describe({n, p});
    }
  }

  // Order on the wire: OperationalVLs and every SL2VL Set before the first Armed.
  const auto smps = bench->programSmps();
  std::optional<std::size_t> lastVls, lastSl2Vl, firstArmed;
  for (std::size_t i = 0; i < smps.size(); ++i) {
    const Smp& m = smps[i].smp;
    if (isSet(m, AttributeId::PortInfo) && decodePortInfo(m.data).operationalVls == 4 &&
        decodePortInfo(m.data).portState == PortState::NoChange) {
      lastVls = i;
    }
    if (isSet(m, AttributeId::SlToVlTable)) lastSl2Vl = i;
    if (setsState(m, PortState::Armed) && !firstArmed) firstArmed = i;
  }
  ASSERT_TRUE(lastVls && lastSl2Vl && firstArmed);
  EXPECT_LT(*lastVls, *firstArmed);
  EXPECT_LT(*lastSl2Vl, *firstArmed);
  bench->expectHoldsThePlan();
}

TEST_F(Sl2VlOnDragonfly, ASecondSweepSendsNoSl2VlSmp) {
  ASSERT_TRUE(bench->sweep().complete());
  const ProgramSummary again = bench->sweep();
  EXPECT_TRUE(again.complete());
  EXPECT_EQ(bench->count(isSl2Vl), 0U);
  EXPECT_EQ(again.requests(), 0U) << "nothing at all: no read, no Set";
}

TEST_F(Sl2VlOnDragonfly, ARestartedSmWritesOnlyTheTablesThatDiffer) {
  // A configured fabric that holds every table but two, and an SM that
  // knows none of them.
  ASSERT_TRUE(bench->sweep().complete());
  const std::vector<Sl2VlEntry> entries = bench->plan().routing.sl2vl;
  ASSERT_GT(entries.size(), 2U);
  for (std::size_t i = 0; i < 2; ++i) {
    const Sl2VlEntry& e = entries[i];
    SlToVlTable dropsAll;
    dropsAll.vl.fill(15);  // no plan drops every SL
    bench->wire().setSl2Vl(e.sw, e.inPort, e.outPort, dropsAll);
  }
  bench->forgetEverything();
  const ProgramSummary s = bench->sweep();
  EXPECT_TRUE(s.complete());
  EXPECT_EQ(s.table(TableKind::Sl2Vl).read, entries.size());
  ASSERT_EQ(s.table(TableKind::Sl2Vl).written, 2U);
  std::vector<std::uint32_t> written;
  for (const auto& m : bench->programSmps()) {
    if (isSet(m.smp, AttributeId::SlToVlTable)) written.push_back(m.smp.header.attributeModifier);
  }
  EXPECT_EQ(written,
            (std::vector<std::uint32_t>{slToVlModifier(entries[0].inPort, entries[0].outPort),
                                        slToVlModifier(entries[1].inPort, entries[1].outPort)}));
}

TEST_F(Sl2VlOnDragonfly, AFailedSetHoldsItsSwitchBackAndIsSentAgainWithoutARead) {
  // The switch refuses the first table the plan lists, once.
  auto probe = dragonflyBench(2);
  ASSERT_TRUE(probe->sweep().complete());
  const Sl2VlEntry victim = probe->plan().routing.sl2vl.front();
  const std::uint32_t modifier = slToVlModifier(victim.inPort, victim.outPort);
  const DrPath path = ibsm::testing::routesFrom(bench->wire().fabric(), bench->smPort())[victim.sw];
  auto isVictim = [&](const Smp& m) {
    return isSet(m, AttributeId::SlToVlTable) && m.header.attributeModifier == modifier &&
           m.initialPath == path.initialPath() && m.header.hopCount == path.hopCount();
  };
  bench->wire().setFaults([&](const Smp& req, std::size_t) {
    return isVictim(req) ? Fate::answeredWith(madstatus::kInvalidField) : Fate{};
  });
  const ProgramSummary failed = bench->sweep();
  EXPECT_FALSE(failed.complete());
  EXPECT_EQ(failed.phase(ProgramPhase::Sl2Vl).failures, 1U);
  const Guid guid = bench->wire().fabric().node(victim.sw).guid;
  EXPECT_EQ(bench->held().table<Sl2VlKind>().block({guid, victim.inPort, victim.outPort}, 0),
            std::nullopt);
  ASSERT_FALSE(failed.failures.empty());
  EXPECT_NE(failed.failures.front().find(fmt::format("SL2VL table in port {} out port {} of switch",
                                                     victim.inPort, victim.outPort)),
            std::string::npos)
      << failed.failures.front();
  EXPECT_GT(failed.phase(ProgramPhase::Active).deferred, 0U) << "its switch's links wait";
  EXPECT_EQ(bench->wire().fabric().port({victim.sw, victim.outPort}).state, PortState::Armed);

  bench->wire().setFaults({});
  const ProgramSummary next = bench->sweep();
  EXPECT_TRUE(next.complete()) << ::testing::PrintToString(next.failures);
  EXPECT_EQ(bench->count(isSl2Vl), 1U) << "the one table, written and not read";
  EXPECT_EQ(bench->count(isVictim), 1U);
  EXPECT_EQ(bench->wire().sl2vl(victim.sw, victim.inPort, victim.outPort).vl, victim.vl);
  bench->expectHoldsThePlan();
}

TEST_F(Sl2VlOnDragonfly, ARestartedSmReadsEveryTableOnceAndWritesNone) {
  ASSERT_TRUE(bench->sweep().complete());
  bench->forgetEverything();
  const ProgramSummary s = bench->sweep();
  EXPECT_TRUE(s.complete());
  EXPECT_EQ(s.table(TableKind::Sl2Vl).read, bench->plan().routing.sl2vl.size());
  EXPECT_EQ(s.table(TableKind::Sl2Vl).written, 0U);
  EXPECT_EQ(bench->count([](const Smp& m) { return m.header.method == Method::Set; }), 0U);
}

TEST_F(Sl2VlOnDragonfly, ASwitchThatLostItsLidHasItsTablesWrittenUnread) {
  ASSERT_TRUE(bench->sweep().complete());
  const NodeId sw = ibsm::testing::nodeNamed(bench->wire().fabric(), "g3r1");
  bench->wire().fabric().port({sw, 0}).lid = Lid{};  // as after a reboot
  std::size_t tables = 0;
  for (const Sl2VlEntry& e : bench->plan().routing.sl2vl) tables += e.sw == sw ? 1 : 0;
  ASSERT_GT(tables, 0U);
  const ProgramSummary s = bench->sweep();
  EXPECT_TRUE(s.complete());
  EXPECT_EQ(s.table(TableKind::Sl2Vl).read, 0U) << "no LID, no M_Key: as its reset left them";
  EXPECT_EQ(s.table(TableKind::Sl2Vl).written, tables);
  EXPECT_EQ(s.requests(TableKind::Sl2Vl), tables) << "one Set a table, no Get";
}

TEST_F(Sl2VlOnDragonfly, AnActiveLinkRunningTooFewVlsIsNotedNotSet) {
  ASSERT_TRUE(bench->sweep().complete());
  const NodeId sw = ibsm::testing::nodeNamed(bench->wire().fabric(), "g0r0");
  // A local link, Active: routes arriving over a global link climb to VL1
  // on it. (A global link itself carries VL0 only on a full dragonfly.)
  bench->wire().setOperationalVls({sw, 3}, 1);
  const ProgramSummary s = bench->sweep();
  EXPECT_TRUE(s.complete());
  EXPECT_EQ(s.requests(), 0U) << "OperationalVLs of an Active port is not changed";
  ASSERT_EQ(s.notes.size(), 1U);
  EXPECT_NE(s.notes.front().find("1 link ports run fewer data VLs"), std::string::npos)
      << s.notes.front();
  EXPECT_NE(s.notes.front().find("\"g0r0\"[3]"), std::string::npos) << s.notes.front();
}

bool isCaEntry(const Fabric& f, const Sl2VlEntry& e) {
  return !f.node(e.sw).isSwitch();
}

// The SL2VL Sets of the last sweep with modifier 0: those of CA ports (no
// switch table of the dragonfly is (in 0, out 0), which the tests assert).
std::size_t caSl2VlSets(const ProgramBench& bench) {
  std::size_t n = 0;
  for (const auto& m : bench.programSmps())
    n += isSet(m.smp, AttributeId::SlToVlTable) && m.smp.header.attributeModifier == 0 ? 1 : 0;
  return n;
}

TEST_F(Sl2VlOnDragonfly, EveryCaPortGetsOneSetWithEverySlOnVl0) {
  ASSERT_TRUE(bench->sweep().complete());
  const Fabric& f = bench->wire().fabric();
  std::size_t cas = 0;
  for (const Sl2VlEntry& e : bench->plan().routing.sl2vl) {
    ASSERT_FALSE(f.node(e.sw).isSwitch() && e.inPort == 0 && e.outPort == 0);
    if (!isCaEntry(f, e)) continue;
    ++cas;
    EXPECT_EQ(bench->wire().sl2vl(e.sw, 0, e.outPort).vl, (std::array<std::uint8_t, 16>{}))
        << f.node(e.sw).description;
  }
  EXPECT_EQ(cas, f.endNodes().size()) << "one linked port each";
  EXPECT_EQ(caSl2VlSets(*bench), cas);
}

TEST_F(Sl2VlOnDragonfly, ACaTableHeldAsPlannedGetsNoSetOneThatDiffersOne) {
  // A configured fabric, every CA port holding the plan's table but
  // h1_0_0's, and an SM that knows none of them.
  ASSERT_TRUE(bench->sweep().complete());
  const NodeId odd = ibsm::testing::nodeNamed(bench->wire().fabric(), "h1_0_0");
  bench->wire().setSl2Vl(odd, 0, 1, SlToVlTable{.vl = {0, 1}});
  bench->forgetEverything();
  const ProgramSummary s = bench->sweep();
  ASSERT_TRUE(s.complete()) << ::testing::PrintToString(s.failures);
  EXPECT_EQ(caSl2VlSets(*bench), 1U) << "h1_0_0's alone, modifier 0";
  EXPECT_EQ(bench->wire().sl2vl(odd, 0, 1).vl, (std::array<std::uint8_t, 16>{}));
  // Held now as planned: later sweeps send nothing; a restarted SM reads
  // every CA table once and writes none.
  ASSERT_TRUE(bench->sweep().complete());
  EXPECT_EQ(bench->count(isSl2Vl), 0U);
  bench->forgetEverything();
  ASSERT_TRUE(bench->sweep().complete());
  EXPECT_EQ(caSl2VlSets(*bench), 0U);
}

TEST(Sl2VlOnCa, APortThatMapsNoSlsIsLeftAlone) {
  auto bench = dragonflyBench(2);
  const NodeId hca = ibsm::testing::nodeNamed(bench->wire().fabric(), "h1_0_0");
  bench->wire().fabric().port({hca, 1}).capabilityMask &= ~kIsSlMappingSupported;
  const ProgramSummary s = bench->sweep();
  EXPECT_TRUE(s.complete()) << ::testing::PrintToString(s.failures);
  const Fabric& f = bench->wire().fabric();
  std::size_t cas = 0;
  for (const Sl2VlEntry& e : bench->plan().routing.sl2vl) cas += isCaEntry(f, e) ? 1 : 0;
  EXPECT_EQ(caSl2VlSets(*bench), cas - 1);
  EXPECT_EQ(s.table(TableKind::Sl2Vl).written, bench->plan().routing.sl2vl.size() - 1);
  EXPECT_EQ(bench->wire().sl2vl(hca, 0, 1).vl[1], 1) << "ibsim's reset table, untouched";
}

TEST(Sl2VlOnOneVl, NothingSl2VlIsSentWhenTheEngineNeedsOneVl) {
  auto bench = dragonflyBench(1);
  const ProgramSummary s = bench->sweep();
  EXPECT_TRUE(s.complete()) << ::testing::PrintToString(s.failures);
  EXPECT_TRUE(bench->plan().routing.sl2vl.empty());
  EXPECT_EQ(bench->plan().routing.vlsUsed, 1);
  EXPECT_EQ(bench->count(isSl2Vl), 0U);
  EXPECT_EQ(s.requests(TableKind::Sl2Vl), 0U);
}

TEST(Sl2VlOnCa, ACaEntryIsWrittenThroughItsOwnPortWithModifierZero) {
  auto bench = dragonflyBench(1);
  const NodeId hca = ibsm::testing::nodeNamed(bench->wire().fabric(), "h1_0_0");
  Sl2VlEntry wanted{hca, 0, 1, {}};
  wanted.vl.fill(1);
  const ProgramSummary s = bench->sweep([&](SubnetPlan& plan) { plan.routing.sl2vl = {wanted}; });
  EXPECT_TRUE(s.complete()) << ::testing::PrintToString(s.failures);
  EXPECT_EQ(bench->wire().sl2vl(hca, 0, 1).vl, wanted.vl);
  EXPECT_EQ(
      bench->count([](const Smp& m) { return isSl2Vl(m) && m.header.attributeModifier == 0; }), 1U)
      << "one Set, unread: no SM configured the port";
}

TEST(Sl2VlPlanCheck, AnEntryNamingAPortTheSwitchLacksIsAStalePlan) {
  auto bench = dragonflyBench(2);
  const NodeId sw = ibsm::testing::nodeNamed(bench->wire().fabric(), "g0r0");
  EXPECT_THROW(bench->sweep([&](SubnetPlan& plan) {
    plan.routing.sl2vl.push_back(Sl2VlEntry{sw, 1, 9, {}});
  }),
               std::runtime_error);
  EXPECT_EQ(bench->count(isSl2Vl), 0U);
}

}  // namespace
}  // namespace ibsm::sm::program
