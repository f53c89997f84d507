// The PKey blocks a takeover or a restart must read, read ahead: sent
// while the plan is made and diffed (ReadAhead.h), taken in before the
// ReadTables phase, which then sends none of them again; the writes are
// the ones a pass without the read ahead makes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/sm/program/ProgramBench.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::sm::program {
namespace {

constexpr std::uint16_t kDefault = 0xFFFF;
constexpr std::uint16_t kRedFull = 0x8002;

bool isPKeyGet(const Smp& m) {
  return isGet(m, AttributeId::PKeyTable);
}

NodeId node(const Fabric& f, std::string_view name) {
  for (NodeId n = 0; n < f.size(); ++n)
    if (f.node(n).description == name) return n;
  throw std::runtime_error("no node " + std::string(name));
}

// Two switches, two dual-port HCAs (PKeyProgrammingTest's fabric), every
// end port in the default partition and the switch ports facing the HCAs
// enforcing it; Switch1 and Hca2[2] carry LIDs another SM gave them, and
// Hca2[2] holds a partition of its own.
struct TakenOver {
  explicit TakenOver(bool readAhead) {
    bench.readAhead = readAhead;
    Fabric& wire = bench.wire().fabric();
    sw1 = node(wire, "Switch1");
    hca2 = node(wire, "Hca2");
    wire.node(sw1).switchData->enforcesPartitions = true;
    wire.port({hca2, 2}).lid = Lid{40};
    bench.wire().setPKeys({hca2, 2}, {kDefault, kRedFull});
    wire.port({sw1, 0}).lid = Lid{41};
  }
  ProgramSummary sweep() {
    return bench.sweep([](SubnetPlan& plan) {
      PKeyTables t;
      const Fabric& f = plan.fabric;
      for (NodeId n = 0; n < f.size(); ++n) {
        const Node& nd = f.node(n);
        for (std::uint8_t p = nd.isSwitch() ? 0 : 1; p <= nd.numPorts(); ++p) {
          const auto& remote = nd.ports[p].remote;
          if (nd.isSwitch() && p != 0 && (!remote || f.node(remote->node).isSwitch())) continue;
          if (!nd.isSwitch() && !remote) continue;
          t.ports.push_back({.port = {n, p}, .pkeys = {kDefault}, .enforce = nd.isSwitch()});
        }
      }
      sortByPort(t);
      plan.pkeys = std::move(t);
    });
  }
  // Every Set programming sent, as comparable lines, in order.
  std::vector<std::string> sets() const {
    std::vector<std::string> out;
    for (const auto& s : bench.programSmps()) {
      if (s.smp.header.method != Method::Set) continue;
      out.push_back(fmt::format("{:#x} {:#x} {}", static_cast<unsigned>(s.smp.header.attributeId),
                                s.smp.header.attributeModifier, fmt::join(s.smp.data, ",")));
    }
    return out;
  }

  ProgramBench bench{ibsm::testing::sampleFabric("two-switch-dual-port-hcas.net"), PortRef{0, 0},
                     "updn"};
  NodeId sw1{0}, hca2{0};
};

TEST(ReadAhead, ATakeoversPKeyReadsAreSentAheadAndNotAgain) {
  TakenOver plain(false);
  const ProgramSummary before = plain.sweep();
  ASSERT_TRUE(before.complete()) << ::testing::PrintToString(before.failures);
  ASSERT_GT(before.table(TableKind::PKey).read, 0U) << "the configured ports are read first";

  TakenOver ahead(true);
  const ProgramSummary s = ahead.sweep();
  EXPECT_TRUE(s.complete()) << ::testing::PrintToString(s.failures);
  EXPECT_EQ(s.readAhead, before.table(TableKind::PKey).read) << "the same blocks, read ahead";
  EXPECT_EQ(s.phase(ProgramPhase::ReadTables).requests, 0U) << "none read again";
  EXPECT_EQ(ahead.bench.count(isPKeyGet), s.readAhead) << "one Get a block";
  EXPECT_EQ(s.table(TableKind::PKey).read, before.table(TableKind::PKey).read);
  EXPECT_EQ(s.requests(TableKind::PKey), before.requests(TableKind::PKey));
  EXPECT_EQ(ahead.sets(), plain.sets()) << "the writes are those a pass without it sends";
  EXPECT_EQ(ahead.bench.wire().pkeys({ahead.hca2, 2})[1], 0) << "the other SM's partition is gone";
  ahead.bench.expectHoldsThePlan();
}

TEST(ReadAhead, ABlockWhoseReadAheadFailedIsWrittenOutrightAsAFailedReadIs) {
  TakenOver ahead(true);
  // Every attempt (3: the bench's 2 retries) of the first two PKey Gets to
  // Hca2, two hops away, is lost: the read ahead gives up on Hca2[2]'s two
  // blocks, which are then written unread (a failed read in the ReadTables
  // phase means the same: PROG-0308), not asked for again.
  std::size_t lost = 0;
  ahead.bench.wire().setFaults([&](const Smp& req, std::size_t) {
    const bool lose = lost < 6 && req.header.method == Method::Get &&
                      req.header.attributeId == AttributeId::PKeyTable && req.header.hopCount == 2;
    lost += lose ? 1 : 0;
    return ibsm::testing::FakeFabricTransport::Fate::dropped(lose);
  });
  const ProgramSummary s = ahead.sweep();
  ASSERT_EQ(lost, 6U);
  EXPECT_TRUE(s.complete()) << ::testing::PrintToString(s.failures);
  EXPECT_EQ(s.readAhead + 2, s.readAheadAsked) << "Hca2[2]'s two blocks were not answered";
  EXPECT_EQ(s.phase(ProgramPhase::ReadTables).requests, 0U) << "not read again";
  EXPECT_EQ(ahead.bench.count(isPKeyGet), s.readAheadAsked + 4) << "the 6 attempts lost, 2 Gets";
  EXPECT_EQ(ahead.bench.count([](const Smp& m) {
    return isSet(m, AttributeId::PKeyTable) && m.header.hopCount == 2;
  }),
            2U)
      << "both blocks of Hca2[2] written";
  EXPECT_EQ(ahead.bench.wire().pkeys({ahead.hca2, 2})[1], 0) << "the other SM's partition is gone";
}

TEST(ReadAhead, NothingIsReadAheadWhereEveryBlockIsKnown) {
  TakenOver ahead(true);
  ASSERT_TRUE(ahead.sweep().complete());
  EXPECT_TRUE(pkeyReadsAhead(ahead.bench.held()).empty()) << "the pass left every block known";
  const ProgramSummary again = ahead.sweep();
  EXPECT_EQ(again.readAheadAsked, 0U);
  EXPECT_EQ(ahead.bench.count(isPKeyGet), 0U);
}

}  // namespace
}  // namespace ibsm::sm::program
