// PKey tables and switch-edge enforcement, programmed through the real
// executor against the fake fabric: what is read, what is written, and
// what the ports hold afterwards. Fabric: two switches (Switch1 carries
// the SM on port 0), Hca1 on Switch1[1,2], Hca2 on Switch2[1,2]; CA ports
// and switch port 0 hold 64 PKeys (2 blocks), switch external ports 32.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "tests/sm/program/ProgramBench.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::sm::program {
namespace {

using Fate = ibsm::testing::FakeFabricTransport::Fate;

constexpr std::uint16_t kDefault = 0xFFFF;
constexpr std::uint16_t kBlueFull = 0x8001;
constexpr std::uint16_t kBlueLimited = 0x0001;
constexpr std::uint16_t kRedFull = 0x8002;

bool isPKeySet(const Smp& m) {
  return isSet(m, AttributeId::PKeyTable);
}
bool isPKeyGet(const Smp& m) {
  return isGet(m, AttributeId::PKeyTable);
}

class PKeyProgramming : public ::testing::Test {
 protected:
  PKeyProgramming() {
    Fabric f = ibsm::testing::sampleFabric("two-switch-dual-port-hcas.net");
    bench = std::make_unique<ProgramBench>(std::move(f), PortRef{0, 0}, "updn");
    Fabric& wire = bench->wire().fabric();
    sw1 = node(wire, "Switch1");
    sw2 = node(wire, "Switch2");
    hca1 = node(wire, "Hca1");
    hca2 = node(wire, "Hca2");
    wire.node(sw1).switchData->enforcesPartitions = true;
  }

  static NodeId node(const Fabric& f, std::string_view name) {
    for (NodeId n = 0; n < f.size(); ++n) {
      if (f.node(n).description == name) return n;
    }
    throw std::runtime_error("no node " + std::string(name));
  }

  // Blue: Hca1[1] full, Hca2[1] limited, enforced at Switch1[1]. Red (if
  // asked): Hca1[1] only. Every other listed port keeps just the default.
  PKeyTables tables(bool withRed) const {
    PKeyTables t;
    std::vector<std::uint16_t> hca1Keys{kDefault, kBlueFull};
    if (withRed) hca1Keys.push_back(kRedFull);
    t.ports.push_back({.port = {hca1, 1}, .pkeys = hca1Keys});
    t.ports.push_back({.port = {hca2, 1}, .pkeys = {kDefault, kBlueLimited}});
    t.ports.push_back({.port = {hca2, 2}, .pkeys = {kDefault}});
    t.ports.push_back({.port = {sw1, 0}, .pkeys = {kDefault}});
    t.ports.push_back({.port = {sw1, 1}, .pkeys = hca1Keys, .enforce = true});
    sortByPort(t);
    return t;
  }

  ProgramSummary sweep(std::optional<PKeyTables> t) {
    return bench->sweep([&](SubnetPlan& plan) { plan.pkeys = std::move(t); });
  }

  // The whole table the fake port holds, the plan's list padded with 0.
  std::vector<std::uint16_t> padded(std::vector<std::uint16_t> keys, std::size_t size) const {
    keys.resize(size, 0);
    return keys;
  }

  std::unique_ptr<ProgramBench> bench;
  NodeId sw1{0}, sw2{0}, hca1{0}, hca2{0};
};

// A port no SM has configured (no LID, no M_Key) holds the reset's table,
// IBA 10.9.2: 0xFFFF at index 0, the rest 0. Reading it first would cost a
// Get per block and tell nothing (issue 32: 14,544 Gets at radix 24).
TEST_F(PKeyProgramming, OnAFreshFabricNothingIsReadAndOnlyBlocksUnlikeTheResetDefaultAreWritten) {
  const ProgramSummary s = sweep(tables(false));
  EXPECT_TRUE(s.complete()) << ::testing::PrintToString(s.failures);
  EXPECT_EQ(s.table(TableKind::PKey).read, 0U);
  EXPECT_EQ(bench->count(isPKeyGet), 0U);
  // Block 0 of Hca1[1], Hca2[1] and Switch1[1]; the rest hold the default.
  EXPECT_EQ(s.table(TableKind::PKey).written, 3U);
  EXPECT_EQ(bench->count(isPKeySet), 3U);
  EXPECT_EQ(s.phase(ProgramPhase::PKeys).tableRequests[TableKind::PKey], 3U);
  EXPECT_EQ(s.requests(TableKind::PKey), 3U);

  const auto& wire = bench->wire();
  EXPECT_EQ(wire.pkeys({hca1, 1}), padded({kDefault, kBlueFull}, 64));
  EXPECT_EQ(wire.pkeys({hca2, 1}), padded({kDefault, kBlueLimited}, 64));
  EXPECT_EQ(wire.pkeys({hca2, 2}), padded({kDefault}, 64));
  EXPECT_EQ(wire.pkeys({sw1, 1}), padded({kDefault, kBlueFull}, 32));
  EXPECT_EQ(wire.pkeys({sw1, 2}), padded({kDefault}, 32)) << "not listed: left alone";
  bench->expectHoldsThePlan();
}

// A port that holds a LID was configured by an SM (this one before a
// restart, or another before a takeover): its table may hold anything, so
// every managed block is read, and only those unlike the plan written.
TEST_F(PKeyProgramming, APortAnSmConfiguredIsReadBeforeItIsWritten) {
  Fabric& wire = bench->wire().fabric();
  wire.port({hca2, 2}).lid = Lid{40};
  bench->wire().setPKeys({hca2, 2}, {kDefault, kRedFull});  // another SM's partition
  wire.port({sw1, 0}).lid = Lid{41};                        // Switch1 and its external ports
  const ProgramSummary s = sweep(tables(false));
  EXPECT_TRUE(s.complete()) << ::testing::PrintToString(s.failures);
  // 2 blocks of Hca2[2] and of Switch1[0], 1 of Switch1[1].
  EXPECT_EQ(s.table(TableKind::PKey).read, 5U);
  EXPECT_EQ(bench->count(isPKeyGet), 5U);
  // Red off Hca2[2]; block 0 of Hca1[1], Hca2[1], Switch1[1] as before.
  EXPECT_EQ(bench->count(isPKeySet), 4U);
  EXPECT_EQ(bench->wire().pkeys({hca2, 2}), padded({kDefault}, 64));
  bench->expectHoldsThePlan();
}

// An M_Key is set only by an SM: the port is configured, LID or not (its
// Sets then fail against the key this SM does not hold; the read is sent).
TEST_F(PKeyProgramming, APortHoldingAnMKeyIsReadBeforeItIsWritten) {
  bench->wire().protect({hca2, 2}, 0x1234, 0, std::chrono::seconds{0});  // bits 0: Gets show it
  const ProgramSummary s = sweep(tables(false));
  EXPECT_EQ(s.table(TableKind::PKey).read, 2U) << "the 2 blocks of Hca2[2] alone";
  EXPECT_EQ(bench->count(isPKeyGet), 2U);
}

TEST_F(PKeyProgramming, SwitchExternalPortsAreAddressedThroughTheModifierAndCaPortsByTheirRoute) {
  sweep(tables(false));
  std::set<std::uint32_t> switchModifiers;
  for (const auto& sent : bench->programSmps()) {
    if (!isPKeySet(sent.smp)) continue;
    // A CA takes the table of the port the SMP came in on: modifier 0.
    if (sent.smp.header.attributeModifier != 0) {
      switchModifiers.insert(sent.smp.header.attributeModifier);
    }
  }
  EXPECT_EQ(switchModifiers, (std::set<std::uint32_t>{pkeyModifier(0, 1)}));
}

TEST_F(PKeyProgramming, PKeysAreWrittenBeforeAnyPortInfo) {
  sweep(tables(false));
  bool portInfoSeen = false;
  for (const auto& sent : bench->programSmps()) {
    if (isSet(sent.smp, AttributeId::PortInfo)) portInfoSeen = true;
    if (isPKeySet(sent.smp)) {
      EXPECT_FALSE(portInfoSeen) << "a PKey Set after a PortInfo Set";
    }
  }
  EXPECT_TRUE(portInfoSeen);
}

TEST_F(PKeyProgramming, ASecondRunWithTheSameTablesSendsNoPKeySmpAtAll) {
  ASSERT_TRUE(sweep(tables(false)).complete());
  const ProgramSummary again = sweep(tables(false));
  EXPECT_TRUE(again.complete());
  EXPECT_EQ(bench->count(isPKeyGet), 0U);
  EXPECT_EQ(bench->count(isPKeySet), 0U);
  EXPECT_EQ(again.requests(TableKind::PKey), 0U);
  EXPECT_EQ(again.requests(), 0U) << "nothing else changed either";
}

TEST_F(PKeyProgramming, ARemovedPartitionDisappearsWithOneSetPerAffectedBlock) {
  ASSERT_TRUE(sweep(tables(true)).complete());
  EXPECT_EQ(bench->wire().pkeys({hca1, 1})[2], kRedFull);
  const ProgramSummary s = sweep(tables(false));
  EXPECT_TRUE(s.complete());
  EXPECT_EQ(bench->count(isPKeyGet), 0U);
  // Red lived in block 0 of Hca1[1] and of the switch port facing it.
  EXPECT_EQ(s.table(TableKind::PKey).written, 2U);
  EXPECT_EQ(bench->count(isPKeySet), 2U);
  EXPECT_EQ(bench->wire().pkeys({hca1, 1}), padded({kDefault, kBlueFull}, 64));
  EXPECT_EQ(bench->wire().pkeys({sw1, 1}), padded({kDefault, kBlueFull}, 32));
  EXPECT_EQ(bench->wire().pkeys({hca2, 1}), padded({kDefault, kBlueLimited}, 64));
}

TEST_F(PKeyProgramming, ASetAnsweredWithAnErrorStatusIsNotTakenAsDone) {
  bench->wire().setFaults([&](const Smp& req, std::size_t) {
    return isPKeySet(req) ? Fate::answeredWith(madstatus::kInvalidField) : Fate{};
  });
  const ProgramSummary first = sweep(tables(false));
  EXPECT_EQ(first.table(TableKind::PKey).written, 0U);
  EXPECT_EQ(first.phase(ProgramPhase::PKeys).failures, 3U);
  EXPECT_FALSE(first.complete());
  bench->wire().setFaults({});
  EXPECT_EQ(sweep(tables(false)).table(TableKind::PKey).written, 3U);
}

TEST_F(PKeyProgramming, ATableShorterThanBeforeHasItsTrailingBlockCleared) {
  PKeyTables big;
  std::vector<std::uint16_t> forty;
  for (std::uint16_t k = 0; k < 40; ++k) forty.push_back(static_cast<std::uint16_t>(0x8100 + k));
  big.ports.push_back({.port = {hca2, 1}, .pkeys = forty});
  ASSERT_TRUE(sweep(big).complete());
  EXPECT_EQ(bench->wire().pkeys({hca2, 1})[39], 0x8100 + 39);

  PKeyTables small;
  small.ports.push_back({.port = {hca2, 1}, .pkeys = {kDefault}});
  const ProgramSummary s = sweep(small);
  EXPECT_EQ(s.table(TableKind::PKey).written, 2U) << "block 0 changes, block 1 is cleared";
  EXPECT_EQ(bench->wire().pkeys({hca2, 1}), padded({kDefault}, 64));
}

TEST_F(PKeyProgramming, AFailedSetIsSentAgainByTheNextRunWithoutReadingFirst) {
  const NodeId target = hca2;
  // Hca2 is two hops from the SM (Switch1, Switch2, Hca2); only its port 1
  // needs a Set. Lost on the way, every retry too.
  bench->wire().setFaults([&](const Smp& req, std::size_t) {
    return Fate::dropped(isPKeySet(req) && req.header.hopCount == 2);
  });
  const ProgramSummary first = sweep(tables(false));
  EXPECT_FALSE(first.complete());
  ASSERT_EQ(first.failures.size(), 1U) << ::testing::PrintToString(first.failures);
  EXPECT_NE(first.failures[0].find("PKey block 0 of \"Hca2\"[1]"), std::string::npos)
      << first.failures[0];
  EXPECT_EQ(bench->wire().pkeys({target, 1})[1], 0U);

  bench->wire().setFaults({});
  const ProgramSummary second = sweep(tables(false));
  EXPECT_TRUE(second.complete()) << ::testing::PrintToString(second.failures);
  EXPECT_EQ(bench->count(isPKeyGet), 0U);
  EXPECT_EQ(bench->count(isPKeySet), 1U);
  EXPECT_EQ(bench->wire().pkeys({target, 1}), padded({kDefault, kBlueLimited}, 64));
}

TEST_F(PKeyProgramming, AResetNodeIsReadAgainAndReprogrammed) {
  ASSERT_TRUE(sweep(tables(false)).complete());
  // Hca1 reboots: no LID, the default table.
  bench->wire().fabric().port({hca1, 1}).lid = Lid{};
  bench->wire().setPKeys({hca1, 1}, {kDefault});
  const ProgramSummary s = sweep(tables(false));
  EXPECT_EQ(s.table(TableKind::PKey).read, 2U);
  EXPECT_EQ(bench->count(isPKeySet), 1U);
  EXPECT_EQ(bench->wire().pkeys({hca1, 1}), padded({kDefault, kBlueFull}, 64));
}

TEST_F(PKeyProgramming, EnforcementIsTurnedOnWhereThePlanAsksAndTheSwitchCan) {
  PKeyTables t = tables(false);
  t.ports.push_back({.port = {sw2, 1}, .pkeys = {kDefault, kBlueLimited}, .enforce = true});
  sortByPort(t);
  const ProgramSummary s = sweep(t);
  EXPECT_EQ(bench->wire().enforcement({sw1, 1}), std::pair(true, true));
  EXPECT_EQ(bench->wire().enforcement({sw1, 2}), std::pair(false, false)) << "not listed";
  // Switch2 cannot enforce: no table written to its ports, and a note says so.
  EXPECT_EQ(bench->wire().enforcement({sw2, 1}), std::pair(false, false));
  EXPECT_TRUE(std::ranges::any_of(s.notes, [](const std::string& n) {
    return n.find("Switch2") != std::string::npos &&
           n.find("PartitionEnforcementCap") != std::string::npos;
  })) << ::testing::PrintToString(s.notes);
  bench->expectHoldsThePlan();

  PKeyTables off = tables(false);
  off.ports[std::size_t(std::ranges::find(off.ports, PortRef{sw1, 1}, &PortPKeys::port) -
                        off.ports.begin())]
      .enforce = false;
  sweep(off);
  EXPECT_EQ(bench->wire().enforcement({sw1, 1}), std::pair(false, false));
  EXPECT_EQ(bench->count(isPKeySet), 0U) << "only the PortInfo changed";
}

TEST_F(PKeyProgramming, ASwitchThatIgnoresEnforcementIsNotAskedAgainEverySweep) {
  bench->wire().ignoreEnforcementSets();
  const ProgramSummary first = sweep(tables(false));
  ASSERT_TRUE(first.complete());
  EXPECT_EQ(bench->wire().enforcement({sw1, 1}), std::pair(false, false));
  EXPECT_EQ(first.quirksLearned, 1U);
  const ProgramSummary again = sweep(tables(false));
  EXPECT_EQ(again.requests(), 0U) << "no PortInfo Set to ask for enforcement again";
}

TEST_F(PKeyProgramming, WithoutPartitionsManagedNoPKeySmpIsSent) {
  ASSERT_TRUE(sweep(std::nullopt).complete());
  EXPECT_EQ(bench->count(isPKeyGet) + bench->count(isPKeySet), 0U);
  EXPECT_EQ(bench->wire().enforcement({sw1, 1}), std::pair(false, false));
}

TEST_F(PKeyProgramming, TablesNotSortedByPortAreRefused) {
  PKeyTables t = tables(false);
  std::ranges::reverse(t.ports);
  EXPECT_THROW(sweep(t), std::runtime_error);
  EXPECT_EQ(bench->count(isPKeyGet) + bench->count(isPKeySet), 0U);
}

}  // namespace
}  // namespace ibsm::sm::program
