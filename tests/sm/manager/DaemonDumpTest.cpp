// What the daemon answers to `ibsm dump`: the tables as the SM knows the
// switches hold them, in the dry run's formats. Once programming has
// written a plan, each dump is the dry run's file of that plan byte for
// byte, and what the LFT dump lists is what the switches forward; a block
// the SM does not know (its Set failed) is left out rather than guessed;
// an SM that is not the master, or has programmed nothing, refuses.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <ibsm/Dumps.h>
#include <ibsm/Lids.h>

#include <algorithm>
#include <string>

#include "sm/manager/DaemonDump.h"
#include "tests/sm/program/MftBench.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::sm::manager {
namespace {

using control::DumpKind;
using ibsm::testing::FakeFabricTransport;
using ibsm::testing::sampleFabric;
using program::ProgramBench;

std::string dump(DumpKind kind, const ProgramBench& bench) {
  auto text = dumpHeldTables(kind, &bench.plan(), bench.held(), /*master=*/true);
  EXPECT_TRUE(text) << text.error().message;
  return text ? *text : std::string{};
}

// The SM on the fabric's first CA.
std::unique_ptr<ProgramBench> benchOn(Fabric f, const std::string& engine) {
  const PortRef sm{f.endNodes().front(), 1};
  return std::make_unique<ProgramBench>(std::move(f), sm, engine);
}

std::unique_ptr<ProgramBench> programmedFatTree() {
  auto bench = benchOn(sampleFabric("fat-tree-3level-k8.net"), "ftree");
  EXPECT_TRUE(bench->sweep().complete());
  return bench;
}

TEST(DaemonDump, LftsOfAFabricThatHoldsItsPlanAreTheDryRunsDumpByteForByte) {
  const auto bench = programmedFatTree();
  const std::string text = dump(DumpKind::Lfts, *bench);
  EXPECT_EQ(text, formatLftDump(bench->plan().fabric, bench->plan().routing));
  EXPECT_TRUE(text.starts_with("Unicast lids [0-")) << text.substr(0, 80);
}

TEST(DaemonDump, EveryLftEntryListedIsWhatTheSwitchForwards) {
  const auto bench = programmedFatTree();
  auto dumped = parseLftDump(dump(DumpKind::Lfts, *bench), "dump lfts");
  ASSERT_TRUE(dumped) << dumped.error().message;
  const Fabric& wire = bench->wire().fabric();
  ASSERT_EQ(dumped->size(), wire.switches().size());
  std::size_t entries = 0;
  for (const DumpedLft& d : *dumped) {
    const auto sw = wire.findNode(d.switchGuid);
    ASSERT_TRUE(sw) << d.description;
    const auto& holds = bench->wire().lft(*sw);
    for (std::size_t lid = 1; lid < d.lft.port.size(); ++lid) {
      const std::uint8_t onWire = lid < holds.size() ? holds[lid] : kNoRoute;
      // Past LinearFDBTop the switch forwards nothing: the dump lists nothing.
      const std::uint8_t forwards =
          lid <= wire.node(*sw).switchData->linearFdbTop ? onWire : kNoRoute;
      EXPECT_EQ(d.lft.port[lid], forwards) << d.description << " LID " << lid;
      entries += d.lft.port[lid] != kNoRoute;
    }
  }
  // 80 switches, each routing the 208 LIDs of the fabric.
  EXPECT_EQ(entries, 80U * 208U);
}

TEST(DaemonDump, Guid2LidIsTheLidsThePlanAssigned) {
  const auto bench = programmedFatTree();
  EXPECT_EQ(dump(DumpKind::Guid2Lid, *bench), formatGuid2Lid(toGuid2Lid(bench->plan().lids)));
}

TEST(DaemonDump, AnLftBlockWhoseSetFailedIsLeftOutNotGuessed) {
  auto owned = benchOn(sampleFabric("fat-tree-3level-k8.net"), "ftree");
  ProgramBench& bench = *owned;
  // Every Set of block 1 (LIDs 64-127) is lost, retries included.
  bench.wire().setFaults([](const Smp& m, std::size_t) {
    const bool lost =
        program::isSet(m, AttributeId::LinearForwardingTable) && m.header.attributeModifier == 1;
    return lost ? FakeFabricTransport::Fate::dropped(true) : FakeFabricTransport::Fate{};
  });
  EXPECT_FALSE(bench.sweep().complete());
  auto dumped = parseLftDump(dump(DumpKind::Lfts, bench), "dump lfts");
  ASSERT_TRUE(dumped) << dumped.error().message;
  for (const DumpedLft& d : *dumped) {
    for (std::size_t lid = 1; lid <= 207; ++lid) {
      const bool unknown = lid >= 64 && lid < 128;
      EXPECT_EQ(d.lft.port[lid] == kNoRoute, unknown) << d.description << " LID " << lid;
    }
  }
}

constexpr std::uint32_t kIsSlMappingSupported = 1U << 6;  // PortInfo:CapabilityMask

// The dragonfly sample with every CA port mapping SLs as ibsim's do, but
// the one named `without` (none: all).
Fabric dragonflyMappingSls(const std::string& without = {}) {
  Fabric f = sampleFabric("dragonfly-a4-p2-h2.net");
  for (const NodeId ca : f.endNodes())
    if (f.node(ca).description != without)
      f.node(ca).ports[1].capabilityMask |= kIsSlMappingSupported;
  return f;
}

// The switches' pairs and, after them, every CA port's own table (every SL
// on VL 0: planSubnet adds them where the engine layers SLs).
TEST(DaemonDump, Sl2VlOfADragonflyOnTwoVlsIsTheDryRunsSl2VlDump) {
  auto owned = benchOn(dragonflyMappingSls(), "dragonfly");
  ProgramBench& bench = *owned;
  bench.maxVls = 2;
  ASSERT_TRUE(bench.sweep().complete());
  ASSERT_FALSE(bench.plan().routing.sl2vl.empty());
  const std::string text = dump(DumpKind::Sl2Vl, bench);
  EXPECT_EQ(text, formatSl2VlDump(bench.plan().fabric, bench.plan().routing));
  EXPECT_TRUE(text.starts_with("switch 0x")) << text.substr(0, 80);
  EXPECT_NE(text.find("\nca 0x"), std::string::npos);
}

// A CA port without IsSLMappingSupported holds no table the SM wrote: the
// dump leaves it out, as it leaves out any table the SM does not know.
TEST(DaemonDump, Sl2VlLeavesOutACaPortThatMapsNoSls) {
  auto owned = benchOn(dragonflyMappingSls("h1_0_0"), "dragonfly");
  ProgramBench& bench = *owned;
  bench.maxVls = 2;
  ASSERT_TRUE(bench.sweep().complete());
  const std::string text = dump(DumpKind::Sl2Vl, bench);
  const std::string dry = formatSl2VlDump(bench.plan().fabric, bench.plan().routing);
  const Guid skipped =
      bench.plan().fabric.node(ibsm::testing::nodeNamed(bench.plan().fabric, "h1_0_0")).guid;
  const std::string line = fmt::format("ca {} port 1 :", skipped);
  EXPECT_NE(dry.find(line), std::string::npos);
  EXPECT_EQ(text.find(line), std::string::npos);
  EXPECT_EQ(std::ranges::count(text, '\n') + 1, std::ranges::count(dry, '\n'));
}

TEST(DaemonDump, Sl2VlIsEmptyWhenTheRoutesUseOneVl) {
  const auto bench = programmedFatTree();
  EXPECT_EQ(dump(DumpKind::Sl2Vl, *bench), "");
}

TEST(DaemonDump, MftsAreTheDryRunsMftDumpAcrossPortPositions) {
  // 24-port switches: ports 16-24 sit in the MFT's second position.
  Fabric f = ibsm::testing::generatedFabric(FatTreeSpec{.levels = 2, .radix = 24});
  const PortRef sm{f.endNodes().front(), 1};
  auto bench = program::mftBench(std::move(f), sm, "ftree");
  const Guid leaf = bench->wire().fabric().node(bench->wire().fabric().switches().front()).guid;
  const Guid other = bench->wire().fabric().node(bench->wire().fabric().switches().back()).guid;
  using program::portsOf;
  ASSERT_TRUE(bench
                  ->sweep(program::withMfts(
                      {{leaf, {{0xC001, portsOf({1, 17, 20})}, {0xC021, portsOf({18})}}},
                       {other, {{0xC001, portsOf({2, 24})}}}}))
                  .complete());
  const std::string text = dump(DumpKind::Mfts, *bench);
  EXPECT_EQ(text, formatMftDump(bench->plan().fabric, bench->plan().multicast->mfts));
  auto dumped = parseMftDump(text, "dump mfts");
  ASSERT_TRUE(dumped) << dumped.error().message;
  std::size_t entries = 0;
  for (const DumpedMft& d : *dumped) entries += d.mft.entries.size();
  EXPECT_EQ(entries, 3U);
}

TEST(DaemonDump, RefusesBeforeAnySweepAndOnAnSmThatIsNotTheMaster) {
  const auto bench = programmedFatTree();
  const auto standby =
      dumpHeldTables(DumpKind::Lfts, &bench->plan(), bench->held(), /*master=*/false);
  ASSERT_FALSE(standby);
  EXPECT_NE(standby.error().message.find("not the master"), std::string::npos);
  const auto early = dumpHeldTables(DumpKind::Lfts, nullptr, program::HeldSubnet{}, true);
  ASSERT_FALSE(early);
  EXPECT_NE(early.error().message.find("no sweep has programmed"), std::string::npos);
}

}  // namespace
}  // namespace ibsm::sm::manager
