// One diff a programming pass (issue 32): once the ReadTables phase is
// answered, settleAfterReads() turns the diff made before it into the one
// diff() would make now -- the same writes, step for step, in the same
// order -- without making it again. And the LFT blocks come round robin
// over the switches, so a window paced per switch stays full to the end.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <ibsm/Engines.h>
#include <ibsm/QosPolicy.h>
#include <ibsm/Topology.h>
#include <ibsm/TopologyGenerator.h>

#include <map>
#include <string>
#include <vector>

#include "sm/program/Diff.h"
#include "sm/security/Secret.h"
#include "tests/sm/program/SubnetSnapshot.h"

namespace ibsm::sm::program {
namespace {

using testing::snapshotOf;

constexpr PortRef kSm{2, 1};
constexpr PortRef kSw1Port3{1, 3};

SubnetPlan planFor(const Fabric& fabric) {
  PlanInputs inputs;
  inputs.engines = {"updn"};
  auto plan = planSubnet(fabric, inputs, defaultRegistry());
  EXPECT_TRUE(plan) << plan.error().message;
  return *plan;
}

std::string route(const std::variant<DrPath, Lid>& to) {
  if (const auto* dr = std::get_if<DrPath>(&to)) return dr->toString();
  return fmt::format("lid {}", std::get<Lid>(to).value);
}

// What a step sends, and to what, as one comparable line.
std::string signature(const Fabric& fabric, const ProgramStep& s) {
  return fmt::format("{} {} {:#x} {:#x} {} {}", describeTarget(fabric, s.target),
                     static_cast<int>(s.request.method),
                     static_cast<unsigned>(s.request.attributeId), s.request.attributeModifier,
                     route(s.request.to), fmt::join(s.request.data, ","));
}

// The writes of every phase programming sends after the reads.
std::vector<std::vector<std::string>> writes(const Fabric& fabric, const ProgramDiff& d) {
  std::vector<std::vector<std::string>> out;
  for (std::size_t p = 0; p < kProgramPhases; ++p) {
    const auto phase = static_cast<ProgramPhase>(p);
    if (phase == ProgramPhase::ReadTables || phase == ProgramPhase::ReadVlArb) continue;
    auto& lines = out.emplace_back();
    for (const ProgramStep& s : d.phase(phase)) lines.push_back(signature(fabric, s));
  }
  return out;
}

class DiffOnceTest : public ::testing::Test {
 protected:
  DiffOnceTest() : discovered(snapshotOf(testing::twoSwitchFabric(), kSm)) {
    discovered.portInfo.at(kSm).capabilityMask |= capability::kIsSm;
    plan = planFor(discovered.fabric);
  }
  // Answers each Get of `reads` with `stored(step)`'s bytes, as a device would.
  template <typename Stored>
  void answer(const std::vector<ProgramStep>& reads, Stored&& stored) {
    for (const ProgramStep& s : reads) {
      SmpReply reply;
      reply.outcome = SmpOutcome::Ok;
      reply.smp = Smp{};
      reply.smp->data = stored(s);
      held.apply(s, reply);
    }
  }
  // diff(), reads answered by `stored`, settled; and diff() made again.
  template <typename Stored>
  void expectSettledAsDiffedAgain(Stored&& stored) {
    held.observe(discovered);
    auto first = diff(plan, held, options);
    ASSERT_TRUE(first) << first.error().message;
    ASSERT_FALSE(first->phase(ProgramPhase::ReadTables).empty()) << "the case must read";
    answer(first->phase(ProgramPhase::ReadTables), stored);
    auto again = diff(plan, held, options);
    ASSERT_TRUE(again);
    const auto before = writes(discovered.fabric, *first);
    ASSERT_TRUE(settleAfterReads(plan, held, options, *first));
    EXPECT_TRUE(first->phase(ProgramPhase::ReadTables).empty());
    EXPECT_EQ(writes(discovered.fabric, *first), writes(discovered.fabric, *again));
    EXPECT_NE(before, writes(discovered.fabric, *first)) << "the reads must change something";
  }

  discovery::DiscoveredSubnet discovered;
  SubnetPlan plan;
  HeldSubnet held;
  ProgramOptions options;
};

// A switch that forwards (a restart): its blocks are read; those holding
// the plan are not written, the one that differs is.
TEST_F(DiffOnceTest, LftBlocksReadAsPlannedAreDroppedAndADifferentOneKept) {
  for (const NodeId sw : {NodeId{0}, NodeId{1}})
    discovered.switchInfo.at(sw).linearFdbTop = plan.routing.lfts[sw].top().value;
  expectSettledAsDiffedAgain([&](const ProgramStep& s) {
    const auto& b = std::get<BlockTarget<LftKind>>(s.target);
    LftBlock held = lftBlock(plan.routing.lfts[b.node].port, b.index, kNoRoute);
    if (b.node == 1) held.ports[1] = 7;  // sw1 routes one LID elsewhere
    return encode(held);
  });
}

// VLArbitration blocks keep, past the entries QoS plans, what was read: the
// writes are made again from it, as a second diff would.
TEST_F(DiffOnceTest, VlArbWritesAreMadeAgainFromWhatWasRead) {
  for (auto& [ref, pi] : discovered.portInfo) {
    pi.vlCap = 3;
    pi.vlArbitrationLowCap = 0;
    pi.vlArbitrationHighCap = 0;
  }
  discovered.portInfo.at(kSw1Port3).vlArbitrationLowCap = 40;
  discovered.portInfo.at(kSw1Port3).vlArbitrationHighCap = 40;
  plan.qosTables = qos::QosTables{};
  std::vector<qos::VlWeight> some(10, qos::VlWeight{.vl = 1, .weight = 4});
  plan.qosTables->vlArb.push_back(
      qos::QosVlArb{.port = kSw1Port3, .highLimit = 0, .high = some, .low = some});
  expectSettledAsDiffedAgain([](const ProgramStep& s) {
    VlArbitrationBlock b;
    for (auto& e : b.entries) e = {.vl = 2, .weight = 9};  // past the plan's 10: kept
    if (std::get<BlockTarget<VlArbKind>>(s.target).index % 2 == 1) b.entries[0].weight = 4;
    return encode(b);
  });
}

TEST_F(DiffOnceTest, NoReadsLeaveTheDiffAsItWas) {
  held.observe(discovered);
  auto d = diff(plan, held, options);
  ASSERT_TRUE(d);
  ASSERT_TRUE(d->phase(ProgramPhase::ReadTables).empty());
  const auto before = writes(discovered.fabric, *d);
  ASSERT_TRUE(settleAfterReads(plan, held, options, *d));
  EXPECT_EQ(writes(discovered.fabric, *d), before);
}

// program() never sends ReadVlArb (readForSa() does, once the subnet is
// up): its diff makes none, and everything else as diff() with All does;
// readForSa()'s makes the same reads as All.
TEST_F(DiffOnceTest, EachScopeMakesOnlyWhatItsCallerSends) {
  for (auto& [ref, pi] : discovered.portInfo) {
    pi.vlArbitrationLowCap = 8;
    pi.vlArbitrationHighCap = 8;
  }
  held.observe(discovered);
  auto all = diff(plan, held, options, DiffScope::All);
  auto program = diff(plan, held, options, DiffScope::Program);
  auto sa = diff(plan, held, options, DiffScope::SaReads);
  ASSERT_TRUE(all && program && sa);
  const auto& reads = all->phase(ProgramPhase::ReadVlArb);
  ASSERT_FALSE(reads.empty()) << "the case must have VLArbitration blocks to read";
  EXPECT_TRUE(program->phase(ProgramPhase::ReadVlArb).empty());
  EXPECT_EQ(writes(discovered.fabric, *program), writes(discovered.fabric, *all));
  std::vector<std::string> allReads, saReads;
  for (const ProgramStep& s : reads) allReads.push_back(signature(discovered.fabric, s));
  for (const ProgramStep& s : sa->phase(ProgramPhase::ReadVlArb))
    saReads.push_back(signature(discovered.fabric, s));
  EXPECT_EQ(saReads, allReads);
}

// M_Keys derived per port (HMAC) are worked out once per port and scheme,
// whatever the diffs made from the same held model; forget() (a takeover)
// works them out again.
TEST_F(DiffOnceTest, EachPortsKeyIsDerivedOncePerHeldModel) {
  security::Secret secret;
  secret.bytes.fill(0x42);
  options.mKeys = security::KeyScheme::derived(secret);
  held.observe(discovered);
  auto first = diff(plan, held, options);
  ASSERT_TRUE(first);
  // CA ports and switch port 0: the ports that hold a key.
  std::size_t keyed = 0;
  for (const auto& [ref, pi] : discovered.portInfo)
    keyed += !discovered.fabric.node(ref.node).isSwitch() || ref.port == 0;
  EXPECT_EQ(held.keyCache().counts().computed, keyed);
  auto second = diff(plan, held, options);
  ASSERT_TRUE(second);
  EXPECT_EQ(held.keyCache().counts().computed, keyed) << "a second diff derived keys again";
  EXPECT_EQ(writes(discovered.fabric, *second), writes(discovered.fabric, *first));
  held.forget();
  held.observe(discovered);
  ASSERT_TRUE(diff(plan, held, options));
  EXPECT_EQ(held.keyCache().counts().computed, keyed) << "a fresh model derives afresh";
}

// A k8 tree's LFT phase: every switch's SwitchInfo Set first, then block 0
// of every switch in switch order, block 1 of every switch, and so on.
TEST(LftOrder, BlocksComeRoundRobinOverTheSwitches) {
  auto net = generateNetFile(FatTreeSpec{.levels = 3, .radix = 8});
  ASSERT_TRUE(net);
  auto fabric = parseNetFile(*net, "k8");
  ASSERT_TRUE(fabric);
  const Fabric f = testing::unprogrammed(*fabric);
  const PortRef sm{f.endNodes().front(), 1};
  HeldSubnet held;
  held.observe(snapshotOf(f, sm));
  const SubnetPlan plan = planFor(f);
  auto d = diff(plan, held, ProgramOptions{});
  ASSERT_TRUE(d) << d.error().message;
  std::map<std::uint16_t, std::vector<NodeId>> byBlock;
  std::size_t tops = 0;
  std::optional<std::pair<std::uint16_t, NodeId>> last;
  for (const ProgramStep& s : d->phase(ProgramPhase::Lfts)) {
    if (std::holds_alternative<SwitchInfoTarget>(s.target)) {
      EXPECT_FALSE(last) << "a LinearFDBTop Set after the blocks began";
      ++tops;
      continue;
    }
    const auto& b = std::get<BlockTarget<LftKind>>(s.target);
    const std::pair<std::uint16_t, NodeId> at{b.index, b.node};
    if (last) {
      EXPECT_LT(*last, at) << "blocks out of round-robin order";
    }
    last = at;
    byBlock[b.index].push_back(b.node);
  }
  EXPECT_EQ(tops, f.switches().size());
  ASSERT_GE(byBlock.size(), 2U) << "the tree must need more than one block a switch";
  for (const auto& [index, switches] : byBlock) EXPECT_EQ(switches.size(), f.switches().size());
}

}  // namespace
}  // namespace ibsm::sm::program
