// The daemon's `ibsm dump sl2vl` and `ibsm path` under QoS (issue 30): once
// programming has written a plan whose QoS tables cover every port, the
// dump lists each of them as the port holds it (CA ports included), the
// dry run's sl2vl.dump byte for byte, and a
// path walks on the SL of the QoS level the SA gives the pair, every hop on
// the VL its port's table holds for that SL.
#include <gtest/gtest.h>
#include <ibsm/Dumps.h>
#include <ibsm/ProgrammedSl2Vl.h>
#include <ibsm/QosOptions.h>

#include <nlohmann/json.hpp>

#include "sm/control/PathRequest.h"
#include "sm/manager/DaemonDump.h"
#include "sm/manager/DaemonPath.h"
#include "tests/sm/program/ProgramBench.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::sm::manager {
namespace {

using program::ProgramBench;
using Json = nlohmann::json;

constexpr std::uint32_t kIsSlMappingSupported = 1U << 6;
constexpr std::uint8_t kLevelSl = 6;

class DaemonQosTables : public ::testing::Test {
 protected:
  DaemonQosTables()
      : bench(ibsm::testing::sampleFabric("fat-tree-3level-k8.net"), {0, 1}, "ftree") {
    Fabric& f = bench.wire().fabric();
    for (NodeId n = 0; n < f.size(); ++n)
      if (!f.node(n).isSwitch())
        for (std::uint8_t p = 1; p <= f.node(n).numPorts(); ++p)
          f.node(n).ports[p].capabilityMask |= kIsSlMappingSupported;
    // SL s on VL s % 4 (a CA's SL 6 on VL 2), and a policy whose DEFAULT
    // level is SL 6.
    qos::QosOptions options;
    options.enabled = true;
    std::array<std::uint8_t, 16> vls{};
    for (std::uint8_t sl = 0; sl < 16; ++sl) vls[sl] = sl % 4;
    options.all.sl2vl = vls;
    auto policy = std::make_shared<qos::QosPolicy>();
    policy->levels = {{.name = "DEFAULT", .sl = kLevelSl}};
    auto resolved = std::make_shared<qos::ResolvedQos>();
    resolved->policy = policy;
    const auto summary = bench.sweep([&](SubnetPlan& plan) {
      plan.qos = resolved;
      auto tables = qos::planQosFor(plan.fabric, options, nullptr, plan.routing);
      ASSERT_TRUE(tables) << tables.error().message;
      plan.qosTables = std::move(*tables);
    });
    EXPECT_TRUE(summary.complete());
  }

  ProgramBench bench;
};

TEST_F(DaemonQosTables, TheSl2VlDumpListsEveryPortsTableAsItHoldsIt) {
  const SubnetPlan& plan = bench.plan();
  ASSERT_TRUE(plan.qosTables && !plan.qosTables->sl2vl.empty());
  auto text = dumpHeldTables(control::DumpKind::Sl2Vl, &plan, bench.held(), /*master=*/true);
  ASSERT_TRUE(text) << text.error().message;
  auto dumped = parseSl2VlDump(*text, "dump sl2vl", /*withPortTables=*/true);
  ASSERT_TRUE(dumped) << dumped.error().message;
  const auto programmed =
      programmedSl2VlEntries(plan.routing.sl2vl, plan.qosTables ? &*plan.qosTables : nullptr);
  EXPECT_EQ(dumped->size(), programmed.size());
  std::size_t cas = 0;
  const Fabric& wire = bench.wire().fabric();
  for (const DumpedSl2Vl& d : *dumped) {
    const auto node = wire.findNode(d.switchGuid);
    ASSERT_TRUE(node);
    cas += !wire.node(*node).isSwitch();
    EXPECT_EQ(d.vl, bench.wire().sl2vl(*node, d.inPort, d.outPort).vl)
        << d.switchGuid.value << " " << int{d.inPort} << " " << int{d.outPort};
  }
  EXPECT_EQ(cas, wire.endNodes().size()) << "one table per CA port";
  // Byte for byte the dry run's sl2vl.dump of the same plan.
  std::string dry;
  writeSl2VlDump(plan.fabric, plan.routing, &*plan.qosTables,
                 [&](std::string_view chunk) { dry += chunk; });
  EXPECT_EQ(*text, dry);
}

TEST_F(DaemonQosTables, APathWalksTheLevelsSlOnTheVlsThePortsHold) {
  const Fabric& fabric = bench.plan().fabric;
  const std::string from = fabric.node(fabric.endNodes().front()).description;
  const std::string to = fabric.node(fabric.endNodes().back()).description;
  const std::string answer =
      answerPath(control::encodePathRequest({.json = true, .from = from, .to = to}), &bench.plan(),
                 nullptr, bench.held(), {});
  ASSERT_FALSE(answer.starts_with("error:")) << answer;
  const Json j = Json::parse(answer);
  EXPECT_EQ(j["end"], "delivered");
  EXPECT_EQ(j["sl"], kLevelSl);
  EXPECT_EQ(j["qos_level"], "DEFAULT");
  const auto& hops = j["hops"];
  ASSERT_GE(hops.size(), 3U);
  const Fabric& wire = bench.wire().fabric();
  for (std::size_t i = 0; i + 1 < hops.size(); ++i) {
    const auto node =
        wire.findNode(Guid{std::stoull(hops[i]["guid"].get<std::string>(), nullptr, 16)});
    ASSERT_TRUE(node);
    const auto in = static_cast<std::uint8_t>(i == 0 ? 0 : hops[i]["in_port"].get<int>());
    const auto out = static_cast<std::uint8_t>(hops[i]["out_port"].get<int>());
    EXPECT_EQ(hops[i]["vl"], bench.wire().sl2vl(*node, in, out).vl[kLevelSl]) << i;
    if (i > 0) {
      EXPECT_EQ(hops[i]["in_vl"], hops[i - 1]["vl"]) << i;
    }
  }
  // Asking another SL: the SA would answer no path; the walk says so.
  control::PathRequest other{.json = true, .from = from, .to = to};
  other.query.sl = 1;
  const Json refused = Json::parse(
      answerPath(control::encodePathRequest(other), &bench.plan(), nullptr, bench.held(), {}));
  EXPECT_EQ(refused["sl"], 1);
  EXPECT_NE(refused["note"].get<std::string>().find("no path"), std::string::npos);
}

}  // namespace
}  // namespace ibsm::sm::manager
