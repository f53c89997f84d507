// Discovers a live ibsim fabric over the umad transport and checks the
// result against the net file the simulator runs, as the topology reader
// reads it: same nodes, GUIDs, descriptions, port GUIDs and cables, and no
// problems. Run under tests/sm/ibsim/run-with-ibsim.sh (ctest -L ibsim);
// also the tool behind the discovery figures in the report:
//
//   run-with-ibsim.sh -N 4200 -S 800 -P 24000 ft3-k24.net --
//       DiscoverOnIbsim --windows 16,32,64 --rounds 3 ft3-k24.net
//
// Without a NETFILE argument it takes IBSIM_NETFILE (set by the harness).
// --unlink NODE PORT first cuts that cable through ibsim's console
// (IBSIM_CONSOLE) and expects the net file without it.
#include <ibsm/Topology.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <string_view>
#include <thread>
#include <vector>

#include "sm/discovery/Discovery.h"
#include "sm/mad/MadEngine.h"
#include "sm/transport/UmadTransport.h"
#include "tests/sm/discovery/DiscoveryChecks.h"

namespace ibsm {
namespace {

std::vector<std::size_t> parseList(std::string_view text) {
  std::vector<std::size_t> out;
  while (!text.empty()) {
    const auto comma = std::min(text.find(','), text.size());
    std::size_t v = 0;
    std::from_chars(text.data(), text.data() + comma, v);
    if (v > 0) out.push_back(v);
    text.remove_prefix(std::min(comma + 1, text.size()));
  }
  return out;
}

// Unlinks NODE[PORT] in the simulator and in `expected`.
Result<void> cutCable(Fabric& expected, const std::string& node, int port) {
  const char* console = std::getenv("IBSIM_CONSOLE");
  if (!console) return fail("--unlink needs IBSIM_CONSOLE (run under run-with-ibsim.sh)");
  std::optional<NodeId> id;
  for (NodeId n = 0; n < expected.size(); ++n)
    if (expected.node(n).description == node) id = n;
  if (!id || port < 1 || port > expected.node(*id).numPorts())
    return fail(fmt::format("no port {} of \"{}\" in the net file", port, node));
  std::ofstream(console) << fmt::format("Unlink \"{}\"[{}]\n", node, port) << std::flush;
  // ibsim reads its console between MADs; give it time to act.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  expected.disconnect({*id, static_cast<std::uint8_t>(port)});
  return {};
}

// One sweep with `window`; prints its figures; returns whether it matched.
bool sweepOnce(MadTransport& wire, std::size_t window, const Fabric& expected,
               std::map<std::size_t, std::vector<double>>& times) {
  MadEngineOptions options;
  options.window = window;
  MadEngine engine(wire, options);
  sm::discovery::Discovery discovery(engine, {}, spdlog::default_logger());
  auto subnet = discovery.run();
  if (!subnet) {
    fmt::print(stderr, "window {}: {}\n", window, subnet.error().message);
    return false;
  }
  const sm::discovery::DiscoveryCounters& c = discovery.counters();
  const double ms = static_cast<double>(c.elapsed.count()) / 1000.0;
  times[window].push_back(ms);
  fmt::print(
      "window {:3}: {} nodes, {} cables, {} MADs in {:.1f} ms = {:.0f} MADs/s "
      "(retries {}, timeouts {}, problems {})\n",
      window, c.nodes, c.cables, c.madsSent, ms, 1000.0 * static_cast<double>(c.madsSent) / ms,
      c.retries, c.timeouts, subnet->problems.size());
  const auto diffs = testing::compareFabrics(expected, subnet->fabric, testing::Compare::Identity);
  for (const auto& d : diffs) fmt::print(stderr, "  differs: {}\n", d);
  for (const auto& p : subnet->problems) fmt::print(stderr, "  problem: {}\n", p);
  return diffs.empty() && subnet->problems.empty();
}

int run(int argc, char** argv) {
  std::vector<std::size_t> windows{32};
  int rounds = 1;
  std::string netFile;
  std::optional<std::pair<std::string, int>> unlink;
  if (const char* env = std::getenv("IBSIM_NETFILE")) netFile = env;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--windows" && i + 1 < argc) {
      windows = parseList(argv[++i]);
    } else if (arg == "--rounds" && i + 1 < argc) {
      rounds = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--unlink" && i + 2 < argc) {
      unlink.emplace(argv[i + 1], std::atoi(argv[i + 2]));
      i += 2;
    } else if (!arg.starts_with("--")) {
      netFile = arg;
    } else {
      fmt::print(stderr,
                 "usage: {} [--windows 16,32,...] [--rounds N] [--unlink NODE PORT] [NETFILE]\n",
                 argv[0]);
      return 2;
    }
  }
  if (netFile.empty()) {
    fmt::print(stderr, "no net file: give one or run under run-with-ibsim.sh\n");
    return 2;
  }
  spdlog::set_level(spdlog::level::warn);
  auto read = readTopologyFile(netFile);
  if (!read) {
    fmt::print(stderr, "{}\n", read.error().message);
    return 1;
  }
  Fabric& expected = read->fabric;
  if (unlink) {
    if (auto cut = cutCable(expected, unlink->first, unlink->second); !cut) {
      fmt::print(stderr, "{}\n", cut.error().message);
      return 1;
    }
  }
  auto wire = sm::transport::UmadTransport::open({});
  if (!wire) {
    fmt::print(stderr, "{}\n", wire.error().message);
    return 1;
  }
  fmt::print("{}: {} nodes in the net file\n", netFile, expected.size());
  int failures = 0;
  std::map<std::size_t, std::vector<double>> times;
  // Rounds outside, windows inside: a burst of load on the shared machine
  // then hits every window alike.
  for (int round = 0; round < rounds; ++round)
    for (const std::size_t window : windows)
      if (!sweepOnce(**wire, window, expected, times)) ++failures;
  for (auto& [window, ms] : times) {
    std::ranges::sort(ms);
    fmt::print("summary window {:3}: best {:.1f} ms, median {:.1f} ms over {} rounds\n", window,
               ms.front(), ms[ms.size() / 2], ms.size());
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace ibsm

int main(int argc, char** argv) {
  return ibsm::run(argc, argv);
}
