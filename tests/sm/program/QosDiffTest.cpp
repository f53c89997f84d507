// diff() with plan.qosTables, the SL2VL and VLArbitration tables QoS asks
// of every port: the VLArbitration blocks (IBA 14.2.5.9) of a port QoS
// covers are read when unknown and written only where they differ, then
// never again; VLHighLimit rides on the port's PortInfo Set; the routing
// engine's SL2VL table wins over QoS's for the same port pair; and a plan
// without qosTables writes none of it.
#include <gtest/gtest.h>
#include <ibsm/Engines.h>
#include <ibsm/QosPolicy.h>

#include <algorithm>
#include <set>

#include "sm/program/Diff.h"
#include "sm/program/DiffParts.h"
#include "tests/sm/program/SubnetSnapshot.h"

namespace ibsm::sm::program {
namespace {

using testing::snapshotOf;

constexpr PortRef kSm{2, 1};
constexpr PortRef kCa1{3, 1};
constexpr PortRef kSw1Port3{1, 3};
constexpr PortRef kSw0Port3{0, 3};
constexpr PortRef kSw1Port1{1, 1};
const PortKey kSw1Port3Key{Guid{0x200001}, 3};
constexpr std::uint8_t kFourVls = 3;  // PortInfo VLCap code: VL0-3
constexpr std::uint32_t kIsSlMappingSupported = 1U << 6;

std::vector<qos::VlWeight> weights(std::size_t n, std::uint8_t vl) {
  std::vector<qos::VlWeight> out;
  for (std::size_t i = 0; i < n; ++i)
    out.push_back({.vl = vl, .weight = static_cast<std::uint8_t>(i + 1)});
  return out;
}

class QosDiffTest : public ::testing::Test {
 protected:
  QosDiffTest() : discovered(snapshotOf(testing::twoSwitchFabric(), kSm)) {
    discovered.portInfo.at(kSm).capabilityMask |= capability::kIsSm;
    discovered.portInfo.at(PortRef{0, 0}).lid = Lid{1};
    discovered.portInfo.at(PortRef{1, 0}).lid = Lid{2};
    for (auto& [ref, pi] : discovered.portInfo) {
      pi.vlCap = kFourVls;
      pi.vlArbitrationLowCap = 0;
      pi.vlArbitrationHighCap = 0;
    }
    PlanInputs inputs;
    inputs.engines = {"updn"};
    auto p = planSubnet(discovered.fabric, inputs, defaultRegistry());
    EXPECT_TRUE(p) << p.error().message;
    plan = *p;
  }

  ProgramDiff diffNow() {
    held.observe(discovered);
    auto out = diff(plan, held, ProgramOptions{});
    EXPECT_TRUE(out) << out.error().message;
    return out ? *out : ProgramDiff{};
  }
  // Every step's reply as the device would give it: a Get answers `stored`
  // (or zeros), a Set what it asked.
  void answer(const std::vector<ProgramStep>& steps,
              const std::map<std::uint16_t, VlArbitrationBlock>& stored = {}) {
    for (const ProgramStep& s : steps) {
      SmpReply reply;
      reply.outcome = SmpOutcome::Ok;
      reply.smp = Smp{};
      reply.smp->data = s.request.data;
      if (s.request.method == Method::Get) {
        const auto* t = std::get_if<BlockTarget<VlArbKind>>(&s.target);
        auto it = t ? stored.find(t->index) : stored.end();
        reply.smp->data = encode(it == stored.end() ? VlArbitrationBlock{} : it->second);
      }
      held.apply(s, reply);
    }
  }
  static std::vector<const ProgramStep*> of(const std::vector<ProgramStep>& steps, AttributeId id,
                                            Method method) {
    std::vector<const ProgramStep*> out;
    for (const ProgramStep& s : steps)
      if (s.request.attributeId == id && s.request.method == method) out.push_back(&s);
    return out;
  }
  static std::set<std::uint16_t> blocksOf(const std::vector<const ProgramStep*>& steps) {
    std::set<std::uint16_t> out;
    for (const ProgramStep* s : steps)
      out.insert(std::get<BlockTarget<VlArbKind>>(s->target).index);
    return out;
  }
  // What block `block` of the sw1 port 3 plan looks like on the wire.
  VlArbitrationBlock planned(std::uint16_t block) const {
    const qos::QosVlArb& q = plan.qosTables->vlArb.front();
    const auto& table = block <= vlArbBlock::kLowSecond ? q.low : q.high;
    const std::size_t first =
        (block == vlArbBlock::kLowSecond || block == vlArbBlock::kHighSecond) ? 32 : 0;
    VlArbitrationBlock b;
    for (std::size_t i = 0; i < 32 && first + i < table.size(); ++i)
      b.entries[i] = {.vl = table[first + i].vl, .weight = table[first + i].weight};
    return b;
  }
  void giveSw1Port3Tables(std::uint8_t highLimit = 0) {
    discovered.portInfo.at(kSw1Port3).vlArbitrationLowCap = 64;
    discovered.portInfo.at(kSw1Port3).vlArbitrationHighCap = 64;
    plan.qosTables = qos::QosTables{};
    plan.qosTables->vlArb.push_back(qos::QosVlArb{
        .port = kSw1Port3, .highLimit = highLimit, .high = weights(40, 3), .low = weights(64, 1)});
  }

  discovery::DiscoveredSubnet discovered;
  SubnetPlan plan;
  HeldSubnet held;
};

TEST_F(QosDiffTest, WithoutQosTablesNoVlArbitrationNorSl2VlTableIsWritten) {
  discovered.portInfo.at(kSw1Port3).vlArbitrationLowCap = 64;
  const ProgramDiff d = diffNow();
  for (const auto& phase : d.phases) {
    EXPECT_TRUE(of(phase, AttributeId::VlArbitrationTable, Method::Set).empty());
    EXPECT_TRUE(of(phase, AttributeId::SlToVlTable, Method::Get).empty());
    EXPECT_TRUE(of(phase, AttributeId::SlToVlTable, Method::Set).empty());
  }
  // Only the SA's reads, as before QoS.
  EXPECT_EQ(d.phase(ProgramPhase::ReadVlArb).size(), 2U);
}

TEST_F(QosDiffTest, ThePortsBlocksAreReadFirstThenOnlyThoseThatDifferAreWritten) {
  giveSw1Port3Tables();
  const ProgramDiff first = diffNow();
  const auto reads =
      of(first.phase(ProgramPhase::ReadTables), AttributeId::VlArbitrationTable, Method::Get);
  EXPECT_EQ(blocksOf(reads), (std::set<std::uint16_t>{1, 2, 3, 4}));
  EXPECT_TRUE(first.phase(ProgramPhase::ReadVlArb).empty()) << "written ports are not read twice";

  // The port already holds blocks 1 and 3 as planned.
  std::vector<ProgramStep> readSteps;
  for (const ProgramStep* s : reads) readSteps.push_back(*s);
  answer(readSteps, {{1, planned(1)}, {3, planned(3)}});
  const ProgramDiff writes = diffNow();
  EXPECT_TRUE(writes.phase(ProgramPhase::ReadTables).empty());
  const auto sets =
      of(writes.phase(ProgramPhase::Sl2Vl), AttributeId::VlArbitrationTable, Method::Set);
  ASSERT_EQ(blocksOf(sets), (std::set<std::uint16_t>{2, 4}));
  for (const ProgramStep* s : sets) {
    const auto block = std::get<BlockTarget<VlArbKind>>(s->target).index;
    EXPECT_EQ(s->request.attributeModifier, vlArbitrationModifier(block, 3));
    EXPECT_EQ(decodeVlArbitrationBlock(s->request.data), planned(block)) << "block " << block;
  }

  // Acknowledged: the next sweep sends no VLArbitration SMP at all.
  answer(writes.phase(ProgramPhase::Sl2Vl));
  const ProgramDiff again = diffNow();
  for (const auto& phase : again.phases) {
    EXPECT_TRUE(of(phase, AttributeId::VlArbitrationTable, Method::Get).empty());
    EXPECT_TRUE(of(phase, AttributeId::VlArbitrationTable, Method::Set).empty());
  }
}

TEST_F(QosDiffTest, OnlyTheEntriesBelowTheCapAreThePlansAndVlsThePortLacksAreFolded) {
  giveSw1Port3Tables();
  discovered.portInfo.at(kSw1Port3).vlArbitrationLowCap = 8;
  discovered.portInfo.at(kSw1Port3).vlArbitrationHighCap = 0;
  plan.qosTables->vlArb.front().low = weights(64, 6);  // VL6 on a port of VL0-3: VL2 (6 & 3)
  answer(diffNow().phase(ProgramPhase::ReadTables));
  const ProgramDiff d = diffNow();  // `sets` points into it
  const auto sets = of(d.phase(ProgramPhase::Sl2Vl), AttributeId::VlArbitrationTable, Method::Set);
  ASSERT_EQ(blocksOf(sets), (std::set<std::uint16_t>{1}));
  const VlArbitrationBlock b = decodeVlArbitrationBlock(sets.front()->request.data);
  for (std::size_t i = 0; i < 32; ++i) {
    if (i < 8) {
      EXPECT_EQ(b.entries[i].vl, 2) << i;
      EXPECT_EQ(b.entries[i].weight, i + 1) << i;
    } else {
      EXPECT_EQ(b.entries[i], VlArbitrationBlock::Entry{}) << "past the cap: as held, " << i;
    }
  }
}

// The PortInfo Set diff() asks of the port in the Lids phase, if any.
std::optional<PortInfo> portInfoSet(const ProgramDiff& d, PortRef port) {
  for (const ProgramStep& s : d.phase(ProgramPhase::Lids)) {
    const auto* t = std::get_if<PortInfoTarget>(&s.target);
    if (t && t->port == port) return decodePortInfo(s.request.data);
  }
  return std::nullopt;
}

TEST_F(QosDiffTest, VlHighLimitIsWrittenWithThePortInfoOfThePortsQosCovers) {
  // A port already set up (Active, its VLs running): no Set without QoS.
  discovered.portInfo.at(kSw1Port3).portState = PortState::Active;
  discovered.portInfo.at(kSw1Port3).operationalVls = kFourVls;
  ASSERT_FALSE(portInfoSet(diffNow(), kSw1Port3));

  giveSw1Port3Tables(/*highLimit=*/9);
  const auto set = portInfoSet(diffNow(), kSw1Port3);
  ASSERT_TRUE(set) << "a Set for the limit";
  EXPECT_EQ(set->vlHighLimit, 9);
  EXPECT_EQ(set->portState, PortState::NoChange);

  discovered.portInfo.at(kSw1Port3).vlHighLimit = 9;
  EXPECT_FALSE(portInfoSet(diffNow(), kSw1Port3)) << "the port holds it";
}

TEST_F(QosDiffTest, APortThatKeepsNoVlHighLimitIsNotAskedEverySweep) {
  discovered.portInfo.at(kSw1Port3).portState = PortState::Active;
  discovered.portInfo.at(kSw1Port3).operationalVls = kFourVls;
  giveSw1Port3Tables(/*highLimit=*/9);
  const ProgramDiff d = diffNow();
  // Acknowledged, but the port answers its old limit (ibsim keeps none).
  for (const ProgramStep& s : d.phase(ProgramPhase::Lids)) {
    const auto* t = std::get_if<PortInfoTarget>(&s.target);
    if (!t || t->port != kSw1Port3) continue;
    SmpReply reply;
    reply.outcome = SmpOutcome::Ok;
    reply.smp = Smp{};
    reply.smp->data = encode(discovered.portInfo.at(kSw1Port3));
    held.apply(s, reply);
  }
  EXPECT_TRUE(held.keepsNoHighLimit(kSw1Port3Key));
  EXPECT_FALSE(portInfoSet(diffNow(), kSw1Port3));
}

TEST_F(QosDiffTest, EachPortPairHasOneTableTheEnginesOrQoss) {
  // qos::planQosTables multiplies QoS classes into the engine's own tables,
  // so a plan never holds both for one pair: the diff refuses one that does.
  const std::array<std::uint8_t, 16> engineVls{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  const std::array<std::uint8_t, 16> qosVls{0, 2, 6, 15, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  plan.routing.sl2vl.push_back(Sl2VlEntry{.sw = 1, .inPort = 3, .outPort = 1, .vl = engineVls});
  plan.qosTables = qos::QosTables{};
  plan.qosTables->sl2vl = {qos::QosSl2Vl{.port = kSw1Port3, .inPort = 1, .vl = qosVls}};
  {
    const ProgramDiff d = diffNow();
    std::map<std::uint32_t, SlToVlTable> written;
    for (const ProgramStep* s :
         of(d.phase(ProgramPhase::Sl2Vl), AttributeId::SlToVlTable, Method::Set))
      written[s->request.attributeModifier] = decodeSlToVlTable(s->request.data);
    ASSERT_EQ(written.size(), 2U);
    EXPECT_EQ(written.at(slToVlModifier(3, 1)).vl, engineVls);
    // QoS's, with each VL the output port (VL0-3) lacks folded in; 15 drops.
    const std::array<std::uint8_t, 16> folded{0, 2, 2, 15, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    EXPECT_EQ(written.at(slToVlModifier(1, 3)).vl, folded);
  }
  plan.qosTables->sl2vl.push_back(qos::QosSl2Vl{.port = kSw1Port1, .inPort = 3, .vl = qosVls});
  held.observe(discovered);
  const auto refused = diff(plan, held, ProgramOptions{});
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("in port 3 out port 1 twice"), std::string::npos)
      << refused.error().message;
}

TEST_F(QosDiffTest, ACaPortsSl2VlTableIsWrittenOnlyWhereItMapsSls) {
  plan.qosTables = qos::QosTables{};
  plan.qosTables->sl2vl = {qos::QosSl2Vl{.port = kCa1, .inPort = 0, .vl = {0, 1, 2, 3}}};
  auto sl2vlSteps = [&] {
    const ProgramDiff d = diffNow();
    return of(d.phase(ProgramPhase::ReadTables), AttributeId::SlToVlTable, Method::Get).size() +
           of(d.phase(ProgramPhase::Sl2Vl), AttributeId::SlToVlTable, Method::Set).size();
  };
  EXPECT_EQ(sl2vlSteps(), 0U) << "no IsSLMappingSupported: OpenSM leaves it too";
  discovered.portInfo.at(kCa1).capabilityMask |= kIsSlMappingSupported;
  const ProgramDiff d = diffNow();
  const auto sets = of(d.phase(ProgramPhase::Sl2Vl), AttributeId::SlToVlTable, Method::Set);
  ASSERT_EQ(sets.size(), 1U);
  EXPECT_EQ(sets.front()->request.attributeModifier, 0U) << "a CA's one table";
  EXPECT_EQ(std::get<DrPath>(sets.front()->request.to), *pathToPort(discovered, kCa1))
      << "through the port";
}

TEST_F(QosDiffTest, TablesNamingAPortTheFabricLacksFailTheDiff) {
  plan.qosTables = qos::QosTables{};
  plan.qosTables->vlArb = {qos::QosVlArb{.port = PortRef{1, 9}}};
  held.observe(discovered);
  auto d = diff(plan, held, ProgramOptions{});
  ASSERT_FALSE(d);
  EXPECT_NE(d.error().message.find("VLArbitration"), std::string::npos) << d.error().message;
  plan.qosTables->vlArb.clear();
  plan.qosTables->sl2vl = {qos::QosSl2Vl{.port = PortRef{3, 0}, .inPort = 0}};  // a CA's port 0
  EXPECT_FALSE(diff(plan, held, ProgramOptions{}));
}

}  // namespace
}  // namespace ibsm::sm::program
