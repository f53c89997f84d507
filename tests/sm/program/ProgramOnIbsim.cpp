// Brings up a live ibsim fabric the way the SM will: discover over the umad
// transport, planSubnet(), program; then sweeps again and expects nothing
// left to write. Run under tests/sm/ibsim/run-with-ibsim.sh; the script
// program-on-ibsim.sh then checks the result with infiniband-diags.
//
//   run-with-ibsim.sh two-switch-dual-port-hcas.net -- ProgramOnIbsim --engine updn [--qos]
//
// --qos gives the plan QoS tables on every port (qosTablesOnEveryPort()):
// SL2VL SL s -> VL s % 4 (SL 15: VL 15), VLArbitration low table VL 0-3
// weights 1-4 repeated, high table VL 1 weight 9, VLHighLimit 5; the script
// qos-on-ibsim.sh reads them back with smpquery.
//
// Prints one line per sweep (and the PROG-* log lines); exit status 0 when
// the first sweep completed and the second wrote nothing.
#include <ibsm/Engines.h>
#include <ibsm/QosPolicy.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "sm/discovery/Discovery.h"
#include "sm/mad/MadEngine.h"
#include "sm/program/SubnetProgrammer.h"
#include "sm/transport/UmadTransport.h"

namespace ibsm {
namespace {

// Every port's tables, as QoS planning (qos/QosTables.cpp) gives them.
qos::QosTables qosTablesOnEveryPort(const Fabric& f) {
  qos::QosTables t;
  std::array<std::uint8_t, 16> vls{};
  for (std::uint8_t sl = 0; sl < 16; ++sl) vls[sl] = sl == 15 ? 15 : sl % 4;
  std::vector<qos::VlWeight> low;
  for (std::uint8_t i = 0; i < 64; ++i)
    low.push_back(
        {.vl = static_cast<std::uint8_t>(i % 4), .weight = static_cast<std::uint8_t>(i % 4 + 1)});
  for (NodeId n = 0; n < f.size(); ++n) {
    const Node& node = f.node(n);
    std::vector<std::uint8_t> ports;
    if (node.isSwitch()) ports.push_back(0);
    for (std::uint8_t p = 1; p <= node.numPorts(); ++p)
      if (node.ports[p].connected()) ports.push_back(p);
    for (const std::uint8_t out : ports) {
      for (const std::uint8_t in : node.isSwitch() ? ports : std::vector<std::uint8_t>{0})
        t.sl2vl.push_back({.port = PortRef{n, out}, .inPort = in, .vl = vls});
      t.vlArb.push_back(
          {.port = PortRef{n, out}, .highLimit = 5, .high = {{.vl = 1, .weight = 9}}, .low = low});
    }
  }
  std::ranges::sort(t.sl2vl);
  std::ranges::sort(t.vlArb);
  return t;
}

struct Sweep {
  sm::program::ProgramSummary summary;
  double discoverMs{0};
};

Result<Sweep> sweep(MadEngine& engine, sm::program::HeldSubnet& held, const std::string& routing,
                    bool withQos) {
  sm::discovery::Discovery discovery(engine, {}, spdlog::default_logger());
  auto subnet = discovery.run();
  if (!subnet) return std::unexpected(subnet.error());
  for (const auto& p : subnet->problems) fmt::print(stderr, "  discovery problem: {}\n", p);
  PlanInputs inputs;
  inputs.engines = {routing};
  auto plan = planSubnet(subnet->fabric, inputs, defaultRegistry());
  if (!plan) return std::unexpected(plan.error());
  if (withQos) plan->qosTables = qosTablesOnEveryPort(plan->fabric);
  held.observe(std::move(*subnet));
  sm::program::SubnetProgrammer programmer(engine, held);
  auto summary = programmer.program(*plan);
  if (!summary) return std::unexpected(summary.error());
  return Sweep{std::move(*summary),
               static_cast<double>(discovery.counters().elapsed.count()) / 1000.0};
}

void print(std::string_view what, const Sweep& s) {
  const sm::program::ProgramSummary& p = s.summary;
  fmt::print(
      "{}: discovery {:.1f} ms; programming {} SMPs in {:.1f} ms: {} blocks read, {} written, "
      "{} tops, {} ports configured, {} armed, {} activated, {} failed or deferred; SL2VL {} "
      "read, {} written; VLArb {} read, {} written\n",
      what, s.discoverMs, p.requests(), static_cast<double>(p.duration().count()) / 1000.0,
      p.table(sm::program::TableKind::Lft).read, p.table(sm::program::TableKind::Lft).written,
      p.topsWritten, p.portsConfigured, p.portsArmed, p.portsActivated, p.failed(),
      p.table(sm::program::TableKind::Sl2Vl).read, p.table(sm::program::TableKind::Sl2Vl).written,
      p.table(sm::program::TableKind::VlArb).read, p.table(sm::program::TableKind::VlArb).written);
  for (const auto& f : p.failures) fmt::print(stderr, "  failure: {}\n", f);
}

int run(int argc, char** argv) {
  std::string routing = "auto";
  bool withQos = false;
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--engine" && i + 1 < argc) routing = argv[++i];
    if (std::string_view(argv[i]) == "--qos") withQos = true;
  }
  auto port = sm::transport::UmadTransport::open({});
  if (!port) {
    fmt::print(stderr, "{}\n", port.error().message);
    return 2;
  }
  MadEngine engine(**port);
  sm::program::HeldSubnet held;

  auto first = sweep(engine, held, routing, withQos);
  if (!first) {
    fmt::print(stderr, "first sweep: {}\n", first.error().message);
    return 1;
  }
  print("first sweep", *first);
  auto second = sweep(engine, held, routing, withQos);
  if (!second) {
    fmt::print(stderr, "second sweep: {}\n", second.error().message);
    return 1;
  }
  print("second sweep", *second);

  bool ok = true;
  if (!first->summary.complete()) {
    fmt::print(stderr, "FAIL: the first sweep left work undone\n");
    ok = false;
  }
  if (second->summary.requests() != 0) {
    fmt::print(stderr, "FAIL: the second sweep still sent {} SMPs\n", second->summary.requests());
    ok = false;
  }
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace ibsm

int main(int argc, char** argv) {
  return ibsm::run(argc, argv);
}
