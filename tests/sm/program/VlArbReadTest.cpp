// The VLArbitration tables, read only for the SA: diff() asks a Get of each
// block a port's caps offer and the held model does not know, in the phase
// after Active, and never again once a reply made it Known.
#include <gtest/gtest.h>
#include <ibsm/Engines.h>

#include <set>
#include <tuple>

#include "sm/program/Diff.h"
#include "tests/sm/program/SubnetSnapshot.h"

namespace ibsm::sm::program {
namespace {

using testing::snapshotOf;

constexpr PortRef kSm{2, 1};
constexpr PortRef kCa1{3, 1};
constexpr PortRef kSw1Port3{1, 3};
constexpr PortRef kSw1Port0{1, 0};

// (node, owner port, block, modifier) of each Get.
using Read = std::tuple<NodeId, std::uint8_t, std::uint16_t, std::uint32_t>;

class VlArbReadTest : public ::testing::Test {
 protected:
  VlArbReadTest() : discovered(snapshotOf(testing::twoSwitchFabric(), kSm)) {
    discovered.portInfo.at(kSm).capabilityMask |= capability::kIsSm;
    // The switches hold LIDs, as after the sweep that programmed them (one
    // without is reset, its tables forgotten).
    discovered.portInfo.at(PortRef{0, 0}).lid = Lid{1};
    discovered.portInfo.at(kSw1Port0).lid = Lid{2};
    for (auto& [ref, pi] : discovered.portInfo) {
      pi.vlArbitrationLowCap = 0;
      pi.vlArbitrationHighCap = 0;
    }
    PlanInputs inputs;
    inputs.engines = {"updn"};
    auto p = planSubnet(discovered.fabric, inputs, defaultRegistry());
    EXPECT_TRUE(p) << p.error().message;
    plan = *p;
  }

  std::vector<ProgramStep> reads() {
    held.observe(discovered);
    auto out = diff(plan, held, ProgramOptions{});
    EXPECT_TRUE(out) << out.error().message;
    return out->phase(ProgramPhase::ReadVlArb);
  }
  static std::set<Read> described(const std::vector<ProgramStep>& steps) {
    std::set<Read> out;
    for (const ProgramStep& s : steps) {
      EXPECT_EQ(s.request.method, Method::Get);
      EXPECT_EQ(s.request.attributeId, AttributeId::VlArbitrationTable);
      const auto& t = std::get<BlockTarget<VlArbKind>>(s.target);
      out.emplace(t.node, t.owner.port, t.index, s.request.attributeModifier);
    }
    return out;
  }
  // Every Get answered with a block whose first entry names its block number.
  void answer(const std::vector<ProgramStep>& steps, bool ok = true) {
    for (const ProgramStep& s : steps) {
      SmpReply reply;
      reply.outcome = ok ? SmpOutcome::Ok : SmpOutcome::Timeout;
      if (ok) {
        VlArbitrationBlock b;
        b.entries[0] = {
            .vl = 1,
            .weight = static_cast<std::uint8_t>(std::get<BlockTarget<VlArbKind>>(s.target).index)};
        reply.smp = Smp{};
        reply.smp->data = encode(b);
      }
      held.apply(s, reply);
    }
  }

  discovery::DiscoveredSubnet discovered;
  SubnetPlan plan;
  HeldSubnet held;
};

TEST_F(VlArbReadTest, PortsWithoutCapsAreNotRead) {
  EXPECT_TRUE(reads().empty());
}

TEST_F(VlArbReadTest, TheLowCapReadsBlocksOneAndTwoAndTheHighCapThreeAndFour) {
  discovered.portInfo.at(kCa1).lid = Lid{7};
  discovered.portInfo.at(kCa1).vlArbitrationLowCap = 64;
  discovered.portInfo.at(kSw1Port3).vlArbitrationLowCap = 64;
  discovered.portInfo.at(kSw1Port3).vlArbitrationHighCap = 64;
  // A CA port's table is reached through the port, modifier port 0; a
  // switch's names the output port.
  EXPECT_EQ(described(reads()), (std::set<Read>{
                                    {3, 1, 1, vlArbitrationModifier(1, 0)},
                                    {3, 1, 2, vlArbitrationModifier(2, 0)},
                                    {1, 3, 1, vlArbitrationModifier(1, 3)},
                                    {1, 3, 2, vlArbitrationModifier(2, 3)},
                                    {1, 3, 3, vlArbitrationModifier(3, 3)},
                                    {1, 3, 4, vlArbitrationModifier(4, 3)},
                                }));
}

TEST_F(VlArbReadTest, ACapOfAtMost32EntriesHasNoSecondBlock) {
  discovered.portInfo.at(kSw1Port3).vlArbitrationLowCap = 8;
  discovered.portInfo.at(kSw1Port3).vlArbitrationHighCap = 32;
  EXPECT_EQ(described(reads()), (std::set<Read>{{1, 3, 1, vlArbitrationModifier(1, 3)},
                                                {1, 3, 3, vlArbitrationModifier(3, 3)}}));
}

TEST_F(VlArbReadTest, SwitchPortZeroIsReadOnlyWithCaps) {
  discovered.portInfo.at(kSw1Port0).vlArbitrationHighCap = 40;
  EXPECT_EQ(described(reads()), (std::set<Read>{{1, 0, 3, vlArbitrationModifier(3, 0)},
                                                {1, 0, 4, vlArbitrationModifier(4, 0)}}));
}

TEST_F(VlArbReadTest, ACaPortIsReadInTheSweepThatGivesItItsLid) {
  discovered.portInfo.at(kCa1).lid = Lid{0};
  discovered.portInfo.at(kCa1).vlArbitrationLowCap = 8;
  EXPECT_EQ(described(reads()), (std::set<Read>{{3, 1, 1, vlArbitrationModifier(1, 0)}}));
}

TEST_F(VlArbReadTest, AKnownBlockIsNeverReadAgainAndItsContentsAreHeld) {
  discovered.portInfo.at(kSw1Port3).vlArbitrationLowCap = 64;
  answer(reads());
  EXPECT_TRUE(reads().empty());
  const auto& table = held.table<VlArbKind>();
  const PortKey owner{Guid{0x200001}, 3};
  ASSERT_TRUE(table.block(owner, 2));
  EXPECT_EQ(table.block(owner, 2)->entries[0].weight, 2);
}

TEST_F(VlArbReadTest, AFailedReadIsNotRepeatedEverySweep) {
  discovered.portInfo.at(kSw1Port3).vlArbitrationLowCap = 64;
  answer(reads(), false);
  EXPECT_TRUE(reads().empty());
  EXPECT_FALSE(held.table<VlArbKind>().block(PortKey{Guid{0x200001}, 3}, 1));
}

TEST_F(VlArbReadTest, AResetCaPortIsReadAfresh) {
  discovered.portInfo.at(kCa1).lid = Lid{7};
  discovered.portInfo.at(kCa1).vlArbitrationLowCap = 64;
  answer(reads());
  EXPECT_TRUE(reads().empty());
  discovered.portInfo.at(kCa1).lid = Lid{0};  // reset: its tables are the vendor's again
  EXPECT_EQ(reads().size(), 2U);
  EXPECT_FALSE(held.table<VlArbKind>().block(PortKey{Guid{0x100003}, 1}, 1));
}

TEST_F(VlArbReadTest, ForgettingTheSubnetReadsEverythingAgain) {
  discovered.portInfo.at(kSw1Port3).vlArbitrationHighCap = 64;
  answer(reads());
  held.forget();
  EXPECT_EQ(reads().size(), 2U);
}

}  // namespace
}  // namespace ibsm::sm::program
