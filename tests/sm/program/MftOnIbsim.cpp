// Multicast forwarding tables on a live ibsim fabric: brings the fabric up
// with two groups (MLID 0xC000 in MLID block 0, 0xC021 in block 1), each a
// tree of every switch and every CA port; then moves the first group's tree
// (other root, other cables), which must prune and grow and complete; then
// sweeps again and expects no SMP at all. Writes what the switches should
// hold, one line per entry ("LID MLID port,port,..."), for
// mft-on-ibsim.sh to compare with `ibroute -M`.
//
//   run-with-ibsim.sh two-switch-dual-port-hcas.net -- MftOnIbsim --engine updn --expect FILE
#include <fmt/format.h>
#include <ibsm/Engines.h>
#include <ibsm/Multicast.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <map>
#include <string_view>
#include <tuple>

#include "sm/discovery/Discovery.h"
#include "sm/mad/MadEngine.h"
#include "sm/program/SubnetProgrammer.h"
#include "sm/transport/UmadTransport.h"

namespace ibsm {
namespace {

using sm::program::ProgramPhase;
using sm::program::ProgramSummary;
using sm::program::TableKind;

// A spanning tree of the switches, grown breadth first from the switch of
// the lowest or the highest node GUID, over the first or the last cable to
// each new switch, with every CA port in it. Named by GUID, not NodeId: a
// discovery numbers the nodes in the order they first answered, which
// retries on a loaded machine change from one sweep to the next, and the
// tree must be the same in every sweep that asks for it.
void addTree(const Fabric& f, bool fromLast, std::uint16_t mlid, MulticastPlan& plan) {
  const auto switches = f.switches();
  const auto byGuid = [&f](NodeId a, NodeId b) { return f.node(a).guid < f.node(b).guid; };
  std::vector<bool> seen(f.size(), false);
  std::deque<NodeId> queue{fromLast ? *std::ranges::max_element(switches, byGuid)
                                    : *std::ranges::min_element(switches, byGuid)};
  seen[queue.front()] = true;
  while (!queue.empty()) {
    const NodeId u = queue.front();
    queue.pop_front();
    const Node& node = f.node(u);
    // child's GUID -> (child, port, its port)
    std::map<Guid, std::tuple<NodeId, std::uint8_t, std::uint8_t>> cable;
    for (std::uint8_t p = 1; p <= node.numPorts(); ++p) {
      const auto& r = node.ports[p].remote;
      if (!r) continue;
      const Guid guid = f.node(r->node).guid;
      if (!f.node(r->node).isSwitch()) {
        plan.mfts[u].entries[mlid].set(p);
      } else if (!seen[r->node] && (fromLast || !cable.contains(guid))) {
        cable[guid] = {r->node, p, r->port};
      }
    }
    for (const auto& [guid, to] : cable) {
      const auto [v, port, itsPort] = to;
      seen[v] = true;
      plan.mfts[u].entries[mlid].set(port);
      plan.mfts[v].entries[mlid].set(itsPort);
      queue.push_back(v);
    }
  }
}

Result<ProgramSummary> sweep(MadEngine& engine, sm::program::HeldSubnet& held,
                             const std::string& routing, bool moved, SubnetPlan& planned) {
  sm::discovery::Discovery discovery(engine, {}, spdlog::default_logger());
  auto subnet = discovery.run();
  if (!subnet) return std::unexpected(subnet.error());
  PlanInputs inputs;
  inputs.engines = {routing};
  auto plan = planSubnet(subnet->fabric, inputs, defaultRegistry());
  if (!plan) return std::unexpected(plan.error());
  MulticastPlan mc;
  mc.mfts.resize(plan->fabric.size());
  addTree(plan->fabric, moved, 0xC000, mc);
  addTree(plan->fabric, true, 0xC021, mc);
  plan->multicast = std::move(mc);
  held.observe(std::move(*subnet));
  sm::program::SubnetProgrammer programmer(engine, held);
  auto summary = programmer.program(*plan);
  planned = std::move(*plan);
  return summary;
}

void print(std::string_view what, const ProgramSummary& s) {
  fmt::print(
      "{}: {} SMPs, {} MFT blocks written ({} SMPs: {} in mft-prune, {} in mfts), {} "
      "failed or deferred\n",
      what, s.requests(), s.table(TableKind::Mft).written, s.requests(TableKind::Mft),
      s.phase(ProgramPhase::MftPrune).requests, s.phase(ProgramPhase::Mfts).requests, s.failed());
  for (const auto& f : s.failures) fmt::print(stderr, "  failure: {}\n", f);
}

bool writeExpected(const SubnetPlan& plan, const std::string& path) {
  std::FILE* out = std::fopen(path.c_str(), "w");
  if (!out) return false;
  for (const NodeId sw : plan.fabric.switches()) {
    for (const auto& [mlid, mask] : plan.multicast->mfts[sw].entries) {
      std::string ports;
      for (std::size_t p = 0; p < mask.size(); ++p)
        if (mask.test(p)) ports += fmt::format("{}{}", ports.empty() ? "" : ",", p);
      fmt::print(out, "{} 0x{:04x} {}\n", plan.fabric.port(PortRef{sw, 0}).lid.value, mlid, ports);
    }
  }
  return std::fclose(out) == 0;
}

int run(int argc, char** argv) {
  std::string routing = "auto";
  std::string expect;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string_view(argv[i]) == "--engine") routing = argv[++i];
    if (std::string_view(argv[i]) == "--expect") expect = argv[++i];
  }
  auto port = sm::transport::UmadTransport::open({});
  if (!port) {
    fmt::print(stderr, "{}\n", port.error().message);
    return 2;
  }
  MadEngine engine(**port);
  sm::program::HeldSubnet held;
  SubnetPlan plan;
  bool ok = true;
  for (const auto& [what, moved] :
       {std::pair{"bring-up", false}, std::pair{"moved", true}, std::pair{"again", true}}) {
    auto s = sweep(engine, held, routing, moved, plan);
    if (!s) {
      fmt::print(stderr, "{}: {}\n", what, s.error().message);
      return 1;
    }
    print(what, *s);
    if (!s->complete()) ok = false;
    if (std::string_view(what) == "moved" && (s->phase(ProgramPhase::MftPrune).requests == 0 ||
                                              s->phase(ProgramPhase::Mfts).requests == 0)) {
      fmt::print(stderr, "FAIL: moving a tree should prune, then grow\n");
      ok = false;
    }
    if (std::string_view(what) == "again" && s->requests() != 0) {
      fmt::print(stderr, "FAIL: the last sweep still sent {} SMPs\n", s->requests());
      ok = false;
    }
  }
  if (!expect.empty() && !writeExpected(plan, expect)) {
    fmt::print(stderr, "cannot write {}\n", expect);
    return 2;
  }
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace ibsm

int main(int argc, char** argv) {
  return ibsm::run(argc, argv);
}
