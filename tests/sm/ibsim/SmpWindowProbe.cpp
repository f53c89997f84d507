// Reads every NodeInfo and PortInfo of the simulated fabric through the MAD
// engine, once per window size, and prints how long each took. This is how
// the default window (MadEngineOptions::window) was chosen; with --check it
// is also a test that the engine finds exactly the nodes of the net file.
//
//   ibsm topo generate fat-tree --levels 3 --radix 16 -o ft3-k16.net
//   run-with-ibsim.sh -N 4096 -S 1024 -P 40000 ft3-k16.net --
//       SmpWindowProbe --windows 1,4,16,32,64,128 --rounds 7 --check ft3-k16.net
//
// Measured 2026-12-02 on the shared 2-core machine (load average ~16 from
// parallel builds, so single rounds vary 2-5x; medians of 7 rounds):
//   3-level radix-16 fat tree, 1344 nodes, 11266 SMPs (NodeInfo + PortInfo):
//     window 1: 1132 ms   4: 667 ms   16: 478 ms   32: 439 ms   64: 452 ms   128: 476 ms
//   fat-tree-3level-k8 (208 nodes, 1410 SMPs), median of 3, lighter load:
//     window 1: 31.6 ms   4: 16.6 ms   16: 11.8 ms   32: 11.2 ms   64: 10.8 ms   128: 11.6 ms
// ibsim answers one SMP at a time, so past 16-32 outstanding SMPs there is
// nothing left to overlap; 32 is the default, and no window lost an SMP.
#include <ibsm/MadAttributes.h>
#include <ibsm/Topology.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sm/mad/MadEngine.h"
#include "sm/transport/UmadTransport.h"

namespace ibsm {
namespace {

struct Sweep {
  std::set<Guid> nodes;
  std::size_t portInfos{0};
  double millis{0};
  MadCounters counters;
};

// Breadth first over directed routes: NodeInfo of each node found, then
// PortInfo of each of its ports, then NodeInfo through each live switch port.
class Walker {
 public:
  explicit Walker(MadEngine& engine) : engine_(engine) {}

  void start() { askNode(DrPath{}); }
  Sweep& result() { return sweep_; }

 private:
  void askNode(const DrPath& path) {
    engine_.submit(SmpRequest::get(AttributeId::NodeInfo, 0, path),
                   [this](const SmpRequest& q, const SmpReply& r) { onNode(q, r); });
  }

  void onNode(const SmpRequest& q, const SmpReply& r) {
    if (!r.ok()) return;
    const NodeInfo ni = decodeNodeInfo(r.smp->data);
    if (!sweep_.nodes.insert(ni.nodeGuid).second) return;
    const DrPath here = std::get<DrPath>(q.to);
    const bool isSwitch = ni.nodeType == NodeType::Switch;
    for (unsigned p = isSwitch ? 0 : 1; p <= ni.numPorts; ++p) {
      const auto port = static_cast<std::uint8_t>(p);
      engine_.submit(SmpRequest::get(AttributeId::PortInfo, port, here),
                     [this, here, port, isSwitch, entry = ni.localPortNum](const SmpRequest&,
                                                                           const SmpReply& pr) {
                       if (!pr.ok()) return;
                       ++sweep_.portInfos;
                       const PortInfo pi = decodePortInfo(pr.smp->data);
                       // A switch forwards out of any live port but the one
                       // we came in by; a CA only out of the SM's own port.
                       const bool live = pi.portState != PortState::Down;
                       const bool leadsOn =
                           isSwitch ? port != 0 && live && !(here.hopCount() > 0 && port == entry)
                                    : here.hopCount() == 0 && port == entry && live;
                       if (leadsOn) askNode(*here.extended(port));
                     });
    }
  }

  MadEngine& engine_;
  Sweep sweep_;
};

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

int run(int argc, char** argv) {
  std::vector<std::size_t> windows{4, 16, 32, 64, 128};
  std::string check;
  int rounds = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view opt = argv[i];
    if (opt == "--windows")
      windows = parseList(argv[i + 1]);
    else if (opt == "--check")
      check = argv[i + 1];
    else if (opt == "--rounds")
      rounds = std::atoi(argv[i + 1]);
    else {
      fmt::print(stderr, "usage: {} [--windows 4,16,...] [--rounds N] [--check NETFILE]\n",
                 argv[0]);
      return 2;
    }
  }
  spdlog::set_level(spdlog::level::warn);

  std::optional<std::set<Guid>> expected;
  if (!check.empty()) {
    auto fabric = readTopologyFile(check);
    if (!fabric) {
      fmt::print(stderr, "{}\n", fabric.error().message);
      return 1;
    }
    expected.emplace();
    for (const Node& n : fabric->fabric.nodes()) expected->insert(n.guid);
  }

  auto wire = sm::transport::UmadTransport::open({});
  if (!wire) {
    fmt::print(stderr, "{}\n", wire.error().message);
    return 1;
  }
  int failures = 0;
  // Rounds outside, windows inside: a burst of load on the machine then
  // hits every window alike rather than one of them.
  std::map<std::size_t, std::vector<double>> times;
  for (int round = 0; round < rounds; ++round) {
    for (std::size_t window : windows) {
      MadEngineOptions options;
      options.window = window;
      MadEngine engine(**wire, options);
      Walker walker(engine);
      const auto start = MadClock::now();
      walker.start();
      if (auto done = engine.runUntilIdle(); !done) {
        fmt::print(stderr, "{}\n", done.error().message);
        return 1;
      }
      Sweep& s = walker.result();
      s.millis = std::chrono::duration<double, std::milli>(MadClock::now() - start).count();
      s.counters = engine.counters();
      times[window].push_back(s.millis);
      fmt::print(
          "window {:4}: {} nodes, {} PortInfos, {} SMPs sent in {:.1f} ms = {:.0f} SMPs/s "
          "(timeouts {}, retries {}, errors {})\n",
          window, s.nodes.size(), s.portInfos, s.counters.sent, s.millis,
          1000.0 * static_cast<double>(s.counters.sent) / s.millis, s.counters.timeouts,
          s.counters.retries, s.counters.errors);
      if (expected && s.nodes != *expected) {
        fmt::print(stderr, "window {}: found {} nodes, the net file has {}\n", window,
                   s.nodes.size(), expected->size());
        ++failures;
      }
    }
  }
  for (auto& [window, ms] : times) {
    std::ranges::sort(ms);
    fmt::print("summary window {:4}: best {:.1f} ms, median {:.1f} ms over {} rounds\n", window,
               ms.front(), ms[ms.size() / 2], ms.size());
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace ibsm

int main(int argc, char** argv) {
  return ibsm::run(argc, argv);
}
