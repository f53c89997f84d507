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
#include "sm/sa/SaMad.h"
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

// One daemon on the fake fabric with the SA bound, and the batches.
class PassRig {
 public:
  PassRig(int radix, int passes)
      : fabric_(ibsm::testing::generatedFabric(FatTreeSpec{.levels = 3, .radix = radix})),
        cas_(fabric_.endNodes()),
        wire_(ibsm::testing::unprogrammed(fabric_), PortRef{cas_.front(), 1}),
        dir_(std::filesystem::temp_directory_path() /
             ("ibsm-mcast-pass-memory-" + std::to_string(::getpid()))),
        store_(dir_),
        passes_(passes) {
    settings_.sweep.plan.engines = {"ftree"};
    settings_.sweepInterval = 0s;  // no light sweeps: only the passes run
    for (const NodeId sw : wire_.fabric().switches())
      wire_.fabric().node(sw).switchData->multicastFdbCap = 1024;
  }
  ~PassRig() { std::filesystem::remove_all(dir_); }

  int run() {
    SmDaemon daemon(engine_, events_, store_, wire_.fabric().port({cas_.front(), 1}).guid,
                    settings_, {}, quiet_);
    daemon.serveSa(gmps_, responder_);
    daemon.onSubnetProgrammed(
        [this](const SweepResult& result, const sm::program::HeldSubnet& held, const SmInfo& self) {
          responder_->setSubnet(saSnapshot(result, held, self, sm::sa::SaSettings{}));
        });
    daemon.manageMulticast(multicastGroupsOf(responder_));
    waitUp(daemon, 5s);
    const int code = daemon.run();
    status_ = daemon.status();
    releaseFreeMemory();
    after_ = readProcessMemory();
    seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - began_).count();
    return code;
  }

  int print(int code) const {
    if (!up_) {
      std::fprintf(stderr, "the subnet never came up (exit %d)\n", code);
      return 1;
    }
    const auto& m = status_.multicast;
    std::printf("fabric: 3-level fat tree, %zu switches, %zu CAs\n", fabric_.switches().size(),
                cas_.size());
    std::printf("multicast passes: %llu (failed %llu), %llu MFT blocks written, %.1f s\n",
                static_cast<unsigned long long>(m.passes),
                static_cast<unsigned long long>(m.passesFailed),
                static_cast<unsigned long long>(m.passBlocksWritten), seconds_);
    std::printf("heap in use, subnet up:         %8.1f MiB\n", mib(up_->heapInUse));
    std::printf("heap in use, after the passes:  %8.1f MiB\n", mib(after_.heapInUse));
    std::printf("RSS after the passes:           %8.1f MiB\n", mib(after_.rssBytes));
    std::printf("peak RSS:                       %8.1f MiB\n", peakRssMib());
    return m.passes == static_cast<std::uint64_t>(passes_) ? 0 : 1;
  }

 private:
  // Every second from 5 s on until the subnet is up; then the batches.
  void waitUp(SmDaemon& daemon, std::chrono::seconds after) {
    events_.at(wire_.now() + after, [this, &daemon] {
      if (!daemon.status().up) {
        waitUp(daemon, 1s);
        return;
      }
      releaseFreeMemory();
      up_ = readProcessMemory();
      began_ = std::chrono::steady_clock::now();
      schedule(daemon);
    });
  }
  // Batches a second apart: the first half joins one host each, the second
  // half has them leave in the same order; then SIGTERM.
  void schedule(SmDaemon& daemon) {
    const auto upAt = wire_.now();
    const auto members = static_cast<std::size_t>(passes_ + 1) / 2;
    for (int i = 0; i < passes_; ++i) {
      const bool join = static_cast<std::size_t>(i) < members;
      const std::size_t host = 1 + (join ? i : i - members) * 7 % (cas_.size() - 1);
      gmps_.inject(memberMad(wire_.fabric(), PortRef{cas_[host], 1}, join, 0x100 + i),
                   upAt + 1s * (i + 1));
    }
    events_.at(upAt + 1s * (passes_ + 2), [&daemon] { daemon.signal(SIGTERM); });
  }

  const Fabric fabric_;
  const std::vector<NodeId> cas_;
  ibsm::testing::FakeFabricTransport wire_;
  ibsm::testing::GmpInjector gmps_{wire_, wire_.clock()};
  std::filesystem::path dir_;
  StateStore store_;
  sm::loop::EventLoop events_{wire_.clock()};
  std::shared_ptr<spdlog::logger> quiet_ =
      std::make_shared<spdlog::logger>("bench", std::make_shared<spdlog::sinks::null_sink_st>());
  MadEngine engine_{
      gmps_, MadEngineOptions{.clock = events_.clock(), .waiter = &events_, .logger = quiet_}};
  std::shared_ptr<sm::sa::SaResponder> responder_ =
      std::make_shared<sm::sa::SaResponder>(nullptr, events_.clock());
  DaemonSettings settings_;
  int passes_;
  std::optional<ProcessMemory> up_;
  ProcessMemory after_;
  sm::control::DaemonStatus status_;
  std::chrono::steady_clock::time_point began_{};
  double seconds_{0};
};

}  // namespace

int main(int argc, char** argv) {
  const int radix = argc > 1 ? std::stoi(argv[1]) : 24;
  const int passes = argc > 2 ? std::stoi(argv[2]) : 100;
  PassRig rig(radix, passes);
  return rig.print(rig.run());
}
