// The daemon's heap after many multicast passes (issue 28): one SmDaemon
// on the in-memory fake fabric of a 3-level fat tree (radix 24 by default:
// 720 switches, 3456 CAs), with the SA bound as `ibsm run` binds it; after
// the subnet is up, `passes` batches of one SA join or leave each, far
// enough apart that each is its own multicast pass. Prints glibc's heap in
// use (ProcessMemory) once the subnet is up and after the passes, and the
// process's peak RSS: a pass that copied the plan holds a second plan (the
// last sweep's stays with the status and the SA) and peaks by one more.
//
//   mcast_pass_memory [radix=24] [passes=100]
#include <ibsm/SaMad.h>
#include <spdlog/sinks/null_sink.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <string>

#include "sm/manager/ProcessMemory.h"
#include "sm/manager/SaFeed.h"
#include "sm/manager/SmDaemon.h"
#include "sm/sa/Components.h"
#include "tests/sm/program/SubnetSnapshot.h"
#include "tests/sm/support/FakeFabricTransport.h"
#include "tests/sm/support/GmpInjector.h"
#include "tests/support/FabricFixtures.h"

namespace {

using namespace ibsm;
using namespace ibsm::sm::manager;
using namespace std::chrono_literals;

const Gid kGroup{0xff, 0x12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x12, 0x34};

double mib(std::uint64_t bytes) {
  return static_cast<double>(bytes) / (1024.0 * 1024.0);
}

double peakRssMib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // KiB on Linux
}

// One SA MCMemberRecord Set (join, creating kGroup) or Delete (leave).
ReceivedGmp memberMad(const Fabric& f, PortRef port, bool join, std::uint64_t tid) {
  McMemberRecord r;
  r.mgid = kGroup;
  r.portGid = makeGid(kDefaultSubnetPrefix, f.port(port).guid);
  r.qkey = 0x0B1B;
  r.pkey = 0xFFFF;
  r.joinState = joinState::kFull;
  SaMad mad;
  mad.header.method = join ? saMethod::kSet : saMethod::kDelete;
  mad.header.tid = tid;
  mad.header.attributeId = saAttr::kMcMemberRecord;
  mad.header.componentMask = join ? sm::sa::mcmMask::kCreate : sm::sa::mcmMask::kJoin;
  mad.data = encodeRecord(r);
  return {encodeSaMad(mad),
          GmpAddress{.lid = f.port(port).lid, .qpn = 1, .sl = 0, .pkeyIndex = 0, .gid = {}}};
}

}  // namespace

int main(int argc, char** argv) {
  const int radix = argc > 1 ? std::stoi(argv[1]) : 24;
  const int passes = argc > 2 ? std::stoi(argv[2]) : 100;
  const Fabric fabric = ibsm::testing::generatedFabric(FatTreeSpec{.levels = 3, .radix = radix});
  const auto cas = fabric.endNodes();
  const PortRef smPort{cas.front(), 1};
  ibsm::testing::FakeFabricTransport wire(ibsm::testing::unprogrammed(fabric), smPort);
  ibsm::testing::GmpInjector gmps(wire, wire.clock());
  const auto dir = std::filesystem::temp_directory_path() /
                   ("ibsm-mcast-pass-memory-" + std::to_string(::getpid()));
  StateStore store(dir);
  sm::loop::EventLoop events(wire.clock());
  auto quiet =
      std::make_shared<spdlog::logger>("bench", std::make_shared<spdlog::sinks::null_sink_st>());
  MadEngine engine(gmps,
                   MadEngineOptions{.clock = events.clock(), .waiter = &events, .logger = quiet});
  DaemonSettings settings;
  settings.sweep.plan.engines = {"ftree"};
  settings.sweepInterval = 0s;  // no light sweeps: only the passes run
  for (const NodeId sw : wire.fabric().switches())
    wire.fabric().node(sw).switchData->multicastFdbCap = 1024;
  auto responder = std::make_shared<sm::sa::SaResponder>(nullptr, events.clock());

  SmDaemon daemon(engine, events, store, wire.fabric().port(smPort).guid, settings, {}, quiet);
  daemon.serveSa(gmps, responder);
  daemon.onSubnetProgrammed([&responder](const SweepResult& result,
                                         const sm::program::HeldSubnet& held, const SmInfo& self) {
    responder->setSubnet(saSnapshot(result, held, self, sm::sa::SaSettings{}));
  });
  daemon.manageMulticast(multicastGroupsOf(responder));

  // Batches a second apart from the first that finds the subnet up: pass i
  // joins host i+1 for the first half and has them leave for the second.
  const auto members = static_cast<std::size_t>(passes + 1) / 2;
  std::optional<ProcessMemory> up;
  MadClock::time_point upAt{};
  auto began = std::chrono::steady_clock::now();
  auto passesBegan = began;
  std::function<void()> waitUp = [&] {
    if (!daemon.status().up) {
      events.at(wire.now() + 1s, waitUp);
      return;
    }
    releaseFreeMemory();
    up = readProcessMemory();
    upAt = wire.now();
    passesBegan = std::chrono::steady_clock::now();
    for (int i = 0; i < passes; ++i) {
      const bool join = static_cast<std::size_t>(i) < members;
      const std::size_t host = 1 + (join ? i : i - members) * 7 % (cas.size() - 1);
      gmps.inject(memberMad(wire.fabric(), PortRef{cas[host], 1}, join, 0x100 + i),
                  upAt + 1s * (i + 1));
    }
    events.at(upAt + 1s * (passes + 2), [&] { daemon.signal(SIGTERM); });
  };
  events.at(wire.now() + 5s, waitUp);
  const int code = daemon.run();
  const auto st = daemon.status();
  releaseFreeMemory();
  const ProcessMemory after = readProcessMemory();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - passesBegan).count();
  std::filesystem::remove_all(dir);
  if (!up) {
    std::fprintf(stderr, "the subnet never came up (exit %d)\n", code);
    return 1;
  }
  std::printf("fabric: 3-level fat tree radix %d, %zu switches, %zu CAs\n", radix,
              fabric.switches().size(), cas.size());
  std::printf("multicast passes: %llu (failed %llu), %llu MFT blocks written, %.1f s\n",
              static_cast<unsigned long long>(st.multicast.passes),
              static_cast<unsigned long long>(st.multicast.passesFailed),
              static_cast<unsigned long long>(st.multicast.passBlocksWritten), seconds);
  std::printf("heap in use, subnet up:         %8.1f MiB\n", mib(up->heapInUse));
  std::printf("heap in use, after the passes:  %8.1f MiB\n", mib(after.heapInUse));
  std::printf("RSS after the passes:           %8.1f MiB\n", mib(after.rssBytes));
  std::printf("peak RSS:                       %8.1f MiB\n", peakRssMib());
  return st.multicast.passes == static_cast<std::uint64_t>(passes) ? 0 : 1;
}
