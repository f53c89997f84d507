// planMulticast() and checkMulticast() on a 3-level fat tree (radix 24: 720
// switches, 3456 CAs by default): a few groups that every CA joins (IPoIB
// broadcast groups), and many small groups (rdma_cm, ibacm). One iteration
// plans (or checks) every group once; the Cached variants keep the roots
// between plans (McTopologyCache), as the SM's passes do.
//
//   multicast_bench --benchmark_filter='plan/everyCa'
#include <benchmark/benchmark.h>
#include <ibsm/Lids.h>
#include <ibsm/Multicast.h>
#include <ibsm/Topology.h>
#include <ibsm/TopologyGenerator.h>

#include <random>
#include <stdexcept>

namespace {

using namespace ibsm;

Fabric fatTree(int radix) {
  const auto net = generateNetFile(FatTreeSpec{.levels = 3, .radix = radix}, Degradation{});
  if (!net) throw std::runtime_error(net.error().message);
  auto fabric = parseNetFile(*net, "generated");
  if (!fabric) throw std::runtime_error(fabric.error().message);
  const auto lids = planLids(*fabric, {}, 0);
  if (!lids) throw std::runtime_error(lids.error().message);
  applyLids(*fabric, *lids);
  return std::move(*fabric);
}

std::vector<McRouteMember> caPorts(const Fabric& f) {
  std::vector<McRouteMember> out;
  for (const NodeId id : f.endNodes())
    for (std::size_t p = 1; p < f.node(id).ports.size(); ++p)
      if (f.node(id).ports[p].connected()) out.push_back({f.node(id).ports[p].guid, true});
  std::ranges::sort(out);
  return out;
}

// `groups` groups of `members` CA ports each (all of them when 0), drawn
// with a fixed seed.
std::vector<McGroupRoute> groupsOf(const Fabric& f, int groups, int members) {
  const auto all = caPorts(f);
  std::mt19937 rng(7);
  std::vector<McGroupRoute> out;
  for (int g = 0; g < groups; ++g) {
    McGroupRoute route{
        .mgid = {}, .mlid = Lid{static_cast<std::uint16_t>(0xC000 + g)}, .members = {}};
    if (members == 0) {
      route.members = all;
    } else {
      for (int m = 0; m < members; ++m) route.members.push_back(all[rng() % all.size()]);
      std::ranges::sort(route.members);
      const auto [first, last] = std::ranges::unique(route.members);
      route.members.erase(first, last);
    }
    out.push_back(std::move(route));
  }
  return out;
}

// With `cached`, every plan after the first reuses the roots
// (McTopologyCache), as the SM's passes for joins and leaves do.
void plan(benchmark::State& state, int groups, int members, bool cached) {
  const Fabric f = fatTree(static_cast<int>(state.range(0)));
  const auto routes = groupsOf(f, groups, members);
  McTopologyCache cache;
  MulticastOptions options;
  if (cached) options.cache = &cache;
  std::size_t entries = 0;
  for (auto _ : state) {
    auto result = planMulticast(f, routes, options);
    if (!result) {
      state.SkipWithError(result.error().message.c_str());
      break;
    }
    entries = 0;
    for (const auto& mft : result->mfts) entries += mft.entries.size();
    benchmark::DoNotOptimize(result->mfts.data());
  }
  state.counters["switches"] = double(f.switches().size());
  state.counters["CAs"] = double(f.endNodes().size());
  state.counters["groups"] = groups;
  state.counters["mft_entries"] = double(entries);
}

void check(benchmark::State& state, int groups, int members) {
  const Fabric f = fatTree(static_cast<int>(state.range(0)));
  const auto routes = groupsOf(f, groups, members);
  const auto planned = planMulticast(f, routes);
  if (!planned) throw std::runtime_error(planned.error().message);
  std::size_t problems = 0;
  for (auto _ : state) problems = checkMulticast(f, planned->mfts, routes).size();
  if (problems != 0) state.SkipWithError("the checker found problems in the planned trees");
  state.counters["groups"] = groups;
}

BENCHMARK_CAPTURE(plan, everyCa3, 3, 0, false)->Arg(24)->Arg(36)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(plan, everyCa3Cached, 3, 0, true)->Arg(24)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(plan, small1000x4, 1000, 4, false)->Arg(24)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(plan, small1000x4Cached, 1000, 4, true)->Arg(24)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(check, everyCa3, 3, 0)->Arg(24)->Arg(36)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(check, small1000x4, 1000, 4)->Arg(24)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
