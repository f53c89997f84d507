// The SA in-process on generated 3-level fat trees (radix 24: 4176 nodes):
// building a snapshot after a sweep (time, and heap it holds, read with
// mallinfo2 around the build), and answering PathRecord and NodeRecord Gets
// for random ports through the whole decode-match-encode path (answers per
// second). The plan is made outside the timed loops.
//
//   sa_bench --benchmark_filter='radix:24'
#include <benchmark/benchmark.h>
#include <ibsm/Engines.h>
#include <ibsm/SubnetPlan.h>
#include <ibsm/Topology.h>
#include <ibsm/TopologyGenerator.h>
#include <malloc.h>

#include <random>
#include <stdexcept>

#include "sm/sa/PathRecords.h"
#include "sm/sa/SaRecords.h"
#include "sm/sa/SaResponder.h"

namespace {

using namespace ibsm;
using namespace ibsm::sm::sa;

// Shared, as the daemon's sweeps hand their plan to the SA's snapshot.
std::shared_ptr<const SubnetPlan> planFatTree(int radix) {
  const auto net = generateNetFile(FatTreeSpec{.levels = 3, .radix = radix});
  if (!net) throw std::runtime_error(net.error().message);
  auto fabric = parseNetFile(*net, "generated");
  if (!fabric) throw std::runtime_error(fabric.error().message);
  PlanInputs inputs;
  inputs.engines = {"ftree", "updn"};
  auto plan = planSubnet(std::move(*fabric), inputs, defaultRegistry());
  if (!plan) throw std::runtime_error(plan.error().message);
  return std::make_shared<const SubnetPlan>(std::move(*plan));
}

SaSource sourceOf(const std::shared_ptr<const SubnetPlan>& plan) {
  return SaSource{.plan = plan, .smPort = {plan->fabric.endNodes().front(), 1}};
}

void buildSnapshot(benchmark::State& state) {
  const auto plan = planFatTree(static_cast<int>(state.range(0)));
  std::size_t heap = 0, records = 0;
  for (auto _ : state) {
    const auto before = mallinfo2().uordblks;
    auto subnet = SaSubnet::build(sourceOf(plan), {});
    heap = mallinfo2().uordblks - before;
    records = subnet->memoryBytes();
    benchmark::DoNotOptimize(subnet.get());
  }
  state.counters["nodes"] = double(plan->fabric.size());
  state.counters["heap_MiB"] = double(heap) / (1024.0 * 1024.0);
  state.counters["records_MiB"] = double(records) / (1024.0 * 1024.0);
}
BENCHMARK(buildSnapshot)->ArgName("radix")->Arg(8)->Arg(24)->Unit(benchmark::kMillisecond);

std::vector<std::uint8_t> request(std::uint16_t attribute, std::uint64_t mask,
                                  std::vector<std::uint8_t> record) {
  SaMad mad;
  mad.header.method = saMethod::kGet;
  mad.header.attributeId = attribute;
  mad.header.componentMask = mask;
  mad.data = std::move(record);
  return encodeSaMad(mad);
}

void pathRecordGet(benchmark::State& state) {
  const auto plan = planFatTree(static_cast<int>(state.range(0)));
  SaResponder sa(SaSubnet::build(sourceOf(plan), {}));
  const auto hosts = plan->fabric.endNodes();
  std::vector<std::vector<std::uint8_t>> requests;
  std::mt19937 random(42);
  std::uniform_int_distribution<std::size_t> pick(0, hosts.size() - 1);
  for (int i = 0; i < 1024; ++i) {
    PathRecord q;
    q.sgid = makeGid(kDefaultSubnetPrefix, plan->fabric.port({hosts[pick(random)], 1}).guid);
    q.dgid = makeGid(kDefaultSubnetPrefix, plan->fabric.port({hosts[pick(random)], 1}).guid);
    requests.push_back(
        request(saAttr::kPathRecord, prMask::kSgid | prMask::kDgid, encodeRecord(q)));
  }
  GmpAddress from;
  from.lid = plan->fabric.port({hosts[0], 1}).lid;
  std::size_t i = 0;
  for (auto _ : state) {
    auto reply = sa.answer(requests[i++ % requests.size()], from);
    benchmark::DoNotOptimize(reply);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  state.counters["errors"] = double(sa.counters().errorsByStatus.size());
}
BENCHMARK(pathRecordGet)->ArgName("radix")->Arg(24);

void nodeRecordGet(benchmark::State& state) {
  const auto plan = planFatTree(static_cast<int>(state.range(0)));
  SaResponder sa(SaSubnet::build(sourceOf(plan), {}));
  const auto hosts = plan->fabric.endNodes();
  GmpAddress from;
  from.lid = plan->fabric.port({hosts[0], 1}).lid;
  std::size_t i = 0;
  for (auto _ : state) {
    const NodeRecord q{.lid = plan->fabric.port({hosts[i++ % hosts.size()], 1}).lid};
    auto reply = sa.answer(request(saAttr::kNodeRecord, 1, encodeRecord(q)), from);
    benchmark::DoNotOptimize(reply);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(nodeRecordGet)->ArgName("radix")->Arg(24);

}  // namespace

BENCHMARK_MAIN();
