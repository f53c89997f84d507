// Routing time of the engines on generated 3-level fat trees (k pods of k/2
// edge and k/2 aggregation switches, (k/2)^2 cores, k^3/4 CAs) and on
// maximal dragonflies (a = 2p = 2h routers per group, a*h+1 groups; the
// issue's a=16 p=8 h=8 is 129 groups, 2064 switches, 16512 CAs). The fabric is
// built and given LIDs outside the timed loop; one iteration routes it once.
// scripts/bench-routing.sh runs one case per process to read its peak RSS.
//
//   routing_bench --benchmark_filter='ftree/radix:24$'
#include <benchmark/benchmark.h>
#include <ibsm/Dumps.h>
#include <ibsm/Engines.h>
#include <ibsm/Lids.h>
#include <ibsm/Report.h>
#include <ibsm/Topology.h>
#include <ibsm/TopologyGenerator.h>
#include <sys/resource.h>

#include <stdexcept>
#include <string>

namespace {

using namespace ibsm;

Fabric withLids(const TopologySpec& spec, int cablesCut) {
  const auto net = generateNetFile(spec, Degradation{cablesCut, 1});
  if (!net) throw std::runtime_error(net.error().message);
  auto fabric = parseNetFile(*net, "generated");
  if (!fabric) throw std::runtime_error(fabric.error().message);
  const auto plan = planLids(*fabric, {}, 0);
  if (!plan) throw std::runtime_error(plan.error().message);
  applyLids(*fabric, *plan);
  return std::move(*fabric);
}

Fabric fatTree(int radix, int cablesCut) {
  return withLids(FatTreeSpec{.levels = 3, .radix = radix}, cablesCut);
}

double peakRssMiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return double(usage.ru_maxrss) / 1024.0;  // Linux reports KiB
}

void routeFabric(benchmark::State& state, const Fabric& fabric, const std::string& engineName) {
  const EngineRegistry registry = defaultRegistry();
  std::size_t entries = 0;
  for (auto _ : state) {
    auto result = registry.route(fabric, {engineName}, {});
    if (!result) {
      state.SkipWithError(result.error().message.c_str());
      break;
    }
    entries = 0;
    for (const Lft& lft : result->lfts) entries += lft.port.size();
    benchmark::DoNotOptimize(result->lfts.data());
  }
  state.counters["switches"] = double(fabric.switches().size());
  state.counters["CAs"] = double(fabric.endNodes().size());
  state.counters["lft_entries"] = double(entries);
  state.counters["peak_rss_MiB"] = peakRssMiB();
}

void route(benchmark::State& state, const std::string& engineName, int cablesCut) {
  routeFabric(state, fatTree(static_cast<int>(state.range(0)), cablesCut), engineName);
}

// The HDR SuperPOD shape at its largest: three levels of radix-40 switches,
// servers of 4 HCAs on rails of 4 leaves (20 edges a pod), a SHARP
// aggregation node on every switch; beside the plain tree of that radix.
void routeRailTree(benchmark::State& state, bool furnished) {
  FatTreeSpec spec{.levels = 3, .radix = static_cast<int>(state.range(0))};
  if (furnished) {
    spec.aggregationNodes = true;
    spec.rails = 4;
  }
  routeFabric(state, withLids(spec, 0), "ftree");
}

// Dragonfly a = 2p = 2h on the VLs a port declares by default (VL0-7), on
// routing.threads threads (0: all cores; the tables are the same).
void routeDragonfly(benchmark::State& state, int cablesCut, unsigned threads = 0) {
  const int a = static_cast<int>(state.range(0));
  const Fabric fabric = withLids(DragonflySpec{.a = a, .p = a / 2, .h = a / 2}, cablesCut);
  const EngineRegistry registry = defaultRegistry();
  RoutingOptions options;
  options.maxVls = 8;
  options.threads = threads;
  std::size_t entries = 0, sl2vl = 0;
  for (auto _ : state) {
    auto result = registry.route(fabric, {"dragonfly"}, options);
    if (!result || result->engine != "dragonfly") {
      state.SkipWithError(result ? "dragonfly fell back" : result.error().message.c_str());
      break;
    }
    entries = 0;
    for (const Lft& lft : result->lfts) entries += lft.port.size();
    sl2vl = result->sl2vl.size();
    benchmark::DoNotOptimize(result->lfts.data());
  }
  state.counters["switches"] = double(fabric.switches().size());
  state.counters["CAs"] = double(fabric.endNodes().size());
  state.counters["lft_entries"] = double(entries);
  state.counters["sl2vl_entries"] = double(sl2vl);
  state.counters["peak_rss_MiB"] = peakRssMiB();
}

// Writing the net file of a radix-36 three-level tree (11664 CAs): what
// `ibsm topo generate` and every generated test fabric wait on.
void generateFatTree(benchmark::State& state) {
  const int radix = static_cast<int>(state.range(0));
  std::size_t bytes = 0;
  for (auto _ : state) {
    auto text = generateNetFile(FatTreeSpec{.levels = 3, .radix = radix});
    if (!text) {
      state.SkipWithError(text.error().message.c_str());
      break;
    }
    bytes = text->size();
    benchmark::DoNotOptimize(text->data());
  }
  state.counters["net_file_MiB"] = double(bytes) / (1024.0 * 1024.0);
  state.counters["peak_rss_MiB"] = peakRssMiB();
}

BENCHMARK(generateFatTree)->ArgName("radix")->Arg(36)->Iterations(3)->Unit(benchmark::kMillisecond);

// Reading that net file back (what `ibsm route --topology` does first).
void readFatTree(benchmark::State& state) {
  const auto net =
      generateNetFile(FatTreeSpec{.levels = 3, .radix = static_cast<int>(state.range(0))});
  if (!net) throw std::runtime_error(net.error().message);
  std::size_t nodes = 0;
  for (auto _ : state) {
    auto fabric = parseNetFile(*net, "generated");
    if (!fabric) {
      state.SkipWithError(fabric.error().message.c_str());
      break;
    }
    nodes = fabric->size();
    benchmark::DoNotOptimize(nodes);
  }
  state.counters["nodes"] = double(nodes);
  state.counters["peak_rss_MiB"] = peakRssMiB();
}

BENCHMARK(readFatTree)->ArgName("radix")->Arg(36)->Iterations(3)->Unit(benchmark::kMillisecond);

// The dry run's route report (every pair walked, link loads, credit loops)
// on the tables ftree gives the same tree.
void reportFatTree(benchmark::State& state) {
  const Fabric fabric = fatTree(static_cast<int>(state.range(0)), 0);
  const auto tables = defaultRegistry().route(fabric, {"ftree"}, {});
  if (!tables) throw std::runtime_error(tables.error().message);
  std::uint64_t pairs = 0;
  for (auto _ : state) {
    const RouteReport report = analyseRoutes(fabric, *tables);
    pairs = report.routedPairs();
    benchmark::DoNotOptimize(pairs);
  }
  state.counters["routed_pairs"] = double(pairs);
  state.counters["peak_rss_MiB"] = peakRssMiB();
}

BENCHMARK(reportFatTree)->ArgName("radix")->Arg(36)->Iterations(1)->Unit(benchmark::kMillisecond);

// Formatting the dry run's LFT dump of ftree's tables, handed to a sink
// that keeps nothing (the disk left out): the OpenSM text, or the compact
// form stored (-1) or compressed at a zstd level.
void dumpLfts(benchmark::State& state, int zstdLevel) {
  const Fabric fabric = fatTree(static_cast<int>(state.range(0)), 0);
  const auto tables = defaultRegistry().route(fabric, {"ftree"}, {});
  if (!tables) throw std::runtime_error(tables.error().message);
  std::size_t bytes = 0;
  const DumpSink sink = [&](std::string_view chunk) {
    bytes += chunk.size();
    benchmark::DoNotOptimize(chunk.data());
  };
  for (auto _ : state) {
    bytes = 0;
    if (zstdLevel < 0)
      writeLftDump(fabric, *tables, sink);
    else
      writeCompactLftDump(fabric, *tables, sink, zstdLevel);
  }
  std::size_t entries = 0;
  for (const Lft& lft : tables->lfts) entries += lft.port.size();
  state.counters["switches"] = double(fabric.switches().size());
  state.counters["CAs"] = double(fabric.endNodes().size());
  state.counters["lft_entries"] = double(entries);
  state.counters["dump_MiB"] = double(bytes) / (1024.0 * 1024.0);
  state.counters["MiB_per_s"] =
      benchmark::Counter(double(bytes) / (1024.0 * 1024.0), benchmark::Counter::kIsRate);
  state.counters["peak_rss_MiB"] = peakRssMiB();
}

BENCHMARK_CAPTURE(dumpLfts, opensm, -1)
    ->ArgName("radix")
    ->Arg(36)
    ->Iterations(2)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(dumpLfts, compact_stored, 0)
    ->ArgName("radix")
    ->Arg(36)
    ->Iterations(2)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(dumpLfts, compact_zstd1, 1)
    ->ArgName("radix")
    ->Arg(36)
    ->Iterations(2)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(dumpLfts, compact_zstd3, 3)
    ->ArgName("radix")
    ->Arg(36)
    ->Iterations(2)
    ->Unit(benchmark::kMillisecond);

BENCHMARK_CAPTURE(routeDragonfly, dragonfly, 0)
    ->ArgName("a")
    ->Arg(4)
    ->Arg(8)
    ->Arg(12)
    ->Arg(16)
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(routeDragonfly, dragonfly_cut16, 16)
    ->ArgName("a")
    ->Arg(16)
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(routeDragonfly, dragonfly_1thread, 0, 1u)
    ->ArgName("a")
    ->Arg(16)
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond);

BENCHMARK_CAPTURE(route, ftree, std::string("ftree"), 0)
    ->ArgName("radix")
    ->Arg(8)
    ->Arg(12)
    ->Arg(16)
    ->Arg(24)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(route, ftree, std::string("ftree"), 0)
    ->ArgName("radix")
    ->Arg(36)
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(routeRailTree, plain, false)
    ->ArgName("radix")
    ->Arg(40)
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(routeRailTree, rails_an, true)
    ->ArgName("radix")
    ->Arg(40)
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond);
// The usual state of a cluster: a few cables missing, balanced routing.
BENCHMARK_CAPTURE(route, ftree_cut8, std::string("ftree"), 8)
    ->ArgName("radix")
    ->Arg(24)
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(route, updn, std::string("updn"), 0)
    ->ArgName("radix")
    ->Arg(24)
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(route, minhop, std::string("minhop"), 0)
    ->ArgName("radix")
    ->Arg(24)
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
