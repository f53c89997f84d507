// "A reroute never leaves a moment with a loop": a tree moved to another
// root is reprogrammed by writes the switches may apply in any order. For
// each such move, every subset of the MftPrune writes applied to the old
// tables (every moment of the prune phase, whatever the order), then every
// subset of the Mfts writes applied to the pruned tables, is walked for a
// forwarding loop. The control: writing the new trees straight over the
// old ones (no prune phase) does loop at some moment, so the walker can
// see one.
#include <gtest/gtest.h>

#include "sm/program/Diff.h"
#include "tests/sm/program/MftBench.h"

namespace ibsm::sm::program {
namespace {

using ibsm::testing::sampleFabric;

constexpr std::uint16_t kMlid = 0xC000;

std::vector<ProgramStep> mftWrites(const ProgramDiff& d, ProgramPhase phase) {
  std::vector<ProgramStep> out;
  for (const ProgramStep& s : d.phase(phase))
    if (std::holds_alternative<BlockTarget<MftKind>>(s.target)) out.push_back(s);
  return out;
}

struct Moments {
  std::size_t walked{0};
  std::size_t loops{0};
};

// Every subset of `writes` applied on top of `start`.
Moments walkEverySubset(const MftImage& start, const std::vector<ProgramStep>& writes,
                        const SubnetPlan& plan, const Fabric& wireFabric) {
  Moments m;
  const std::size_t n = writes.size();
  for (std::uint64_t subset = 0; subset < (std::uint64_t{1} << n); ++subset) {
    MftImage image = start;
    for (std::size_t i = 0; i < n; ++i)
      if (((subset >> i) & 1U) != 0) image.apply(plan, wireFabric, writes[i]);
    ++m.walked;
    if (forwardsInALoop(wireFabric, image.masks())) ++m.loops;
  }
  return m;
}

// Programs `from`, then diffs `to` against what is held and walks every
// moment of both phases; returns the moments of each that loop.
std::pair<Moments, Moments> reprogram(ProgramBench& bench, const MftEntries& from,
                                      const MftEntries& to) {
  const ProgramSummary first = bench.sweep(withMfts(from));
  EXPECT_TRUE(first.complete()) << ::testing::PrintToString(first.failures);
  SubnetPlan plan = bench.plan();
  withMfts(to)(plan);
  auto d = diff(plan, bench.held(), bench.options);
  EXPECT_TRUE(d.has_value());
  const Fabric& f = bench.wire().fabric();
  const MftImage old(bench.wire(), kMlid);
  EXPECT_FALSE(forwardsInALoop(f, old.masks()));
  const auto prunes = mftWrites(*d, ProgramPhase::MftPrune);
  const auto grows = mftWrites(*d, ProgramPhase::Mfts);
  EXPECT_FALSE(prunes.empty());
  EXPECT_FALSE(grows.empty());
  MftImage pruned = old;
  for (const ProgramStep& s : prunes) pruned.apply(plan, f, s);
  return {walkEverySubset(old, prunes, plan, f), walkEverySubset(pruned, grows, plan, f)};
}

// The same move written the way an SM without a prune phase would: every
// planned block straight over the old one.
Moments direct(ProgramBench& bench, const MftEntries& from, const MftEntries& to) {
  const ProgramSummary first = bench.sweep(withMfts(from));
  EXPECT_TRUE(first.complete());
  SubnetPlan plan = bench.plan();
  withMfts(to)(plan);
  auto d = diff(plan, bench.held(), bench.options);
  std::vector<ProgramStep> writes;
  for (const ProgramStep& s : mftWrites(*d, ProgramPhase::Mfts)) writes.push_back(s);
  for (const ProgramStep& s : mftWrites(*d, ProgramPhase::MftPrune)) {
    // A prune of a block that also grows is skipped; a pure prune is the
    // planned block itself.
    const auto& t = std::get<BlockTarget<MftKind>>(s.target);
    const bool grows = std::ranges::any_of(writes, [&](const ProgramStep& w) {
      const auto& g = std::get<BlockTarget<MftKind>>(w.target);
      return g.node == t.node && g.index == t.index;
    });
    if (!grows) writes.push_back(s);
  }
  return walkEverySubset(MftImage(bench.wire(), kMlid), writes, plan, bench.wire().fabric());
}

TEST(MftLoopFreedom, ATreeMovedToTheOtherCableNeverLoopsAndWithoutThePruneItDoes) {
  auto bench = mftBench(sampleFabric("two-switch-dual-port-hcas.net"), PortRef{0, 0}, "updn");
  const Guid s1 = guidOf(*bench, "Switch1");
  const Guid s2 = guidOf(*bench, "Switch2");
  const MftEntries overPort3{{s1, {{kMlid, portsOf({1, 3})}}}, {s2, {{kMlid, portsOf({1, 3})}}}};
  const MftEntries overPort5{{s1, {{kMlid, portsOf({1, 5})}}}, {s2, {{kMlid, portsOf({1, 5})}}}};
  const auto [prune, grow] = reprogram(*bench, overPort3, overPort5);
  EXPECT_EQ(prune.walked, 4U);
  EXPECT_EQ(grow.walked, 4U);
  EXPECT_EQ(prune.loops, 0U);
  EXPECT_EQ(grow.loops, 0U);

  const Moments control = direct(*bench, overPort3, overPort5);
  EXPECT_EQ(control.walked, 4U);
  EXPECT_GT(control.loops, 0U);  // Switch1 on cable 5 while Switch2 is still on 3
}

// A two-level fat tree (4 leaves of 2 hosts, 2 spines); a group of every
// host rooted at spine `root`: each leaf sends up its first cable to the
// root and down to its hosts, the root down to every leaf.
MftEntries rootedAt(const Fabric& f, NodeId root) {
  MftEntries e;
  for (NodeId n = 0; n < f.size(); ++n) {
    const Node& leaf = f.node(n);
    if (!leaf.isSwitch() || n == root) continue;
    McPortMask mask;
    bool hasHosts = false;
    std::optional<std::uint8_t> up;
    for (std::uint8_t p = 1; p <= leaf.numPorts(); ++p) {
      const auto& r = leaf.ports[p].remote;
      if (!r) continue;
      if (!f.node(r->node).isSwitch()) {
        mask.set(p);
        hasHosts = true;
      } else if (r->node == root && !up) {
        up = p;
        e[f.node(root).guid][kMlid].set(r->port);
      }
    }
    if (!hasHosts) continue;  // the other spine: not in this tree
    if (up) mask.set(*up);
    e[leaf.guid][kMlid] = mask;
  }
  return e;
}

TEST(MftLoopFreedom, EveryMomentOfMovingAFatTreeGroupToTheOtherSpineIsLoopFree) {
  FatTreeSpec spec;
  spec.levels = 2;
  spec.radix = 4;
  Fabric f = ibsm::testing::generatedFabric(spec);
  std::vector<NodeId> spines;
  std::optional<PortRef> host;
  for (NodeId n = 0; n < f.size(); ++n) {
    const Node& node = f.node(n);
    if (!node.isSwitch()) {
      if (!host) host = PortRef{n, 1};
      continue;
    }
    bool hasHosts = false;
    for (std::uint8_t p = 1; p <= node.numPorts(); ++p) {
      const auto& r = node.ports[p].remote;
      hasHosts = hasHosts || (r && !f.node(r->node).isSwitch());
    }
    if (!hasHosts) spines.push_back(n);
  }
  ASSERT_EQ(spines.size(), 2U);
  ASSERT_TRUE(host);
  const MftEntries fromA = rootedAt(f, spines[0]);
  const MftEntries fromB = rootedAt(f, spines[1]);
  auto bench = mftBench(std::move(f), *host, "updn");
  const auto [prune, grow] = reprogram(*bench, fromA, fromB);
  EXPECT_GE(prune.walked, 32U);  // 4 leaves and spine A pruned
  EXPECT_GE(grow.walked, 32U);   // 4 leaves and spine B grown
  EXPECT_EQ(prune.loops, 0U);
  EXPECT_EQ(grow.loops, 0U);

  const Moments control = direct(*bench, fromA, fromB);
  EXPECT_GT(control.loops, 0U);
}

}  // namespace
}  // namespace ibsm::sm::program
