// PKey tables and partition enforcement programmed on a live ibsim fabric
// through the real engine (discovery, planSubnet, SubnetProgrammer), read
// back with infiniband-diags' `smpquery pkeys` and `smpquery portinfo`.
// The tests run in order on one SM that keeps its cache, as a daemon would:
// bring-up, a sweep with nothing changed, a partition removed.
//
//   run-with-ibsim.sh fat-tree-3level-k8.net -- PKeyProgramIbsim
//
// Partitions (by the edge switch a host hangs off): Blue 0x0001 with the
// hosts of edge0_0 full and those of edge1_0 limited; Red 0x0002 with the
// hosts of edge0_0 full. Every CA port and switch port 0 also holds the
// default 0xffff; edge ports facing members hold their host's table and
// are asked to enforce. Prints the PKey SMP counts of each sweep.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <ibsm/Engines.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <memory>
#include <sstream>

#include "sm/discovery/Discovery.h"
#include "sm/mad/MadEngine.h"
#include "sm/program/SubnetProgrammer.h"
#include "sm/transport/UmadTransport.h"

namespace ibsm {
namespace {

constexpr std::uint16_t kDefault = 0xFFFF;
constexpr std::uint16_t kBlue = 0x0001;
constexpr std::uint16_t kRed = 0x0002;
constexpr std::uint16_t kFull = 0x8000;

struct Sweep {
  sm::discovery::DiscoveredSubnet discovered;
  SubnetPlan plan;
  sm::program::ProgramSummary summary;
};

// The SM, kept across the tests like a running daemon keeps it.
struct Sm {
  std::unique_ptr<sm::transport::UmadTransport> port;
  std::unique_ptr<MadEngine> engine;
  sm::program::HeldSubnet held;
};

Sm& sm() {
  static Sm s = [] {
    Sm out;
    auto port = sm::transport::UmadTransport::open({});
    if (!port) throw std::runtime_error(port.error().message);
    out.port = std::move(*port);
    out.engine = std::make_unique<MadEngine>(*out.port);
    return out;
  }();
  return s;
}

const std::string& edgeOf(const Fabric& f, PortRef ca) {
  static const std::string kNone;
  const auto& remote = f.port(ca).remote;
  return remote ? f.node(remote->node).description : kNone;
}

PKeyTables partitions(const Fabric& f, bool withRed) {
  PKeyTables t;
  for (const NodeId n : f.switches()) t.ports.push_back({.port = {n, 0}, .pkeys = {kDefault}});
  for (const NodeId n : f.endNodes()) {
    for (const std::uint8_t p : f.node(n).endpointPorts()) {
      const PortRef ca{n, p};
      if (!f.port(ca).connected()) continue;
      std::vector<std::uint16_t> keys{kDefault};
      const std::string& edge = edgeOf(f, ca);
      if (edge == "edge0_0") keys.push_back(kBlue | kFull);
      if (edge == "edge1_0") keys.push_back(kBlue);
      if (edge == "edge0_0" && withRed) keys.push_back(kRed | kFull);
      t.ports.push_back({.port = ca, .pkeys = keys});
      if (keys.size() > 1)
        t.ports.push_back({.port = *f.port(ca).remote, .pkeys = keys, .enforce = true});
    }
  }
  sortByPort(t);
  return t;
}

Sweep sweep(bool withRed) {
  Sm& s = sm();
  sm::discovery::Discovery discovery(*s.engine, {}, spdlog::default_logger());
  auto subnet = discovery.run();
  if (!subnet) throw std::runtime_error(subnet.error().message);
  PlanInputs inputs;
  inputs.engines = {"ftree"};
  auto plan = planSubnet(subnet->fabric, inputs, defaultRegistry());
  if (!plan) throw std::runtime_error(plan.error().message);
  plan->pkeys = partitions(plan->fabric, withRed);
  s.held.observe(*subnet);
  sm::program::SubnetProgrammer programmer(*s.engine, s.held);
  auto summary = programmer.program(*plan);
  if (!summary) throw std::runtime_error(summary.error().message);
  const auto& p = *summary;
  std::printf(
      "PKey SMPs: %zu (%zu Gets, %zu Sets); blocks read %zu, written %zu; all SMPs %zu\n",
      p.requests(sm::program::TableKind::PKey),
      p.phase(sm::program::ProgramPhase::ReadTables).tableRequests[sm::program::TableKind::PKey],
      p.phase(sm::program::ProgramPhase::PKeys).tableRequests[sm::program::TableKind::PKey],
      p.table(sm::program::TableKind::PKey).read, p.table(sm::program::TableKind::PKey).written,
      p.requests());
  return Sweep{std::move(*subnet), std::move(*plan), std::move(*summary)};
}

std::string run(const std::string& command) {
  std::string out;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen((command + " 2>/dev/null").c_str(), "r"),
                                             pclose);
  if (!pipe) return out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, pipe.get()) != nullptr) out += buf;
  return out;
}

// `smpquery pkeys LID [PORT]`: every entry, in order.
std::vector<std::uint16_t> pkeysOnTheWire(Lid lid, std::optional<std::uint8_t> port) {
  // fmt::format, not `"..." + std::to_string(...)`: GCC 12 at -O3 takes the
  // latter for an overlapping copy (-Wrestrict, a false positive).
  std::string cmd = fmt::format("smpquery pkeys {}", lid.value);
  if (port) cmd += fmt::format(" {}", *port);
  std::istringstream lines(run(cmd));
  std::vector<std::uint16_t> keys;
  for (std::string line; std::getline(lines, line);) {
    const auto colon = line.find(':');
    if (colon == std::string::npos || line.find("capacity") != std::string::npos) continue;
    std::istringstream words(line.substr(colon + 1));
    for (std::string w; words >> w;)
      keys.push_back(static_cast<std::uint16_t>(std::stoul(w, nullptr, 16)));
  }
  return keys;
}

// Every listed port holds exactly its planned table (0-padded to what
// the port reports), read back by LID. Enforcement is not checked here:
// ibsim's PortInfo Set keeps only LID, SM LID, LMC, HOQLife, states and
// OperationalVLs, so PartEnforceInb/Outb always read 0 (the fake fabric's
// tests check the bits).
void expectTablesOnTheWire(const Sweep& s) {
  const Fabric& f = s.plan.fabric;
  std::size_t checked = 0;
  for (const PortPKeys& entry : s.plan.pkeys->ports) {
    const Node& node = f.node(entry.port.node);
    const bool external = node.isSwitch() && entry.port.port != 0;
    const Lid lid =
        f.port({entry.port.node, node.isSwitch() ? std::uint8_t{0} : entry.port.port}).lid;
    const auto held = pkeysOnTheWire(lid, external ? std::optional(entry.port.port) : std::nullopt);
    ASSERT_GE(held.size(), entry.pkeys.size()) << f.describe(entry.port);
    std::vector<std::uint16_t> want = entry.pkeys;
    want.resize(held.size(), 0);
    EXPECT_EQ(held, want) << f.describe(entry.port);
    ++checked;
  }
  std::printf("checked %zu PKey tables with smpquery\n", checked);
}

std::size_t members(const PKeyTables& t, std::uint16_t pkey) {
  return static_cast<std::size_t>(std::ranges::count_if(t.ports, [&](const PortPKeys& p) {
    return std::ranges::any_of(p.pkeys, [&](std::uint16_t k) { return (k & 0x7FFF) == pkey; });
  }));
}

TEST(PKeyProgramOnIbsim, BringUpWritesOnlyTheBlocksThatDifferAndTheWireHoldsThePlan) {
  const Sweep s = sweep(/*withRed=*/true);
  EXPECT_TRUE(s.summary.complete()) << ::testing::PrintToString(s.summary.failures);
  // Every table that holds more than the default: block 0, once.
  EXPECT_EQ(s.summary.table(sm::program::TableKind::PKey).written, members(*s.plan.pkeys, kBlue));
  EXPECT_EQ(
      s.summary.phase(sm::program::ProgramPhase::PKeys).tableRequests[sm::program::TableKind::PKey],
      members(*s.plan.pkeys, kBlue));
  expectTablesOnTheWire(s);
}

TEST(PKeyProgramOnIbsim, ASweepWithTheSamePartitionsSendsNoPKeySmp) {
  const Sweep s = sweep(/*withRed=*/true);
  EXPECT_TRUE(s.summary.complete());
  EXPECT_EQ(s.summary.requests(sm::program::TableKind::PKey), 0U);
  // Nor any other: ibsim ignored the enforcement bits once (PROG-0307).
  EXPECT_EQ(s.summary.requests(), 0U);
}

TEST(PKeyProgramOnIbsim, ARemovedPartitionCostsOneSetPerChangedBlockAndNoRead) {
  const std::size_t redMembers = members(partitions(sweep(true).plan.fabric, true), kRed);
  const Sweep s = sweep(/*withRed=*/false);
  EXPECT_TRUE(s.summary.complete());
  EXPECT_EQ(s.summary.phase(sm::program::ProgramPhase::ReadTables)
                .tableRequests[sm::program::TableKind::PKey],
            0U);
  EXPECT_EQ(s.summary.table(sm::program::TableKind::PKey).written, redMembers)
      << "block 0 of each port Red was in";
  EXPECT_EQ(s.summary.requests(sm::program::TableKind::PKey), redMembers);
  EXPECT_EQ(s.summary.requests(), redMembers) << "PKey Sets and nothing else";
  expectTablesOnTheWire(s);
}

}  // namespace
}  // namespace ibsm
