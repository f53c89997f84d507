// Brings up a live ibsim fabric the way the SM will: discover over the umad
// transport, planSubnet(), program; then sweeps again and expects nothing
// left to write. Run under tests/sm/ibsim/run-with-ibsim.sh; the script
// program-on-ibsim.sh then checks the result with infiniband-diags.
//
//   run-with-ibsim.sh two-switch-dual-port-hcas.net -- ProgramOnIbsim --engine updn
//
// Prints one line per sweep (and the PROG-* log lines); exit status 0 when
// the first sweep completed and the second wrote nothing.
#include <ibsm/Engines.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <string_view>

#include "sm/discovery/Discovery.h"
#include "sm/mad/MadEngine.h"
#include "sm/program/SubnetProgrammer.h"
#include "sm/transport/UmadTransport.h"

namespace ibsm {
namespace {

struct Sweep {
  sm::program::ProgramSummary summary;
  double discoverMs{0};
};

Result<Sweep> sweep(MadEngine& engine, sm::program::HeldSubnet& held, const std::string& routing) {
  sm::discovery::Discovery discovery(engine, {}, spdlog::default_logger());
  auto subnet = discovery.run();
  if (!subnet) return std::unexpected(subnet.error());
  for (const auto& p : subnet->problems) fmt::print(stderr, "  discovery problem: {}\n", p);
  PlanInputs inputs;
  inputs.engines = {routing};
  auto plan = planSubnet(subnet->fabric, inputs, defaultRegistry());
  if (!plan) return std::unexpected(plan.error());
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
      "{} tops, {} ports configured, {} armed, {} activated, {} failed or deferred\n",
      what, s.discoverMs, p.requests(), static_cast<double>(p.duration().count()) / 1000.0,
      p.table(sm::program::TableKind::Lft).read, p.table(sm::program::TableKind::Lft).written,
      p.topsWritten, p.portsConfigured, p.portsArmed, p.portsActivated, p.failed());
  for (const auto& f : p.failures) fmt::print(stderr, "  failure: {}\n", f);
}

int run(int argc, char** argv) {
  std::string routing = "auto";
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string_view(argv[i]) == "--engine") routing = argv[++i];
  }
  auto port = sm::transport::UmadTransport::open({});
  if (!port) {
    fmt::print(stderr, "{}\n", port.error().message);
    return 2;
  }
  MadEngine engine(**port);
  sm::program::HeldSubnet held;

  auto first = sweep(engine, held, routing);
  if (!first) {
    fmt::print(stderr, "first sweep: {}\n", first.error().message);
    return 1;
  }
  print("first sweep", *first);
  auto second = sweep(engine, held, routing);
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
